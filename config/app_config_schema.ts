import type * as v from "valibot";
import { invalidLogLevelMessage, normalizeLogLevel } from "./log_level_rule.ts";
import { loadValibot } from "./_valibot_deno.ts";

/** One entry of `logging.providers` in {@linkcode AppConfig}. */
export interface AppConfigLogProvider {
  /** Which provider: `console`, `file` or `remote`. */
  type: "console" | "file" | "remote";
  /** The provider's options; default `{}`. */
  options: Record<string, unknown>;
}

/**
 * The typed application configuration, as
 * {@linkcode appConfigSchema} produces it (defaults applied, so
 * `api.timeout` is always a number). The file checks at compile time that
 * this type and the schema's inferred output are the same.
 */
export interface AppConfig {
  /** The relational database. */
  database: {
    /** Required. A secret: printed as `***`. */
    connectionString: string;
    /** Milliseconds, 1000–60000, default 30000. */
    timeout: number;
    /** Connections, 1–100, default 10. */
    poolSize: number;
    /** Log the queries. */
    enableLogging?: boolean | undefined;
  };
  /** The backend API the HTTP client talks to. */
  api: {
    /** Required; a URL. */
    baseUrl: string;
    /** Milliseconds, 1000–60000, default 5000. */
    timeout: number;
    /** 0–10, default 3. */
    retryAttempts: number;
    /** Cache API answers. */
    enableCaching?: boolean | undefined;
  };
  /** Logging set-up. */
  logging: {
    /** Default `info`. */
    level: "debug" | "info" | "warning" | "error";
    /** At least one provider. */
    providers: AppConfigLogProvider[];
  };
  /** Feature switches. */
  features?: {
    /** Turn analytics on. */
    enableAnalytics?: boolean | undefined;
    /** Turn localization on. */
    enableInternationalization?: boolean | undefined;
    /** Bytes. */
    maxFileUploadSize?: number | undefined;
  } | undefined;
  /** OpenTelemetry settings. */
  telemetry?: {
    /**
     * `service.name` of what Kit exports itself (the `"otlp"` log format);
     * `OTEL_SERVICE_NAME` when not set.
     */
    serviceName?: string | undefined;
  } | undefined;
}

/** A number between two bounds, in valibot's terms. */
type BoundedNumber<Min extends number, Max extends number> = v.SchemaWithPipe<
  readonly [
    v.NumberSchema<undefined>,
    v.MinValueAction<number, Min, undefined>,
    v.MaxValueAction<number, Max, undefined>,
  ]
>;

/**
 * The valibot type of {@linkcode appConfigSchema}: a `v.ObjectSchema` whose
 * `entries` are Kit's sections, so `v.object({ ...appConfigSchema.entries,
 * mySection: v.object({ … }) })` keeps every section's exact type. It is
 * made of valibot's own types, which valibot documents, so it is left out
 * of Kit's generated documentation.
 *
 * @ignore
 */
export type AppConfigSchema = v.ObjectSchema<{
  readonly database: v.ObjectSchema<{
    readonly connectionString: v.StringSchema<undefined>;
    readonly timeout: v.OptionalSchema<BoundedNumber<1000, 60000>, 30000>;
    readonly poolSize: v.OptionalSchema<BoundedNumber<1, 100>, 10>;
    readonly enableLogging: v.OptionalSchema<
      v.BooleanSchema<undefined>,
      undefined
    >;
  }, undefined>;
  readonly api: v.ObjectSchema<{
    readonly baseUrl: v.SchemaWithPipe<
      readonly [v.StringSchema<undefined>, v.UrlAction<string, undefined>]
    >;
    readonly timeout: v.OptionalSchema<BoundedNumber<1000, 60000>, 5000>;
    readonly retryAttempts: v.OptionalSchema<BoundedNumber<0, 10>, 3>;
    readonly enableCaching: v.OptionalSchema<
      v.BooleanSchema<undefined>,
      undefined
    >;
  }, undefined>;
  readonly logging: v.ObjectSchema<{
    readonly level: v.OptionalSchema<
      v.SchemaWithPipe<
        readonly [
          v.UnknownSchema,
          v.RawTransformAction<unknown, AppConfig["logging"]["level"]>,
        ]
      >,
      "info"
    >;
    readonly providers: v.SchemaWithPipe<
      readonly [
        v.ArraySchema<
          v.ObjectSchema<{
            readonly type: v.PicklistSchema<
              readonly ["console", "file", "remote"],
              undefined
            >;
            readonly options: v.OptionalSchema<
              v.RecordSchema<
                v.StringSchema<undefined>,
                v.UnknownSchema,
                undefined
              >,
              () => Record<string, unknown>
            >;
          }, undefined>,
          undefined
        >,
        v.MinLengthAction<AppConfigLogProvider[], 1, undefined>,
      ]
    >;
  }, undefined>;
  readonly features: v.OptionalSchema<
    v.ObjectSchema<{
      readonly enableAnalytics: v.OptionalSchema<
        v.BooleanSchema<undefined>,
        undefined
      >;
      readonly enableInternationalization: v.OptionalSchema<
        v.BooleanSchema<undefined>,
        undefined
      >;
      readonly maxFileUploadSize: v.OptionalSchema<
        v.NumberSchema<undefined>,
        undefined
      >;
    }, undefined>,
    undefined
  >;
  readonly telemetry: v.OptionalSchema<
    v.ObjectSchema<{
      readonly serviceName: v.OptionalSchema<
        v.SchemaWithPipe<
          readonly [
            v.StringSchema<undefined>,
            v.TrimAction,
            v.MinLengthAction<string, 1, undefined>,
          ]
        >,
        undefined
      >;
    }, undefined>,
    undefined
  >;
}, undefined>;

