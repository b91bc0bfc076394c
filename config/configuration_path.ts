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
 * @typeParam Depth How many more levels to list (the bound above).
 *
 * @example Usage
 * ```ts
 * import type { AppConfig, ConfigurationPath } from "@vendor/kit/config";
 *
 * const key: ConfigurationPath<AppConfig> = "database:timeout";
 * ```
 */
export type ConfigurationPath<Config, Depth extends number = 8> =
  IsUntyped<Config> extends true ? never
    : [Depth] extends [never] ? never
    : Config extends
      | string
      | number
      | boolean
      | bigint
      | symbol
      | null
      | undefined
      | Date
      | RegExp
      | ((...args: never[]) => unknown) ? never
    : Config extends readonly (infer Item)[] ?
        | `${number}`
        | `${number}:${ConfigurationPath<
          Item,
          [never, 0, 1, 2, 3, 4, 5, 6, 7][Depth]
        >}`
    : Config extends object ? {
        [K in keyof Config & string]-?:
          | K
          | `${K}:${ConfigurationPath<
            Exclude<Config[K], undefined>,
            [never, 0, 1, 2, 3, 4, 5, 6, 7][Depth]
          >}`;
      }[keyof Config & string]
    : never;

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
    : Path extends `${infer Head}:${infer Rest}` ? ConfigurationPathValue<
        Config extends readonly (infer Item)[]
          ? Head extends `${number}` ? Item : never
          : Config extends object ? Head extends keyof Config ? Config[Head]
            : string extends keyof Config ? Config[string & keyof Config]
            : never
          : never,
        Rest
      >
    : Exclude<
      Config extends readonly (infer Item)[]
        ? Path extends `${number}` ? Item : never
        : Config extends object ? Path extends keyof Config ? Config[Path]
          : string extends keyof Config ? Config[string & keyof Config]
          : never
        : never,
      undefined
    >;

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
