// The configuration keys the host reads, as plain data: the host checks its
// settings by them, and the configuration package (which platform cannot
// import) builds its schema section and its list of keys from them.
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
 * bounds, default and the other variable it falls back to: the host checks
 * its settings by it, and the configuration package builds its schema
 * section and its list of keys from it (platform cannot import the
 * configuration package, so the declaration is shared code, as plain data).
 *
 * @example Usage
 * ```ts
 * import { serverConfigurationKeys } from "./server_configuration_keys.ts";
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