// The schema is built on first use (see lazyObject below), so importing the
// package does not load valibot in Node.js and Bun. Its inferred type is
// checked below against the declared AppConfigSchema and AppConfig.
function buildSchema() {
  const v = loadValibot();
  return v.object({
    database: v.object({
      connectionString: v.string(),
      timeout: v.optional(
        v.pipe(v.number(), v.minValue(1000), v.maxValue(60000)),
        30000,
      ),
      poolSize: v.optional(
        v.pipe(v.number(), v.minValue(1), v.maxValue(100)),
        10,
      ),
      enableLogging: v.optional(v.boolean()),
    }),
    api: v.object({
      baseUrl: v.pipe(v.string(), v.url()),
      timeout: v.optional(
        v.pipe(v.number(), v.minValue(1000), v.maxValue(60000)),
        5000,
      ),
      retryAttempts: v.optional(
        v.pipe(v.number(), v.minValue(0), v.maxValue(10)),
        3,
      ),
      enableCaching: v.optional(v.boolean()),
    }),
    logging: v.object({
      level: v.optional(
        v.pipe(
          v.unknown(),
          v.rawTransform(({ dataset, addIssue, NEVER }) => {
            const level = normalizeLogLevel(dataset.value);
            if (level !== undefined) return level;
            addIssue({ message: invalidLogLevelMessage(dataset.value) });
            return NEVER;
          }),
        ),
        "info",
      ),
      providers: v.pipe(
        v.array(
          v.object({
            type: v.picklist(["console", "file", "remote"] as const),
            options: v.optional(
              v.record(v.string(), v.unknown()),
              (): Record<string, unknown> => ({}),
            ),
          }),
        ),
        v.minLength(1),
      ),
    }),
    features: v.optional(
      v.object({
        enableAnalytics: v.optional(v.boolean()),
        enableInternationalization: v.optional(v.boolean()),
        maxFileUploadSize: v.optional(v.number()),
      }),
    ),
    telemetry: v.optional(
      v.object({
        serviceName: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
      }),
    ),
  });
}

// Compile-time proof that AppConfig is exactly what the schema infers.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type _AppConfigMatchesSchema = Assert<
  Same<v.InferOutput<ReturnType<typeof buildSchema>>, AppConfig>
>;
type _DeclaredOutputMatches = Assert<
  Same<v.InferOutput<AppConfigSchema>, AppConfig>
>;
type _DeclaredInputMatches = Assert<
  Same<
    v.InferInput<AppConfigSchema>,
    v.InferInput<ReturnType<typeof buildSchema>>
  >
>;
type _BuiltIsDeclared = Assert<
  ReturnType<typeof buildSchema> extends AppConfigSchema ? true : false
>;

