import type * as v from "valibot";
import { invalidLogLevelMessage, normalizeLogLevel } from "./log_level_rule.ts";
import { loadValibot } from "#config/schema/valibot";
import { kitConfigurationSections } from "./kit_configuration_keys.ts";
import {
  keySchema,
  type KitKeySchema,
  type KitSectionOutput,
  type KitSectionSchema,
  sectionSchema,
} from "./_kit_sections.ts";

const SECTIONS = kitConfigurationSections;
type Sections = typeof kitConfigurationSections;

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
    /** Keep a private HTTP cache of the GET responses of `HttpClient.fromConfiguration`. */
    enableCaching?: boolean | undefined;
  };
  /** Logging set-up. */
  logging: {
    /** Default `info`. */
    level: "debug" | "info" | "warning" | "error";
    /** At least one provider. */
    providers: AppConfigLogProvider[];
    /** The log file of a file provider that names none. */
    filePath?: string | undefined;
    /** The address of a remote provider that names none. */
    remoteEndpoint?: string | undefined;
    /** The API key of a remote provider that gives none. */
    apiKey?: string | undefined;
  };
  /** Feature switches. */
  features?: {
    /** `false`: the analytics providers built from configuration send nothing. */
    enableAnalytics?: boolean | undefined;
    /** `false`: localization built from configuration serves the default culture only. */
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
  /** The cache store `RemoteStoreCacheProvider.fromConfiguration` reads. */
  cache?: {
    /** Redis. */
    redis?: {
      /** Host name or address. */
      host?: string | undefined;
      /** Port, 1–65535. */
      port?: number | undefined;
      /** Password; a secret. */
      password?: string | undefined;
      /** Database number, 0 or more. */
      database?: number | undefined;
      /** Prefix of every cache key. */
      keyPrefix?: string | undefined;
      /** Fail start-up when the store does not answer. */
      required?: boolean | undefined;
    } | undefined;
  } | undefined;
  /** What `LocalizationManager.fromConfiguration` reads. */
  localization?: {
    /** The culture in force at start. */
    defaultCulture?: string | undefined;
    /** The culture a missing translation is looked up in. */
    fallbackCulture?: string | undefined;
    /**
     * The cultures the application offers (BCP 47 names); a variable holds
     * them separated by commas.
     */
    supportedCultures?: string[] | undefined;
    /** Address template of the translations, with `{culture}`. */
    resourceUrl?: string | undefined;
    /** File path template of the translations, with `{culture}`. */
    resourcePath?: string | undefined;
    /** Milliseconds a download may take, 0 or more. */
    timeout?: number | undefined;
    /** The translation cache. */
    cache?: {
      /** Translations kept, 1 or more. */
      maxSize?: number | undefined;
      /** Milliseconds one stays, 0 or more. */
      ttl?: number | undefined;
    } | undefined;
  } | undefined;
  /** What the analytics providers' `fromConfiguration` read. */
  analytics?: {
    /** Collection address of the custom provider. */
    endpoint?: string | undefined;
    /** API key of the custom provider; a secret. */
    apiKey?: string | undefined;
    /** Events per request, 1 or more. */
    batchSize?: number | undefined;
    /** Milliseconds between sends, 0 or more. */
    flushInterval?: number | undefined;
    /** Events queued at most, 1 or more. */
    maxQueueSize?: number | undefined;
    /** Google Analytics measurement id. */
    trackingId?: string | undefined;
    /** Measurement Protocol secret. */
    apiSecret?: string | undefined;
    /** Google Analytics collection address. */
    ga4Endpoint?: string | undefined;
    /** Send the ecommerce events. */
    enableEnhancedEcommerce?: boolean | undefined;
    /** Ask Google Analytics to drop the client's IP address. */
    anonymizeIp?: boolean | undefined;
  } | undefined;
  /** The application host's HTTP server. */
  server?: {
    /** Port, 0–65535; default `PORT`, else 3000. */
    port?: number | undefined;
    /** Address to bind; default `0.0.0.0`. */
    host?: string | undefined;
    /** Milliseconds of serving after readiness turned 503; default 0. */
    drainDelay?: number | undefined;
    /** Largest request body in bytes; default 1 MiB. */
    maxBodySize?: number | undefined;
    /** Milliseconds to send the headers; default 60000. */
    headersTimeout?: number | undefined;
    /** Milliseconds an idle connection stays; default 5000. */
    idleTimeout?: number | undefined;
  } | undefined;
  /** The application host. */
  host?: {
    /** Milliseconds the shutdown may take; default 10000. */
    shutdownTimeout?: number | undefined;
  } | undefined;
}

/** A declared number between two bounds, with its default, in valibot's terms. */
type BoundedNumber<D extends { min: number; max: number; default: number }> =
  v.OptionalSchema<
    v.SchemaWithPipe<
      readonly [
        v.NumberSchema<undefined>,
        v.MinValueAction<number, D["min"], undefined>,
        v.MaxValueAction<number, D["max"], undefined>,
      ]
    >,
    D["default"]
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
    readonly timeout: BoundedNumber<Sections["database"]["timeout"]>;
    readonly poolSize: BoundedNumber<Sections["database"]["poolSize"]>;
    readonly enableLogging: v.OptionalSchema<
      v.BooleanSchema<undefined>,
      undefined
    >;
  }, undefined>;
  readonly api: v.ObjectSchema<{
    readonly baseUrl: v.SchemaWithPipe<
      readonly [v.StringSchema<undefined>, v.UrlAction<string, undefined>]
    >;
    readonly timeout: BoundedNumber<Sections["api"]["timeout"]>;
    readonly retryAttempts: BoundedNumber<Sections["api"]["retryAttempts"]>;
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
      Sections["logging"]["level"]["default"]
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
        v.MinLengthAction<
          AppConfigLogProvider[],
          Sections["logging"]["providers"]["min"],
          undefined
        >,
      ]
    >;
    readonly filePath: KitKeySchema<Sections["logging"]["filePath"]>;
    readonly remoteEndpoint: KitKeySchema<
      Sections["logging"]["remoteEndpoint"]
    >;
    readonly apiKey: KitKeySchema<Sections["logging"]["apiKey"]>;
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
  readonly telemetry: KitSectionSchema<Sections["telemetry"]>;
  readonly cache: KitSectionSchema<Sections["cache"]>;
  readonly localization: KitSectionSchema<Sections["localization"]>;
  readonly analytics: KitSectionSchema<Sections["analytics"]>;
  readonly server: KitSectionSchema<Sections["server"]>;
  readonly host: KitSectionSchema<Sections["host"]>;
}, undefined>;

