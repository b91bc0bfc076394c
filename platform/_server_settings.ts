// The host's settings from code first, then the configuration step's value
// (duck-typed: a ConfigurationManager's getValue/hasValue/getSource, or a
// plain object walked by the colon path), then defaults. Strings (from
// environment variables) are read as whole numbers; a bad value names its
// key and the source that set it.
import { readEnvironmentVariable } from "../core/mod.ts";
import type { ServerOptions } from "./server_options.ts";

/** The server's settings in force. */
export interface ServerSettings {
  port: number;
  hostname: string;
  drainDelay: number;
  health: boolean;
  maxBodySize: number;
  headersTimeout: number;
  idleTimeout: number;
}

const MAX_TIMER = 2_147_483_647;

// Freezes the declaration all the way down: the configuration package shares
// it.
function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (typeof child === "object" && child !== null) deepFreeze(child);
  }
  return Object.freeze(value);
}

/**
 * The configuration keys the host reads, each declared once with its type,
 * bounds, default and the other variable it falls back to: the functions
 * below check by it, and the configuration package builds its schema
 * section and its list of keys from it (platform cannot import the
 * configuration package, so the declaration lives here, as plain data).
 *
 * @example Usage
 * ```ts
 * import { serverConfigurationKeys } from "@vendor/kit/platform";
 *
 * serverConfigurationKeys.server.port.max; // 65535
 * ```
 */
export const serverConfigurationKeys: {
  /** The HTTP server's keys (`server:port`…). */
  readonly server:
    & {
      readonly [
        K in
          | "port"
          | "drainDelay"
          | "maxBodySize"
          | "headersTimeout"
          | "idleTimeout"
      ]: {
        readonly type: "integer";
        readonly min: number;
        readonly max: number;
        readonly default: number;
        readonly variables?: readonly string[];
        readonly description: string;
      };
    }
    & {
      readonly host: {
        readonly type: "string";
        readonly default: string;
        readonly description: string;
      };
    };
  /** The host's keys (`host:shutdownTimeout`). */
  readonly host: {
    readonly shutdownTimeout: {
      readonly type: "integer";
      readonly min: number;
      readonly max: number;
      readonly default: number;
      readonly description: string;
    };
  };
} = deepFreeze({
  server: {
    port: {
      type: "integer",
      min: 0,
      max: 65_535,
      default: 3000,
      variables: ["PORT"],
      description: "The port the server listens on; 0 asks for any free one.",
    },
    host: {
      type: "string",
      default: "0.0.0.0",
      description: "The address the server binds.",
    },
    drainDelay: {
      type: "integer",
      min: 0,
      max: MAX_TIMER,
      default: 0,
      description:
        "Milliseconds the server keeps serving after readiness turned 503.",
    },
    maxBodySize: {
      type: "integer",
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      // 1 MiB.
      default: 1_048_576,
      description: "The largest request body, in bytes.",
    },
    headersTimeout: {
      type: "integer",
      min: 1,
      max: MAX_TIMER,
      // As Node.js's headersTimeout and nginx's client_header_timeout.
      default: 60_000,
      description: "Milliseconds a connection may take to send its headers.",
    },
    idleTimeout: {
      type: "integer",
      min: 1,
      max: MAX_TIMER,
      // As Node.js's keepAliveTimeout.
      default: 5_000,
      description: "Milliseconds an idle keep-alive connection stays open.",
    },
  },
  host: {
    shutdownTimeout: {
      type: "integer",
      min: 0,
      max: MAX_TIMER,
      default: 10_000,
      description: "Milliseconds the host waits for shutdown before it exits.",
    },
  },
});

const SERVER = serverConfigurationKeys.server;
/** Default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_SIZE: number = SERVER.maxBodySize.default;

/** A value and where it came from. */
interface Setting {
  value: unknown;
  source: string;
}

interface ConfigurationLike {
  getValue(key: string, fallback?: unknown): unknown;
  hasValue?(key: string): boolean;
  getSource?(key: string): string | undefined;
}

function isConfigurationLike(value: unknown): value is ConfigurationLike {
  return value !== null && typeof value === "object" &&
    typeof (value as ConfigurationLike).getValue === "function";
}