/**
 * An object that stands for what `build` returns and calls it on first use:
 * every operation on it (reading, `in`, listing and describing its
 * properties, writing, its prototype) first copies the built object's own
 * properties and prototype onto the proxy's target, then acts on that
 * target. So the proxy behaves as a plain copy of the built object, which
 * for a valibot schema is all valibot looks at (`v.parse` calls its
 * `~run`, `.entries` can be read and spread), and the proxy's invariants
 * hold because the target really has the properties it reports.
 */
function lazyObject<T extends object>(build: () => T): T {
  const target = {} as T;
  let built = false;
  const ready = (): T => {
    if (!built) {
      const value = build();
      Object.defineProperties(target, Object.getOwnPropertyDescriptors(value));
      Object.setPrototypeOf(target, Object.getPrototypeOf(value));
      // Only now: when valibot cannot be loaded, the next use tries again.
      built = true;
    }
    return target;
  };
  return new Proxy(target, {
    get: (_, key, receiver) => Reflect.get(ready(), key, receiver),
    set: (_, key, value, receiver) =>
      Reflect.set(ready(), key, value, receiver),
    has: (_, key) => Reflect.has(ready(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(ready(), key),
    defineProperty: (_, key, descriptor) =>
      Reflect.defineProperty(ready(), key, descriptor),
    getOwnPropertyDescriptor: (_, key) =>
      Reflect.getOwnPropertyDescriptor(ready(), key),
    ownKeys: () => Reflect.ownKeys(ready()),
    getPrototypeOf: () => Reflect.getPrototypeOf(ready()),
    setPrototypeOf: (_, prototype) =>
      Reflect.setPrototypeOf(ready(), prototype),
    isExtensible: () => Reflect.isExtensible(ready()),
    preventExtensions: () => Reflect.preventExtensions(ready()),
  });
}

/**
 * The application configuration as a valibot schema, with its
 * bounds, defaults and required objects:
 *
 * - `database` (required): `connectionString` string, required;
 *   `timeout` 1000–60000, default 30000; `poolSize` 1–100, default 10;
 *   `enableLogging` boolean.
 * - `api` (required): `baseUrl` a URL, required; `timeout` 1000–60000,
 *   default 5000; `retryAttempts` 0–10, default 3; `enableCaching` boolean.
 * - `logging` (required): `level` one of `debug`, `info`, `warning`,
 *   `error` (any letter case, `warn` meaning `warning`; the output is the
 *   lower-case name), default `info`; `providers` at least one `{ type, options }`,
 *   `type` one of `console`, `file`, `remote`, `options` default `{}`.
 * - `features` (optional): `enableAnalytics`, `enableInternationalization`
 *   booleans, `maxFileUploadSize` number.
 * - `telemetry` (optional): `serviceName`, a non-empty string (the
 *   `service.name` of Kit's OTLP log export; `OTEL_SERVICE_NAME` otherwise).
 *
 * Pass it to `config.bind()` or to `createConfiguration({ schema })`; string
 * values from the environment are coerced by the types above. It is a
 * valibot object schema ({@linkcode AppConfigSchema}), so valibot's own
 * functions take it, and an application adds its own sections by spreading
 * its `entries` into a new `v.object` (second example); the added sections
 * get the same coercion, defaults and error messages as Kit's. It is built
 * on first use, so importing the package does not load valibot before a
 * schema is needed.
 *
 * @example Usage
 * ```ts
 * import {
 *   type AppConfig,
 *   appConfigSchema,
 *   ConfigurationManager,
 *   MemoryProvider,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * config.addProvider(new MemoryProvider({
 *   "database:connectionString": "postgres://db/app",
 *   "api:baseUrl": "https://api.example.com",
 *   "logging:providers:0:type": "console",
 * }));
 * await config.loadConfiguration();
 * const app: AppConfig = config.bind(appConfigSchema);
 * app.api.timeout; // 5000
 * ```
 *
 * @example Adding the application's own settings
 * ```ts
 * import * as v from "valibot";
 * import { appConfigSchema, createConfiguration } from "@vendor/kit/config";
 *
 * const schema = v.object({
 *   ...appConfigSchema.entries,
 *   upstream: v.object({
 *     url: v.pipe(v.string(), v.url()),
 *     timeout: v.optional(v.number(), 2000),
 *   }),
 * });
 * const config = await createConfiguration({ schema });
 * config.getValue("upstream:timeout"); // a number: APP_UPSTREAM__TIMEOUT coerced
 * ```
 */
export const appConfigSchema: AppConfigSchema = lazyObject(buildSchema);
