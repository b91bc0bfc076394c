/**
 * A schema the configuration can be validated against: any schema that
 * implements the Standard Schema interface (`~standard`, version 1), such as
 * valibot (which Kit uses, see {@linkcode appConfigSchema}), Zod or ArkType.
 *
 * With a valibot schema, string values from the environment, `.env` files
 * and memory are first coerced by the schema's types (`"5000"` → 5000,
 * `"false"` → false, JSON text → arrays and objects) and failures name the
 * key, the rule and the source. Other schemas validate the values as the
 * sources supplied them.
 *
 * @typeParam Input What the schema accepts.
 * @typeParam Output What validation produces.
 *
 * @example Usage
 * ```ts
 * import * as v from "valibot";
 * import type { ConfigurationSchema } from "@vendor/kit/config";
 *
 * const redisSchema: ConfigurationSchema<unknown, { host: string }> = v.object({
 *   host: v.string(),
 * });
 * ```
 */
export interface ConfigurationSchema<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** The Standard Schema version: 1. */
    readonly version: 1;
    /** The library that made the schema (`"valibot"`, `"zod"`…). */
    readonly vendor: string;
    /**
     * Validates a value.
     *
     * @param value The value to check.
     * @returns The output value, or the issues found.
     */
    readonly validate: (
      value: unknown,
    ) =>
      | ConfigurationSchemaResult<Output>
      | Promise<ConfigurationSchemaResult<Output>>;
    /** The input and output types, for inference only. */
    readonly types?: {
      readonly input: Input;
      readonly output: Output;
    } | undefined;
  };
}

/**
 * The result of a {@linkcode ConfigurationSchema}'s `validate`: a value, or
 * issues.
 *
 * @typeParam Output What validation produces.
 */
export type ConfigurationSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
    readonly issues: ReadonlyArray<{
      readonly message: string;
      readonly path?:
        | ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>
        | undefined;
    }>;
  };

/**
 * The output type of a {@linkcode ConfigurationSchema}.
 *
 * @typeParam S The schema's type.
 */
export type InferConfiguration<S extends ConfigurationSchema> = NonNullable<
  S["~standard"]["types"]
>["output"];
