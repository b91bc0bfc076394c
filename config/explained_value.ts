// One line of ConfigurationManager.explain().

/** One effective value as {@linkcode ConfigurationManager.prototype.explain} lists it. */
export interface ExplainedValue {
  /** The key, spelled as the winning source spells it. */
  readonly key: string;
  /** The value (`***` for a secret key). */
  readonly value: unknown;
  /**
   * The source that won: a file path as given (`appsettings.production.json`),
   * `env APP_DATABASE__TIMEOUT`, `memory`, `schema default`…
   */
  readonly source: string;
}
