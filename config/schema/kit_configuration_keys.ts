import { serverConfigurationKeys } from "../../internal/settings/server_configuration_keys.ts";
import { databaseKeys } from "../../internal/settings/database_keys.ts";

/**
 * The declaration of one configuration key Kit reads: its type, bounds,
 * allowed values, default and the variables besides `APP_…` that set it.
 * Plain data: reading it loads nothing.
 *
 * @example Reading a key's bounds
 * ```ts
 * import {
 *   type KitConfigurationKey,
 *   kitConfigurationSections,
 * } from "@vendor/kit/config";
 *
 * const timeout: KitConfigurationKey = kitConfigurationSections.api.timeout;
 * timeout.min; // 1000
 * ```
 */
export interface KitConfigurationKey {
  /**
   * `string`, `url` (an absolute URL), `number`, `integer`, `boolean`,
   * `list` (`logging:providers`, a list of `{ type, options }`), or
   * `cultures` (`localization:supportedCultures`, a list of BCP 47 culture
   * names: an array in a JSON file, names separated by commas in an
   * environment variable).
   */
  readonly type:
    | "string"
    | "url"
    | "number"
    | "integer"
    | "boolean"
    | "list"
    | "cultures";
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

/**
 * A section of {@linkcode kitConfigurationSections}: keys and subsections.
 *
 * @example Walking a section
 * ```ts
 * import {
 *   type KitConfigurationSection,
 *   kitConfigurationSections,
 * } from "@vendor/kit/config";
 *
 * const cache: KitConfigurationSection = kitConfigurationSections.cache;
 * Object.keys(cache); // the cache's keys and subsections
 * ```
 */
export interface KitConfigurationSection {
  /** A key's declaration, or a subsection. */
  readonly [name: string]: KitConfigurationKey | KitConfigurationSection;
}

/**
 * A declared key of type `T` whose fields `Has` are always present: `min`
 * and `max` numbers, `default` a value of the key's type.
 *
 * @typeParam T The key's type.
 * @typeParam Has The fields the declaration always gives.
 *
 * @example A number key with bounds and a default
 * ```ts
 * import { type KitKey, kitConfigurationSections } from "@vendor/kit/config";
 *
 * const poolSize: KitKey<"number", "min" | "max" | "default"> =
 *   kitConfigurationSections.database.poolSize;
 * poolSize.default; // 10
 * ```
 */
export type KitKey<
  T extends KitConfigurationKey["type"],
  Has extends "min" | "max" | "default" = never,
> =
  & KitConfigurationKey
  & { readonly type: T }
  & {
    readonly [F in Has]: F extends "default" ? (T extends "boolean" ? boolean
        : T extends "number" | "integer" ? number
        : string)
      : number;
  };

/**
 * The type of {@linkcode kitConfigurationSections}: each section's keys.
 *
 * @example
 * ```ts
 * import {
 *   type KitConfigurationSections,
 *   kitConfigurationSections,
 * } from "@vendor/kit/config";
 *
 * const sections: KitConfigurationSections = kitConfigurationSections;
 * sections.api.retryAttempts.max; // 10
 * ```
 */
export interface KitConfigurationSections {
  /** The relational database. */
  readonly database: {
    readonly connectionString: KitKey<"string">;
    readonly timeout: KitKey<"number", "min" | "max" | "default">;
    readonly poolSize: KitKey<"number", "min" | "max" | "default">;
    readonly enableLogging: KitKey<"boolean">;
  };
  /** The backend API the HTTP client calls. */
  readonly api: {
    readonly baseUrl: KitKey<"url">;
    readonly timeout: KitKey<"number", "min" | "max" | "default">;
    readonly retryAttempts: KitKey<"number", "min" | "max" | "default">;
    readonly enableCaching: KitKey<"boolean">;
  };
  /** Logging. */
  readonly logging: {
    readonly level: KitKey<"string"> & {
      readonly default: "info";
      readonly values: readonly string[];
    };
    readonly providers: KitKey<"list", "min"> & {
      readonly values: readonly ["console", "file", "remote"];
    };
    readonly filePath: KitKey<"string">;
    readonly remoteEndpoint: KitKey<"string">;
    readonly apiKey: KitKey<"string">;
  };
  /** Feature switches. */
  readonly features: {
    readonly enableAnalytics: KitKey<"boolean">;
    readonly enableInternationalization: KitKey<"boolean">;
    readonly maxFileUploadSize: KitKey<"integer", "min">;
  };
  /** What Kit exports over OpenTelemetry. */
  readonly telemetry: {
    readonly serviceName: KitKey<"string">;
  };
  /** The Redis cache. */
  readonly cache: {
    readonly redis: {
      readonly host: KitKey<"string">;
      readonly port: KitKey<"integer", "min" | "max">;
      readonly password: KitKey<"string">;
      readonly database: KitKey<"integer", "min">;
      readonly keyPrefix: KitKey<"string">;
      readonly required: KitKey<"boolean">;
      readonly hashTag: KitKey<"boolean">;
      readonly cluster: {
        readonly nodes: KitKey<"string">;
      };
      readonly sentinel: {
        readonly name: KitKey<"string">;
        readonly nodes: KitKey<"string">;
        readonly password: KitKey<"string">;
      };
    };
  };
  /** Localization. */
  readonly localization: {
    readonly defaultCulture: KitKey<"string", "default">;
    readonly fallbackCulture: KitKey<"string">;
    readonly supportedCultures: KitKey<"cultures">;
    readonly resourceUrl: KitKey<"string">;
    readonly resourcePath: KitKey<"string">;
    readonly timeout: KitKey<"integer", "min">;
    readonly cache: {
      readonly maxSize: KitKey<"integer", "min">;
      readonly ttl: KitKey<"integer", "min">;
    };
  };
  /** Analytics. */
  readonly analytics: {
    readonly endpoint: KitKey<"string">;
    readonly apiKey: KitKey<"string">;
    readonly batchSize: KitKey<"integer", "min">;
    readonly flushInterval: KitKey<"number", "min">;
    readonly maxQueueSize: KitKey<"integer", "min">;
    readonly trackingId: KitKey<"string">;
    readonly apiSecret: KitKey<"string">;
    readonly ga4Endpoint: KitKey<"string">;
    readonly enableEnhancedEcommerce: KitKey<"boolean">;
    readonly anonymizeIp: KitKey<"boolean">;
  };
  /** The application host's HTTP server (declared by the platform package). */
  readonly server: {
    readonly port: KitKey<"integer", "min" | "max" | "default">;
    readonly host: KitKey<"string", "default">;
    readonly drainDelay: KitKey<"integer", "min" | "max" | "default">;
    readonly maxBodySize: KitKey<"integer", "min" | "max" | "default">;
    readonly headersTimeout: KitKey<"integer", "min" | "max" | "default">;
    readonly idleTimeout: KitKey<"integer", "min" | "max" | "default">;
  };
  /** The application host (declared by the platform package). */
  readonly host: {
    readonly shutdownTimeout: KitKey<"integer", "min" | "max" | "default">;
  };
}

// Freezes the declarations all the way down: every module that reads them
// shares them.
function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (typeof child === "object" && child !== null) deepFreeze(child);
  }
  return Object.freeze(value);
}

