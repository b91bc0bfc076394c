// What the `changed` event of a ConfigurationManager carries.

/**
 * One change of an effective value, carried by
 * {@linkcode ConfigurationManager.prototype.changed}. Values of secret keys
 * appear as `***`; read the new value with `getValue`.
 *
 * A reload that failed is reported as a single entry with `error` set, an
 * empty `key`, both values `undefined` and `source` naming the source that
 * failed; the previous configuration stays in force.
 */
export interface ConfigurationChange {
  /** The key (spelled as the winning source spells it); `""` for a failure. */
  readonly key: string;
  /** The value before, `undefined` when the key is new. */
  readonly oldValue: unknown;
  /** The value after, `undefined` when the key was removed. */
  readonly newValue: unknown;
  /** The source of the new value (of the old one when removed). */
  readonly source: string;
  /** Set when the reload failed. */
  readonly error?: Error;
}