// The schema is built on first use (see lazyObject below), so importing the
// package does not load valibot in Node.js and Bun. Its inferred type is
// checked below against the declared AppConfigSchema and AppConfig.
function buildSchema() {
  const v = loadValibot();
  const { database, api, logging } = SECTIONS;
  const bounded = <
    D extends { min: number; max: number; default: number },
  >(declared: D) =>
    v.optional(
      v.pipe(
        v.number(),
        v.minValue(declared.min as D["min"]),
        v.maxValue(declared.max as D["max"]),
      ),
      declared.default as D["default"],
    );
  // Kit's sections whose keys are all optional are built from their
  // declarations alone.
  const optionalKey = <K extends keyof Sections["logging"]>(name: K) =>
    keySchema(v, logging[name]) as unknown as KitKeySchema<
      Sections["logging"][K]
    >;
  return v.object({
    database: v.object({
      connectionString: v.string(),
      timeout: bounded(database.timeout),
      poolSize: bounded(database.poolSize),
      enableLogging: v.optional(v.boolean()),
    }),
    api: v.object({
      baseUrl: v.pipe(v.string(), v.url()),
      timeout: bounded(api.timeout),
      retryAttempts: bounded(api.retryAttempts),
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
        logging.level.default,
      ),
      providers: v.pipe(
        v.array(
          v.object({
            type: v.picklist(logging.providers.values),
            options: v.optional(
              v.record(v.string(), v.unknown()),
              (): Record<string, unknown> => ({}),
            ),
          }),
        ),
        v.minLength(logging.providers.min),
      ),
      filePath: optionalKey("filePath"),
      remoteEndpoint: optionalKey("remoteEndpoint"),
      apiKey: optionalKey("apiKey"),
    }),
    features: v.optional(
      v.object({
        enableAnalytics: v.optional(v.boolean()),
        enableInternationalization: v.optional(v.boolean()),
        maxFileUploadSize: v.optional(v.number()),
      }),
    ),
    telemetry: sectionSchema(
      v,
      SECTIONS.telemetry,
    ) as unknown as KitSectionSchema<
      Sections["telemetry"]
    >,
    cache: sectionSchema(v, SECTIONS.cache) as unknown as KitSectionSchema<
      Sections["cache"]
    >,
    localization: sectionSchema(
      v,
      SECTIONS.localization,
    ) as unknown as KitSectionSchema<
      Sections["localization"]
    >,
    analytics: sectionSchema(
      v,
      SECTIONS.analytics,
    ) as unknown as KitSectionSchema<
      Sections["analytics"]
    >,
    server: sectionSchema(v, SECTIONS.server) as unknown as KitSectionSchema<
      Sections["server"]
    >,
    host: sectionSchema(v, SECTIONS.host) as unknown as KitSectionSchema<
      Sections["host"]
    >,
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
// Each optional section of AppConfig is what its declarations give.
type _SectionsMatchDeclarations = Assert<
  Same<
    {
      [
        K in
          | "telemetry"
          | "cache"
          | "localization"
          | "analytics"
          | "server"
          | "host"
      ]?:
        | KitSectionOutput<Sections[K]>
        | undefined;
    },
    Pick<
      AppConfig,
      "telemetry" | "cache" | "localization" | "analytics" | "server" | "host"
    >
  >
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
 *   `type` one of `console`, `file`, `remote`, `options` default `{}`;
 *   optional `filePath`, `remoteEndpoint`, `apiKey` strings.
 * - `features` (optional): `enableAnalytics`, `enableInternationalization`
 *   booleans, `maxFileUploadSize` number.
 * - `telemetry` (optional): `serviceName`, a non-empty string (the
 *   `service.name` of Kit's OTLP log export; `OTEL_SERVICE_NAME` otherwise).
 * - `cache`, `localization`, `analytics`, `server`, `host` (optional): every
 *   key Kit's modules read, each with its type and bounds
 *   (`cache:redis:port` a whole number 1–65535, `server:port` 0–65535,
 *   `localization:supportedCultures` a list of BCP 47 culture names, from a
 *   variable separated by commas…).
 *   These sections carry no defaults: the module reading a key applies its
 *   own when the key is not set.
 *
 * Each key is declared once, in {@linkcode kitConfigurationSections}, and
 * this schema is built from the declarations, so its bounds are the ones
 * the modules' `fromConfiguration` read.
 *
 * Pass it to `config.bind()` or to `createConfiguration({ schema })`; string
 * values from the environment are coerced by the types above. It is a
 * valibot object schema ({@linkcode AppConfigSchema}), so valibot's own
 * functions take it, and an application adds its own sections by spreading
 * its `entries` into a new `v.object` (second example), and keys to one of
 * Kit's sections with {@linkcode extendSection}; the added sections and keys
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
 * ```ts ignore
 * // Not run here: it reads the project's appsettings.json and variables.
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
