/**
 * Every colon path of a configuration type: its sections, their keys, array
 * items (`logging:providers:0`) and what lies below them, as
 * {@linkcode ConfigurationManager.prototype.getValue} takes them on a
 * manager created with a schema. A configuration of type `unknown` or
 * `any` (no schema) has no known paths. Nesting deeper than eight levels is not
 * listed (a type-checking bound, not a limit of the configuration).
 *
 * @typeParam Config The configuration's type, for example
 * {@linkcode AppConfig}.
 *
 * @example Usage
 * ```ts
 * import type { AppConfig, ConfigurationPath } from "@vendor/kit/config";
 *
 * const key: ConfigurationPath<AppConfig> = "database:timeout";
 * ```
 */
export type ConfigurationPath<Config> = IsUntyped<Config> extends true ? never
  : PathsOf<Config, 8>;

/**
 * The type of the value at a colon path of a configuration type, as
 * {@linkcode ConfigurationManager.prototype.getValue} returns it: the
 * schema's output type there, without `undefined` (a key that has no
 * value throws unless a default is passed).
 *
 * @typeParam Config The configuration's type.
 * @typeParam Path One of its {@linkcode ConfigurationPath}s.
 *
 * @example Usage
 * ```ts
 * import type {
 *   AppConfig,
 *   ConfigurationPathValue,
 * } from "@vendor/kit/config";
 *
 * const timeout: ConfigurationPathValue<AppConfig, "database:timeout"> = 30000;
 * ```
 */
export type ConfigurationPathValue<Config, Path extends string> =
  IsUntyped<Config> extends true ? unknown
    : Exclude<ValueAt<Config, Path>, undefined>;

/**
 * `true` for the type of a configuration without a schema (`unknown` or
 * `any`), whose keys are not known to the compiler.
 *
 * @typeParam Config The configuration's type.
 *
 * @example Usage
 * ```ts
 * import type { AppConfig, IsUntyped } from "@vendor/kit/config";
 *
 * const typed: IsUntyped<AppConfig> = false;
 * const untyped: IsUntyped<unknown> = true;
 * ```
 */
export type IsUntyped<Config> = 0 extends 1 & Config ? true
  : unknown extends Config ? true
  : false;

// What never has keys of its own to walk into.
type Leaf =
  | string
  | number
  | boolean
  | bigint
  | symbol
  | null
  | undefined
  | Date
  | RegExp
  | ((...args: never[]) => unknown);

// One level less: Down[8] is 7, Down[0] is never (stop).
type Down = [never, 0, 1, 2, 3, 4, 5, 6, 7];

type PathsOf<T, D extends number> = [D] extends [never] ? never
  : T extends Leaf ? never
  : T extends readonly (infer Item)[]
    ? `${number}` | `${number}:${PathsOf<Item, Down[D]>}`
  : T extends object ? {
      [K in keyof T & string]-?:
        | K
        | `${K}:${PathsOf<Exclude<T[K], undefined>, Down[D]>}`;
    }[keyof T & string]
  : never;

type ValueAt<T, P extends string> = P extends `${infer Head}:${infer Rest}`
  ? ValueAt<Step<T, Head>, Rest>
  : Step<T, P>;

type Step<T, K extends string> = T extends Leaf ? never
  : T extends readonly (infer Item)[] ? (K extends `${number}` ? Item : never)
  : T extends object
    ? K extends keyof T ? T[K] : string extends keyof T ? T[string & keyof T]
    : never
  : never;