type Sections = KitConfigurationSections;

// Declared once for both packages: the database entry point of the platform
// package reads its settings by the same declaration.
const database: Sections["database"] = {
  connectionString: {
    type: "string",
    required: true,
    description: databaseKeys.connectionString.description,
  },
  timeout: {
    type: "number",
    min: databaseKeys.timeout.min,
    max: databaseKeys.timeout.max,
    default: databaseKeys.timeout.default,
    description: databaseKeys.timeout.description,
  },
  poolSize: {
    type: "number",
    min: databaseKeys.poolSize.min,
    max: databaseKeys.poolSize.max,
    default: databaseKeys.poolSize.default,
    description: databaseKeys.poolSize.description,
  },
  enableLogging: {
    type: "boolean",
    description: databaseKeys.enableLogging.description,
  },
};

const api: Sections["api"] = {
  baseUrl: {
    type: "url",
    required: true,
    description: "The base address of the backend API the HTTP client calls.",
  },
  timeout: {
    type: "number",
    min: 1000,
    max: 60000,
    default: 5000,
    description: "Milliseconds an HTTP request may take.",
  },
  retryAttempts: {
    type: "number",
    min: 0,
    max: 10,
    default: 3,
    description: "Retries of a failed idempotent request.",
  },
  enableCaching: {
    type: "boolean",
    description:
      "Keep a private HTTP cache of the GET responses of HttpClient.fromConfiguration.",
  },
};

