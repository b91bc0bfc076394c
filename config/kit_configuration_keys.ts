import { serverConfigurationKeys } from "../platform/mod.ts";

/**
 * The declaration of one configuration key Kit reads: its type, bounds,
 * allowed values, default and the variables besides `APP_…` that set it.
 * Plain data: reading it loads nothing.
 */
export interface KitConfigurationKey {
  /**
   * `string`, `url` (an absolute URL), `number`, `integer`, `boolean`, or
   * `list` (`logging:providers`, a list of `{ type, options }`).
   */
  readonly type: "string" | "url" | "number" | "integer" | "boolean" | "list";
  /** The key must be set (only in the required sections). */
  readonly required?: boolean;
  /** A string that must not be blank (it is trimmed). */
  readonly nonEmpty?: boolean;
  /** The smallest number allowed (a list: the fewest items). */
  readonly min?: number;
  /** The largest number allowed. */
  readonly max?: number;
  /** The values allowed, for a string that is one of a few. */
  readonly values?: readonly string[];
  /** The value in force when the key is not set, where Kit has one here. */
  readonly default?: string | number | boolean;
  /** Variables read for the key other than `APP_…` and the standard ones. */
  readonly variables?: readonly string[];
  /** What the key sets, in a sentence. */
  readonly description: string;
}

/** A section of {@linkcode kitConfigurationSections}: keys and subsections. */
export interface KitConfigurationSection {
  readonly [name: string]: KitConfigurationKey | KitConfigurationSection;
}

const database = Object.freeze(
  {
    connectionString: Object.freeze(
      {
        type: "string",
        required: true,
        description: "The database connection string (a secret).",
      } as const,
    ),
    timeout: Object.freeze(
      {
        type: "number",
        min: 1000,
        max: 60000,
        default: 30000,
        description: "Milliseconds a database operation may take.",
      } as const,
    ),
    poolSize: Object.freeze(
      {
        type: "number",
        min: 1,
        max: 100,
        default: 10,
        description: "Connections in the pool.",
      } as const,
    ),
    enableLogging: Object.freeze(
      {
        type: "boolean",
        description: "Log the queries.",
      } as const,
    ),
  } as const,
);

const api = Object.freeze(
  {
    baseUrl: Object.freeze(
      {
        type: "url",
        required: true,
        description:
          "The base address of the backend API the HTTP client calls.",
      } as const,
    ),
    timeout: Object.freeze(
      {
        type: "number",
        min: 1000,
        max: 60000,
        default: 5000,
        description: "Milliseconds an HTTP request may take.",
      } as const,
    ),
    retryAttempts: Object.freeze(
      {
        type: "number",
        min: 0,
        max: 10,
        default: 3,
        description: "Retries of a failed idempotent request.",
      } as const,
    ),
    enableCaching: Object.freeze(
      {
        type: "boolean",
        description: "Cache API answers.",
      } as const,
    ),
  } as const,
);

const logging = Object.freeze(
  {
    level: Object.freeze(
      {
        type: "string",
        values: ["debug", "info", "warning", "error"],
        default: "info",
        description:
          "The lowest level logged (any letter case; warn = warning).",
      } as const,
    ),
    providers: Object.freeze(
      {
        type: "list",
        required: true,
        min: 1,
        values: ["console", "file", "remote"],
        description:
          "The log providers, each { type, options }; type is one of the values.",
      } as const,
    ),
    filePath: Object.freeze(
      {
        type: "string",
        description: "The log file of a file provider that names none.",
      } as const,
    ),
    remoteEndpoint: Object.freeze(
      {
        type: "string",
        description: "The address of a remote provider that names none.",
      } as const,
    ),
    apiKey: Object.freeze(
      {
        type: "string",
        description: "The API key of a remote provider that gives none.",
      } as const,
    ),
  } as const,
);

const features = Object.freeze(
  {
    enableAnalytics: Object.freeze(
      { type: "boolean", description: "Turn analytics on." } as const,
    ),
    enableInternationalization: Object.freeze(
      {
        type: "boolean",
        description: "Turn localization on.",
      } as const,
    ),
    maxFileUploadSize: Object.freeze(
      {
        type: "number",
        description: "The largest file upload, in bytes.",
      } as const,
    ),
  } as const,
);

const telemetry = Object.freeze(
  {
    serviceName: Object.freeze(
      {
        type: "string",
        nonEmpty: true,
        variables: ["OTEL_SERVICE_NAME"],
        description: "service.name of what Kit exports over OTLP.",
      } as const,
    ),
  } as const,
);