// A missing key reads as undefined; a configuration object whose getValue
// throws for a missing key without a default is asked with one.
function fromConfiguration(config: unknown, key: string): Setting | undefined {
  if (isConfigurationLike(config)) {
    if (typeof config.hasValue === "function" && !config.hasValue(key)) {
      return undefined;
    }
    const value = config.getValue(key, undefined);
    if (value === undefined || value === null) return undefined;
    const source = config.getSource?.(key);
    return {
      value,
      // "env APP_SERVER__PORT" names the variable itself.
      source: source === undefined
        ? "the configuration"
        : source.startsWith("env ")
        ? source.slice(4)
        : source,
    };
  }
  let node: unknown = config;
  for (const part of key.split(":")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node === undefined || node === null
    ? undefined
    : { value: node, source: "the configuration" };
}

function pick(
  code: unknown,
  codeName: string,
  config: unknown,
  key: string,
): Setting | undefined {
  if (code !== undefined) return { value: code, source: codeName };
  return fromConfiguration(config, key);
}

function describe(value: unknown): string {
  return typeof value === "string" ? value : String(value);
}

/** A whole number from min to max; strings of digits are read as numbers. */
export function wholeNumber(
  setting: Setting,
  key: string,
  min: number,
  max: number,
): number {
  const raw = setting.value;
  const value = typeof raw === "number"
    ? raw
    : typeof raw === "string" && /^\s*\d+\s*$/.test(raw)
    ? Number(raw)
    : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(
      `${key} must be a whole number from ${min} to ${max}: '${
        describe(raw)
      }' (from ${setting.source})`,
    );
  }
  return value;
}

function number(
  code: number | undefined,
  name: string,
  config: unknown,
  key: string,
  declared: { default: number; min: number; max: number },
): number {
  const setting = pick(code, `the server option ${name}`, config, key);
  return setting === undefined
    ? declared.default
    : wholeNumber(setting, key, declared.min, declared.max);
}

/**
 * The server's settings from `options.server`, then the configuration,
 * then (for the port) the `PORT` variable, then the defaults.
 *
 * @throws {RangeError} Naming the key and the source of a bad value.
 */
export function serverSettings(
  code: ServerOptions | undefined,
  config: unknown,
): ServerSettings {
  const options = code ?? {};
  let port = pick(
    options.port,
    "the server option port",
    config,
    "server:port",
  );
  if (port === undefined) {
    const env = readEnvironmentVariable("PORT");
    if (env !== undefined && env.trim() !== "") {
      port = { value: env, source: "PORT" };
    }
  }
  const host = pick(
    options.hostname,
    "the server option hostname",
    config,
    "server:host",
  );
  if (
    host !== undefined &&
    (typeof host.value !== "string" || host.value.trim() === "")
  ) {
    throw new TypeError(
      `server:host must be a host name or an IP address: '${
        describe(host.value)
      }' (from ${host.source})`,
    );
  }
  if (options.health !== undefined && typeof options.health !== "boolean") {
    throw new TypeError(
      `server.health must be true or false: '${describe(options.health)}'`,
    );
  }
  return {
    port: port === undefined
      ? SERVER.port.default
      : wholeNumber(port, "server:port", SERVER.port.min, SERVER.port.max),
    hostname: host === undefined
      ? SERVER.host.default
      : (host.value as string).trim(),
    drainDelay: number(
      options.drainDelay,
      "drainDelay",
      config,
      "server:drainDelay",
      SERVER.drainDelay,
    ),
    health: options.health ?? true,
    maxBodySize: number(
      options.maxBodySize,
      "maxBodySize",
      config,
      "server:maxBodySize",
      SERVER.maxBodySize,
    ),
    headersTimeout: number(
      options.headersTimeout,
      "headersTimeout",
      config,
      "server:headersTimeout",
      SERVER.headersTimeout,
    ),
    idleTimeout: number(
      options.idleTimeout,
      "idleTimeout",
      config,
      "server:idleTimeout",
      SERVER.idleTimeout,
    ),
  };
}

/**
 * `host:shutdownTimeout` from the configuration, when code gave none;
 * `undefined` when neither did.
 *
 * @throws {RangeError} Naming the source of a bad value.
 */
export function configuredShutdownTimeout(config: unknown): number | undefined {
  const setting = fromConfiguration(config, "host:shutdownTimeout");
  return setting === undefined ? undefined : wholeNumber(
    setting,
    "host:shutdownTimeout",
    serverConfigurationKeys.host.shutdownTimeout.min,
    serverConfigurationKeys.host.shutdownTimeout.max,
  );
}