const logging: Sections["logging"] = {
  level: {
    type: "string",
    values: ["debug", "info", "warning", "error"],
    default: "info",
    description: "The lowest level logged (any letter case; warn = warning).",
  },
  providers: {
    type: "list",
    required: true,
    min: 1,
    values: ["console", "file", "remote"],
    description:
      "The log providers, each { type, options }; type is one of the values.",
  },
  filePath: {
    type: "string",
    description: "The log file of a file provider that names none.",
  },
  remoteEndpoint: {
    type: "string",
    description: "The address of a remote provider that names none.",
  },
  apiKey: {
    type: "string",
    description: "The API key of a remote provider that gives none.",
  },
};

const features: Sections["features"] = {
  enableAnalytics: {
    type: "boolean",
    description:
      "false: the analytics providers built from configuration send nothing.",
  },
  enableInternationalization: {
    type: "boolean",
    description:
      "false: localization built from configuration serves the default culture only.",
  },
  maxFileUploadSize: {
    type: "integer",
    min: 1,
    description:
      "The largest upload, in bytes: the server's body limit for multipart/form-data and application/octet-stream requests (server:maxBodySize stays the limit of every other body).",
  },
};

const telemetry: Sections["telemetry"] = {
  serviceName: {
    type: "string",
    nonEmpty: true,
    variables: ["OTEL_SERVICE_NAME"],
    description: "service.name of what Kit exports over OTLP.",
  },
};

const cache: Sections["cache"] = {
  redis: {
    host: { type: "string", description: "The Redis host." },
    port: {
      type: "integer",
      min: 1,
      max: 65535,
      description: "The Redis port.",
    },
    password: { type: "string", description: "The Redis password." },
    database: {
      type: "integer",
      min: 0,
      description: "The Redis database number.",
    },
    keyPrefix: {
      type: "string",
      description: "The prefix of every cache key in Redis.",
    },
    required: {
      type: "boolean",
      description: "Fail start-up when Redis does not answer.",
    },
    hashTag: {
      type: "boolean",
      description: "On a Redis Cluster, keep each area's keys in one slot.",
    },
    cluster: {
      nodes: {
        type: "string",
        nonEmpty: true,
        description:
          "Redis Cluster nodes to start from: host:port, comma-separated.",
      },
    },
    sentinel: {
      name: {
        type: "string",
        nonEmpty: true,
        description: "The name the sentinels monitor the Redis primary under.",
      },
      nodes: {
        type: "string",
        nonEmpty: true,
        description: "Redis Sentinel addresses: host:port, comma-separated.",
      },
      password: {
        type: "string",
        description: "The sentinels' own password.",
      },
    },
  },
};

const localization: Sections["localization"] = {
  defaultCulture: {
    type: "string",
    default: "en",
    description: "The culture in force at start (a BCP 47 name).",
  },
  fallbackCulture: {
    type: "string",
    description: "The culture a missing translation is looked up in.",
  },
  supportedCultures: {
    type: "cultures",
    description:
      "The cultures the application offers; a request gets the best fit among them.",
  },
  resourceUrl: {
    type: "string",
    description: "Address template of the translations, with {culture}.",
  },
  resourcePath: {
    type: "string",
    description: "File path template of the translations, with {culture}.",
  },
  timeout: {
    type: "integer",
    min: 0,
    description: "Milliseconds a translation download may take.",
  },
  cache: {
    maxSize: {
      type: "integer",
      min: 1,
      description: "Translations kept in the cache.",
    },
    ttl: {
      type: "integer",
      min: 0,
      description: "Milliseconds a cached translation stays.",
    },
  },
};

const analytics: Sections["analytics"] = {
  endpoint: {
    type: "string",
    description: "The collection address of the custom provider.",
  },
  apiKey: {
    type: "string",
    description: "The API key of the custom provider.",
  },
  batchSize: {
    type: "integer",
    min: 1,
    description: "Events sent in one request by the custom provider.",
  },
  flushInterval: {
    type: "number",
    min: 0,
    description: "Milliseconds between the custom provider's sends.",
  },
  maxQueueSize: {
    type: "integer",
    min: 1,
    description: "Events the custom provider queues at most.",
  },
  trackingId: {
    type: "string",
    description: "The Google Analytics measurement id.",
  },
  apiSecret: {
    type: "string",
    description: "The Google Analytics Measurement Protocol secret.",
  },
  ga4Endpoint: {
    type: "string",
    description: "The Google Analytics collection address.",
  },
  enableEnhancedEcommerce: {
    type: "boolean",
    description: "Send the ecommerce events to Google Analytics.",
  },
  anonymizeIp: {
    type: "boolean",
    description: "Ask Google Analytics to drop the client's IP address.",
  },
};

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
export const kitConfigurationSections: KitConfigurationSections = deepFreeze({
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
