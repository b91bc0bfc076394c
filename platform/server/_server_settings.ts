// The host's settings from code first, then the configuration step's value
// (duck-typed: a ConfigurationManager's getValue/hasValue/getSource, or a
// plain object walked by the colon path), then defaults. Strings (from
// environment variables) are read as whole numbers; a bad value is a
// ServerSettingError naming its key and the source that set it, quoted as
// the configuration quotes one (masked, at most 60 characters, `***` when
// read from a file).
import { readEnvironmentVariable } from "../../internal/settings/environment.ts";
import { quoteValue } from "../../internal/quote_value.ts";
import {
  findSetting,
  quoteSetting,
  wholeNumberOf,
} from "../../internal/settings/setting.ts";
import type { ServerOptions } from "./server_options.ts";
import { ServerSettingError } from "./server_setting_error.ts";
import { serverConfigurationKeys } from "../../internal/settings/server_configuration_keys.ts";

/** The server's settings in force. */
export interface ServerSettings {
  port: number;
  hostname: string;
  drainDelay: number;
  health: boolean;
  maxBodySize: number;
  /** The body limit of uploads; `maxBodySize` when none is set. */
  maxUploadSize: number;
  headersTimeout: number;
  idleTimeout: number;
}

const SERVER = serverConfigurationKeys.server;
/** The key of the upload limit (Kit's feature switches). */
export const UPLOAD_KEY = "features:maxFileUploadSize";
/** Default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_SIZE: number = SERVER.maxBodySize.default;

/** A value and where it came from. */
interface Setting {
  readonly key: string;
  readonly value: unknown;
  readonly source: string;
  /** Read from a `<NAME>_FILE` variable's file: never printed. */
  readonly fromFile?: boolean;
  /** Passed in code (the `server` option): the error has no source. */
  readonly inCode?: boolean;
}

function pick(
  code: unknown,
  codeName: string,
  config: unknown,
  key: string,
): Setting | undefined {
  if (code !== undefined) {
    return { key, value: code, source: codeName, inCode: true };
  }
  return findSetting(config, [key]);
}

/** A whole number from min to max; strings of digits are read as numbers. */
export function wholeNumber(
  setting: Setting,
  key: string,
  min: number,
  max: number,
): number {
  const value = wholeNumberOf(setting.value);
  if (value === undefined || value < min || value > max) {
    throw new ServerSettingError(
      key,
      `${key} must be a whole number from ${min} to ${max}: ${
        quoteSetting(setting, key)
      } (from ${setting.source})`,
      setting.inCode === true ? undefined : setting.source,
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
 * @throws {ServerSettingError} Naming the key and the source of a bad value
 * (a `RangeError`).
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
      port = { key: "PORT", value: env, source: "PORT" };
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
    throw new ServerSettingError(
      "server:host",
      `server:host must be a host name or an IP address: ${
        quoteSetting(host, "server:host")
      } (from ${host.source})`,
      host.inCode === true ? undefined : host.source,
    );
  }
  if (options.health !== undefined && typeof options.health !== "boolean") {
    throw new TypeError(
      `server.health must be true or false: ${quoteValue(options.health)}`,
    );
  }
  const maxBodySize = number(
    options.maxBodySize,
    "maxBodySize",
    config,
    "server:maxBodySize",
    SERVER.maxBodySize,
  );
  const upload = pick(
    options.maxUploadSize,
    "the server option maxUploadSize",
    config,
    UPLOAD_KEY,
  );
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
    maxBodySize,
    maxUploadSize: upload === undefined
      ? maxBodySize
      : wholeNumber(upload, UPLOAD_KEY, 1, Number.MAX_SAFE_INTEGER),
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
 * @throws {ServerSettingError} Naming the source of a bad value.
 */
export function configuredShutdownTimeout(config: unknown): number | undefined {
  const setting = findSetting(config, ["host:shutdownTimeout"]);
  return setting === undefined ? undefined : wholeNumber(
    setting,
    "host:shutdownTimeout",
    serverConfigurationKeys.host.shutdownTimeout.min,
    serverConfigurationKeys.host.shutdownTimeout.max,
  );
}