const cache = Object.freeze(
  {
    redis: Object.freeze({
      host: Object.freeze(
        { type: "string", description: "The Redis host." } as const,
      ),
      port: Object.freeze(
        {
          type: "integer",
          min: 1,
          max: 65535,
          description: "The Redis port.",
        } as const,
      ),
      password: Object.freeze(
        { type: "string", description: "The Redis password." } as const,
      ),
      database: Object.freeze(
        {
          type: "integer",
          min: 0,
          description: "The Redis database number.",
        } as const,
      ),
      keyPrefix: Object.freeze(
        {
          type: "string",
          description: "The prefix of every cache key in Redis.",
        } as const,
      ),
      required: Object.freeze(
        {
          type: "boolean",
          description: "Fail start-up when Redis does not answer.",
        } as const,
      ),
    }),
  } as const,
);

const localization = Object.freeze(
  {
    defaultCulture: Object.freeze(
      {
        type: "string",
        default: "en",
        description: "The culture in force at start (a BCP 47 name).",
      } as const,
    ),
    fallbackCulture: Object.freeze(
      {
        type: "string",
        description: "The culture a missing translation is looked up in.",
      } as const,
    ),
    resourceUrl: Object.freeze(
      {
        type: "string",
        description: "Address template of the translations, with {culture}.",
      } as const,
    ),
    resourcePath: Object.freeze(
      {
        type: "string",
        description: "File path template of the translations, with {culture}.",
      } as const,
    ),
    timeout: Object.freeze(
      {
        type: "integer",
        min: 0,
        description: "Milliseconds a translation download may take.",
      } as const,
    ),
    cache: Object.freeze({
      maxSize: Object.freeze(
        {
          type: "integer",
          min: 1,
          description: "Translations kept in the cache.",
        } as const,
      ),
      ttl: Object.freeze(
        {
          type: "integer",
          min: 0,
          description: "Milliseconds a cached translation stays.",
        } as const,
      ),
    }),
  } as const,
);

const analytics = Object.freeze(
  {
    endpoint: Object.freeze(
      {
        type: "string",
        description: "The collection address of the custom provider.",
      } as const,
    ),
    apiKey: Object.freeze(
      {
        type: "string",
        description: "The API key of the custom provider.",
      } as const,
    ),
    batchSize: Object.freeze(
      {
        type: "integer",
        min: 1,
        description: "Events sent in one request by the custom provider.",
      } as const,
    ),
    flushInterval: Object.freeze(
      {
        type: "number",
        min: 0,
        description: "Milliseconds between the custom provider's sends.",
      } as const,
    ),
    maxQueueSize: Object.freeze(
      {
        type: "integer",
        min: 1,
        description: "Events the custom provider queues at most.",
      } as const,
    ),
    trackingId: Object.freeze(
      {
        type: "string",
        description: "The Google Analytics measurement id.",
      } as const,
    ),
    apiSecret: Object.freeze(
      {
        type: "string",
        description: "The Google Analytics Measurement Protocol secret.",
      } as const,
    ),
    ga4Endpoint: Object.freeze(
      {
        type: "string",
        description: "The Google Analytics collection address.",
      } as const,
    ),
    enableEnhancedEcommerce: Object.freeze(
      {
        type: "boolean",
        description: "Send the ecommerce events to Google Analytics.",
      } as const,
    ),
    anonymizeIp: Object.freeze(
      {
        type: "boolean",
        description: "Ask Google Analytics to drop the client's IP address.",
      } as const,
    ),
  } as const,
);

/**
 * Every configuration key Kit reads, declared once, by section: its type,
 * bounds, allowed values, default and the other variables that set it.
 * `appConfigSchema` is built from these declarations (the `database`,
 * `api` and `logging` sections required, the others optional), the
 * modules' `fromConfiguration` read their bounds from them, and
 * `diagnose()` knows each key by them. The `server` and `host` sections
 * come from the platform package, which owns them.
 *
 * Each leaf is a {@linkcode KitConfigurationKey}; the key of a leaf is its
 * path joined by `:` (`cache:redis:port`), its environment variable
 * `APP_` and the path in upper case, `__` between levels
 * (`APP_CACHE__REDIS__PORT`).
 *
 * @example Usage
 * ```ts
 * import { kitConfigurationSections } from "@vendor/kit/config";
 *
 * const port = kitConfigurationSections.cache.redis.port;
 * `${port.type} from ${port.min} to ${port.max}`; // "integer from 1 to 65535"
 * ```
 */
export const kitConfigurationSections = Object.freeze({
  database,
  api,
  logging,
  features,
  telemetry,
  cache,
  localization,
  analytics,
  server: serverConfigurationKeys.server,
  host: serverConfigurationKeys.host,
});

// Compile-time check that every declaration, platform's too, has the shape
// of KitConfigurationKey.
type Assert<T extends true> = T;
type _AllFit = Assert<
  typeof kitConfigurationSections extends
    Readonly<Record<string, KitConfigurationSection>> ? true : false
>;
type _PlatformFits = Assert<
  typeof serverConfigurationKeys extends {
    server: KitConfigurationSection;
    host: KitConfigurationSection;
  } ? true
    : false
>;
