// Intl formatters shared by every message of a culture, created on first use.
// The cache is bounded (the oldest entry goes first), so a server asked for
// many distinct cultures keeps memory flat.

const LIMIT = 512;
const cache = new Map<string, unknown>();

function cached<T>(key: string, make: () => T): T {
  let found = cache.get(key) as T | undefined;
  if (found === undefined) {
    found = make();
    if (cache.size >= LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, found);
  }
  return found;
}

function keyOf(options: object | undefined): string {
  return options === undefined ? "" : JSON.stringify(options);
}

/** A number formatter with a fast path for small whole numbers. */
export interface NumberFormatter {
  format(value: number | bigint): string;
}

class FastNumberFormatter implements NumberFormatter {
  readonly #format: Intl.NumberFormat;
  readonly #plain: boolean;

  constructor(culture: string, options: Intl.NumberFormatOptions | undefined) {
    this.#format = new Intl.NumberFormat(culture, options);
    // Small whole numbers print as String(n) when the culture writes 0-9
    // with ASCII digits and adds nothing around them.
    this.#plain = options === undefined && this.#format.format(987) === "987";
  }

  format(value: number | bigint): string {
    if (
      this.#plain && typeof value === "number" && value >= 0 && value < 1000 &&
      Number.isInteger(value) && !Object.is(value, -0)
    ) {
      return String(value);
    }
    return this.#format.format(value);
  }
}

export function numberFormatter(
  culture: string,
  options?: Intl.NumberFormatOptions,
): NumberFormatter {
  return cached(
    `${culture}\u0000n\u0000${keyOf(options)}`,
    () => new FastNumberFormatter(culture, options),
  );
}

export function dateFormatter(
  culture: string,
  options?: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  return cached(
    `${culture}\u0000d\u0000${keyOf(options)}`,
    () => new Intl.DateTimeFormat(culture, options),
  );
}

/** Plural rules with the categories of 0…99 worked out once. */
export interface PluralSelector {
  select(value: number): Intl.LDMLPluralRule;
}

class FastPluralSelector implements PluralSelector {
  readonly #rules: Intl.PluralRules;
  readonly #small: Intl.LDMLPluralRule[] = [];

  constructor(culture: string, type: Intl.PluralRuleType) {
    this.#rules = new Intl.PluralRules(culture, { type });
  }

  select(value: number): Intl.LDMLPluralRule {
    if (value >= 0 && value < 100 && Number.isInteger(value)) {
      return this.#small[value] ??= this.#rules.select(value);
    }
    return this.#rules.select(value);
  }
}

export function pluralSelector(
  culture: string,
  type: Intl.PluralRuleType,
): PluralSelector {
  return cached(
    `${culture}\u0000p\u0000${type}`,
    () => new FastPluralSelector(culture, type),
  );
}

/** Formats any argument value for a culture, as `{0}` markers do. */
export function formatValue(
  value: unknown,
  culture: string,
  numberOptions?: Intl.NumberFormatOptions,
  dateOptions?: Intl.DateTimeFormatOptions,
): string {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "bigint":
      return numberFormatter(culture, numberOptions).format(value);
    case "object":
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) return String(value);
        return dateFormatter(culture, dateOptions).format(value);
      }
      return String(value);
    default:
      return String(value);
  }
}
