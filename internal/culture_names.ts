// Culture names, shared by the configuration (the schema of
// `localization:supportedCultures`) and the localization module (its
// `isCultureName`, and its reading of the same key): one pattern, and one
// way of reading a list of them from what a source holds, so the schema
// refuses exactly what the module would.
import { quoteValue } from "./quote_value.ts";

// language (2-3 letters), optional script (4 letters), optional region
// (2 letters or 3 digits), then variants (5-8 alphanumerics, or a digit and 3
// alphanumerics). Only letters, digits and "-" can ever match, which is what
// keeps culture names safe to put into a URL or a file path.
const CULTURE_PATTERN =
  /^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?(?:-(?:[A-Za-z\d]{5,8}|\d[A-Za-z\d]{3}))*$/;

/**
 * Whether `value` is a BCP 47 culture name of the form Kit accepts (`en`,
 * `fr-CA`, `zh-Hant-TW`, `es-419`; no extensions, at most 64 characters).
 *
 * @param value The value to check.
 * @returns `true` for such a name.
 *
 * @example Usage
 * ```ts
 * import { matchesCultureTag } from "./culture_names.ts";
 *
 * matchesCultureTag("fr-CA"); // true
 * matchesCultureTag("en_US"); // false
 * ```
 */
export function matchesCultureTag(value: unknown): value is string {
  return typeof value === "string" && value.length <= 64 &&
    CULTURE_PATTERN.test(value);
}

/** The most cultures a list may hold: far more than any application offers. */
export const MAX_CULTURES = 1000;

/** What {@linkcode readCultureList} found. */
export type CultureList =
  /** The list, each name trimmed, in the order given. */
  | { readonly cultures: string[]; readonly bad?: undefined }
  /** The first entry that is not a culture name, and its position. */
  | { readonly cultures?: undefined; readonly bad: BadCultureEntry };

/** An entry of a list of cultures that is not a culture name. */
export interface BadCultureEntry {
  /** Its position in the list, from 0; `undefined` when the value is no list. */
  readonly index: number | undefined;
  /** The entry as given. */
  readonly entry: unknown;
  /** What is wrong, for an error line after the key: `must be …, got "en_US"`. */
  readonly problem: string;
}

/**
 * Reads a list of culture names as a configuration source holds it: an
 * array (a JSON file, or `__0`, `__1`… variables), an object of indexes, or
 * one string, either JSON (`["en","fr"]`) or comma-separated (`en, fr-CA`),
 * as an environment variable holds it. Blank entries of a comma list are
 * skipped; `undefined` for nothing at all (no value, a blank string, an
 * empty list).
 *
 * @param value The value as the source holds it.
 * @returns The cultures, or the first bad entry; `undefined` when empty.
 *
 * @example Usage
 * ```ts
 * import { readCultureList } from "./culture_names.ts";
 *
 * readCultureList("en-US, fr-FR"); // { cultures: ["en-US", "fr-FR"] }
 * readCultureList(["en", "en_GB"])?.bad?.index; // 1
 * ```
 */
export function readCultureList(value: unknown): CultureList | undefined {
  const items = itemsOf(value);
  if (items === undefined) {
    return {
      bad: {
        index: undefined,
        entry: value,
        problem:
          `must be a list of culture names (an array, or names separated by commas), got ${
            quoteValue(value)
          }`,
      },
    };
  }
  if (items.length === 0) return undefined;
  if (items.length > MAX_CULTURES) {
    return {
      bad: {
        index: MAX_CULTURES,
        entry: items[MAX_CULTURES],
        problem:
          `must hold at most ${MAX_CULTURES} culture names, got ${items.length}`,
      },
    };
  }
  const cultures: string[] = [];
  for (let index = 0; index < items.length; index++) {
    const entry = items[index];
    const name = typeof entry === "string" ? entry.trim() : entry;
    if (!matchesCultureTag(name)) {
      return {
        bad: { index, entry, problem: invalidCultureProblem(entry) },
      };
    }
    cultures.push(name);
  }
  return { cultures };
}

/**
 * The problem with one entry that is not a culture name, worded as the
 * configuration's failure lines are (`must be …, got <value>`).
 *
 * @param entry The entry as given.
 * @returns The problem.
 *
 * @example Usage
 * ```ts
 * import { invalidCultureProblem } from "./culture_names.ts";
 *
 * invalidCultureProblem("en_US");
 * // 'must be a BCP 47 culture name such as "en" or "fr-CA", got "en_US"'
 * ```
 */
export function invalidCultureProblem(entry: unknown): string {
  return `must be a BCP 47 culture name such as "en" or "fr-CA", got ${
    quoteValue(entry)
  }`;
}

// The entries of a list as a source holds it; undefined when it is no list.
function itemsOf(value: unknown): unknown[] | undefined {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  if (typeof value === "string") {
    const text = value.trim();
    if (text.startsWith("[")) {
      try {
        const parsed: unknown = JSON.parse(text);
        return Array.isArray(parsed) ? parsed : undefined;
      } catch {
        return undefined;
      }
    }
    return text === ""
      ? []
      : text.split(",").map((part) => part.trim()).filter((part) =>
        part !== ""
      );
  }
  if (typeof value === "object") {
    // A source that keeps indexed keys as an object: { "0": "en", "1": "fr" }.
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.every(([key]) => /^\d+$/.test(key))) return undefined;
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, item]) =>
      item
    );
  }
  return undefined;
}
