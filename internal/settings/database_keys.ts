// The `database` section's keys, declared once: the configuration package
// builds its schema and its key list from them, and the platform's database
// entry point reads its settings by them (neither package may import the
// other's private files, and both bundle internal/).

/** One declared key of the `database` section. */
export interface DatabaseKey {
  /** `string`, `number` (a whole number here) or `boolean`. */
  readonly type: "string" | "number" | "boolean";
  /** The key must be set. */
  readonly required?: boolean;
  /** The smallest value allowed. */
  readonly min?: number;
  /** The largest value allowed. */
  readonly max?: number;
  /** The value in force when the key is not set. */
  readonly default?: number | boolean;
  /** The standard variable that sets it (read by `addStandardVariables`). */
  readonly variable?: string;
  /** What the key sets, in a sentence. */
  readonly description: string;
}

/**
 * The `database` section: the connection string, the pool's size, the time
 * limit and the statement log.
 *
 * @example Usage
 * ```ts
 * import { databaseKeys } from "./database_keys.ts";
 *
 * databaseKeys.poolSize.max; // 100
 * ```
 */
export const databaseKeys: {
  readonly connectionString: DatabaseKey & {
    readonly type: "string";
    readonly required: true;
  };
  readonly timeout: DatabaseKey & {
    readonly type: "number";
    readonly min: number;
    readonly max: number;
    readonly default: number;
  };
  readonly poolSize: DatabaseKey & {
    readonly type: "number";
    readonly min: number;
    readonly max: number;
    readonly default: number;
  };
  readonly enableLogging: DatabaseKey & {
    readonly type: "boolean";
    readonly default: boolean;
  };
} = Object.freeze(
  {
    connectionString: Object.freeze({
      type: "string",
      required: true,
      variable: "DB_CONNECTION_STRING",
      description:
        "Where the database is: postgres://user:password@host:5432/name, or pglite:memory / pglite:<folder> for the embedded engine (a secret).",
    }),
    timeout: Object.freeze({
      type: "number",
      min: 1000,
      max: 60000,
      default: 30000,
      variable: "DB_TIMEOUT",
      description:
        "Milliseconds to wait for a free connection, and each statement's time limit.",
    }),
    poolSize: Object.freeze({
      type: "number",
      min: 1,
      max: 100,
      default: 10,
      variable: "DB_POOL_SIZE",
      description: "Connections the pool keeps at most.",
    }),
    enableLogging: Object.freeze({
      type: "boolean",
      default: false,
      description:
        "Log each statement at debug (its text, duration and row count; never its values).",
    }),
  } as const,
);
