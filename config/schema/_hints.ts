// Hints on validation failure lines: what the manager knows about a key
// that failed (a near-miss variable name, an array replaced whole), kept in
// a registry so validateConfiguration(), which sees only IConfiguration,
// can ask the manager without a public method.

/** Gives the hints for one key. */
export type HintSource = (key: string) => readonly string[];

const registry = new WeakMap<object, HintSource>();

/** Registers the hint source of a configuration object. */
export function registerHints(config: object, hints: HintSource): void {
  registry.set(config, hints);
}

/** The hint source of a configuration object, if it registered one. */
export function hintsOf(config: object): HintSource | undefined {
  return registry.get(config);
}

/** Says where a key could be set (`set DB_X or APP_X, or … in a.json`). */
export type WhereToSet = (key: string) => string | undefined;

const places = new WeakMap<object, WhereToSet>();

/** Registers how a configuration object tells where a key could be set. */
export function registerWhereToSet(config: object, where: WhereToSet): void {
  places.set(config, where);
}

/** Where a key of this configuration object could be set, when it can tell. */
export function whereToSetOf(config: object): WhereToSet | undefined {
  return places.get(config);
}

// `logging:providers:0:type: is required …` → `logging:providers:0:type`.
function schemaKeyOf(line: string): string | undefined {
  const end = line.indexOf(": ");
  if (end <= 0) return undefined;
  const key = line.slice(0, end);
  return /\s/.test(key) || key === "(root)" ? undefined : key;
}

/**
 * Appends each line's hints (`; ` separated) to it. `keyOf` finds the key
 * a line concerns; by default the key that starts a schema failure line.
 */
export function annotateFailures(
  failures: readonly string[],
  hints: HintSource,
  keyOf: (line: string, index: number) => string | undefined = schemaKeyOf,
): string[] {
  return failures.map((line, index) => {
    const key = keyOf(line, index);
    if (key === undefined) return line;
    const found = hints(key);
    return found.length === 0 ? line : `${line}; ${found.join("; ")}`;
  });
}
