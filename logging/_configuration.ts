// LoggerManager.fromConfiguration: turns the `logging` section of a
// configuration into manager options.
import type { IConfiguration } from "../config/mod.ts";
import { invalidLogLevelMessage } from "../core/mod.ts";
import { readEnvironmentVariable } from "../internal/settings/environment.ts";
import { findSetting } from "../internal/settings/setting.ts";
import type { ILogProvider } from "./providers/log_provider.ts";
import { type LogLevel, parseLogLevel } from "./log_level.ts";
import { LoggingConfigurationError } from "./logging_configuration_error.ts";
import { LogProviderOptionError } from "./providers/log_provider_option_error.ts";
import { describeValue } from "./providers/_describe.ts";
import { checkOptions, type Rules } from "./providers/_options.ts";
import { CONSOLE_RULES, FILE_RULES, REMOTE_RULES } from "./providers/_rules.ts";
import { ConsoleLogProvider } from "./providers/console_log_provider.ts";
import {
  FileLogProvider,
  type FileLogProviderOptions,
} from "./providers/file_log_provider.ts";
import {
  RemoteLogProvider,
  type RemoteLogProviderOptions,
} from "./providers/remote_log_provider.ts";

const PROVIDERS = "logging:providers";
const TYPES = ["console", "file", "remote"] as const;
type ProviderType = typeof TYPES[number];

interface Fill {
  option: string;
  keys: readonly string[];
  // Only for entries whose options pass this test.
  when?: (options: Record<string, unknown>) => boolean;
  // Turns the value read into the option's.
  map?: (value: unknown) => unknown;
  // Also read the keys as variables of the process when the configuration
  // has none of them (the OpenTelemetry variables, which exporters read so).
  environment?: boolean;
}

const isOtlp = (options: Record<string, unknown>): boolean =>
  options.format === "otlp";
const isNotOtlp = (options: Record<string, unknown>): boolean =>
  options.format !== "otlp";

interface Kind {
  name: string;
  rules: Rules;
  required: readonly string[];
  // Options filled from other keys when the entry leaves them out.
  fill: readonly Fill[];
  create(options: Record<string, unknown>): ILogProvider;
}

const KINDS: Record<ProviderType, Kind> = {
  console: {
    name: "ConsoleLogProvider",
    rules: CONSOLE_RULES,
    required: [],
    fill: [],
    create: (options) => new ConsoleLogProvider(options),
  },
  file: {
    name: "FileLogProvider",
    rules: FILE_RULES,
    required: ["filename"],
    fill: [{ option: "filename", keys: ["logging:filePath", "LOG_FILE_PATH"] }],
    create: (options) =>
      new FileLogProvider(options as unknown as FileLogProviderOptions),
  },
  remote: {
    name: "RemoteLogProvider",
    rules: REMOTE_RULES,
    required: ["endpoint"],
    fill: [
      {
        option: "endpoint",
        keys: ["logging:remoteEndpoint", "LOG_REMOTE_ENDPOINT"],
        when: isNotOtlp,
      },
      {
        option: "endpoint",
        keys: ["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"],
        when: isOtlp,
        environment: true,
      },
      {
        option: "endpoint",
        keys: ["OTEL_EXPORTER_OTLP_ENDPOINT"],
        when: isOtlp,
        environment: true,
        map: (value) =>
          typeof value === "string"
            ? value.trim().replace(/\/+$/, "") + "/v1/logs"
            : value,
      },
      {
        option: "serviceName",
        keys: ["telemetry:serviceName", "OTEL_SERVICE_NAME"],
        when: isOtlp,
        environment: true,
      },
      { option: "apiKey", keys: ["logging:apiKey", "LOGGING_API_KEY"] },
    ],
    create: (options) =>
      new RemoteLogProvider(options as unknown as RemoteLogProviderOptions),
  },
};

// The source label of a key, when the configuration can tell (a
// ConfigurationManager can; a plain IConfiguration need not).
function sourceOf(config: IConfiguration, key: string): string {
  const getSource = (config as { getSource?: unknown }).getSource;
  const source: unknown = typeof getSource === "function"
    ? getSource.call(config, key)
    : undefined;
  return typeof source === "string" ? source : key;
}

// Where a setting's value came from, as a SettingError's `source` says it:
// the variable's name (`LOG_LEVEL`), the file, or "the configuration";
// `undefined` when none of `keys` holds a value.
function settingSource(
  config: IConfiguration,
  keys: readonly string[],
): string | undefined {
  return findSetting(config, keys)?.source;
}

// A relative log file name resolves against the configuration's application
// root (`basePath`, else KIT_CONFIG_PATH), as its JSON and .env files do;
// without one, against the working directory.
function resolveFilename(config: IConfiguration, filename: unknown): unknown {
  const base = (config as { basePath?: unknown }).basePath;
  if (
    typeof filename !== "string" || typeof base !== "string" || base === "" ||
    /^(?:[\\/]|[A-Za-z]:[\\/])/.test(filename)
  ) {
    return filename;
  }
  return `${base.replace(/[\\/]+$/, "")}/${filename.replace(/^\.[\\/]/, "")}`;
}

function read(config: IConfiguration, keys: readonly string[]): unknown {
  for (const key of keys) {
    if (config.hasValue(key)) {
      const value = config.getValue<unknown>(key, undefined);
      if (value !== undefined && value !== null && value !== "") return value;
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Arrays arrive as arrays from JSON files, as objects with index keys
// ("0", "1", …) from flat sources, or as a JSON string from one variable.
function toList(value: unknown): unknown[] | undefined {
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) return value;
  if (isRecord(value)) {
    const keys = Object.keys(value);
    if (keys.every((key) => /^(0|[1-9][0-9]*)$/.test(key))) {
      return keys.sort((a, b) => Number(a) - Number(b)).map((key) =>
        value[key]
      );
    }
  }
  return undefined;
}

// The identity of a provider entry: its type and checked options, keys
// sorted, so the same entry in a reloaded configuration gives the same key.
function keyOf(type: string, options: Record<string, unknown>): string {
  const sorted = (value: unknown): unknown => {
    if (value instanceof RegExp) return String(value);
    if (Array.isArray(value)) return value.map(sorted);
    if (isRecord(value)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) {
        out[key] = sorted(value[key]);
      }
      return out;
    }
    return typeof value === "function" ? `function ${value.name}` : value;
  };
  return type + ":" + JSON.stringify(sorted(options));
}

/** What the `logging` section describes. */
export interface ConfiguredLogging {
  level: LogLevel;
  providers: ILogProvider[];
  /** For each provider, the key of its entry (type and options). */
  keys: string[];
}

/**
 * Reads the level and builds the providers; throws LoggingConfigurationError.
 * `reuse` is asked first for each entry's key: a provider built from the same
 * entry before is kept instead of built again (a reload that changes only the
 * level recreates nothing, and a file keeps its writer).
 */
export function optionsFromConfiguration(
  config: IConfiguration,
  reuse: (key: string) => ILogProvider | undefined = () => undefined,
  readProviders = true,
): ConfiguredLogging {
  const levelKey = ["logging:level", "LOG_LEVEL"].find((key) =>
    read(config, [key]) !== undefined
  );
  const rawLevel = levelKey === undefined
    ? undefined
    : read(config, [levelKey]);
  let level: LogLevel;
  try {
    level = rawLevel === undefined ? 1 : parseLogLevel(rawLevel as string);
  } catch (error) {
    throw new LoggingConfigurationError(
      "logging:level",
      invalidLogLevelMessage(rawLevel, sourceOf(config, levelKey!)),
      undefined,
      undefined,
      { cause: error, source: settingSource(config, [levelKey!]) },
    );
  }

  if (!readProviders) return { level, providers: [], keys: [] };
  const raw = config.hasValue(PROVIDERS)
    ? config.getValue<unknown>(PROVIDERS, undefined)
    : undefined;
  const list = raw === undefined ? [{ type: "console" }] : toList(raw);
  if (list === undefined) {
    throw new LoggingConfigurationError(
      PROVIDERS,
      `${PROVIDERS} must be a list of { type, options }${describeValue(raw)}`,
      undefined,
      undefined,
      { source: settingSource(config, [PROVIDERS]) },
    );
  }
  if (list.length === 0) {
    throw new LoggingConfigurationError(
      PROVIDERS,
      `${PROVIDERS} must list at least one provider`,
      undefined,
      undefined,
      { source: settingSource(config, [PROVIDERS]) },
    );
  }

  const entries: { key: string; create: () => ILogProvider }[] = [];
  list.forEach((item, index) => {
    const path = `${PROVIDERS}[${index}]`;
    // Where each option filled from another key came from (LOG_FILE_PATH).
    const filledFrom = new Map<string, string>();
    const fail = (
      option: string | undefined,
      detail: string,
      cause?: unknown,
      missing = false,
    ): never => {
      // The option's own source when another key filled it, else the
      // entry's (its option, the entry, or the list, as the source knows);
      // none for a required option that is missing.
      const entry = `${PROVIDERS}:${index}`;
      const source = missing
        ? undefined
        : (option === undefined ? undefined : filledFrom.get(option)) ??
          settingSource(config, [
            ...(option === undefined ? [] : [
              `${entry}:${option}`,
              `${entry}:options:${option}`,
            ]),
            entry,
            PROVIDERS,
          ]);
      throw new LoggingConfigurationError(
        PROVIDERS,
        detail,
        index,
        option,
        { source, ...(cause === undefined ? {} : { cause }) },
      );
    };
    if (!isRecord(item)) {
      return fail(
        undefined,
        `${path} must be an object with a type${describeValue(item)}`,
      );
    }
    for (const key of Object.keys(item)) {
      if (key !== "type" && key !== "options") {
        fail(
          key,
          `${path}.${key} is not allowed (an entry has only type and options)`,
        );
      }
    }
    const type = typeof item.type === "string"
      ? item.type.trim().toLowerCase()
      : item.type;
    if (!TYPES.includes(type as ProviderType)) {
      return fail(
        "type",
        `${path}.type must be one of ${TYPES.join(", ")}${
          describeValue(item.type)
        }`,
      );
    }
    const kind = KINDS[type as ProviderType];
    let options = item.options;
    if (options === undefined || options === null) options = {};
    if (!isRecord(options)) {
      return fail(
        "options",
        `${path}.options must be an object${describeValue(options)}`,
      );
    }
    const filled: Record<string, unknown> = { ...options };
    for (const { option, keys, when, map, environment } of kind.fill) {
      if (filled[option] !== undefined || (when && !when(filled))) continue;
      let value = read(config, keys);
      let source = value === undefined ? undefined : settingSource(
        config,
        keys.filter((key) => read(config, [key]) !== undefined),
      );
      if (value === undefined && environment) {
        for (const key of keys) {
          const text = readEnvironmentVariable(key);
          if (text !== undefined && text.trim() !== "") {
            value = text;
            source = key;
            break;
          }
        }
      }
      if (value !== undefined) {
        filled[option] = map ? map(value) : value;
        if (source !== undefined) filledFrom.set(option, source);
      }
    }
    if (type === "file") {
      filled.filename = resolveFilename(config, filled.filename);
    }
    try {
      const checked = checkOptions(
        kind.name,
        kind.rules,
        filled,
        kind.required,
        true,
      );
      entries.push({
        key: keyOf(type as string, checked),
        create: () => kind.create(checked),
      });
    } catch (error) {
      if (error instanceof LogProviderOptionError) {
        const hint = error.problem === "is required"
          ? ` (or set ${
            kind.fill.filter((f) =>
              f.option === error.option && (!f.when || f.when(filled))
            ).flatMap((f) => f.keys).join(" / ")
          })`
          : "";
        return fail(
          error.option,
          `${path}.options.${error.option} ${error.problem}${
            describeValue(error.value, error.option)
          }${hint}`,
          error,
          error.problem === "is required",
        );
      }
      throw error;
    }
  });
  // Every entry is valid: only now are providers reused or built.
  const providers = entries.map(({ key, create }) => reuse(key) ?? create());
  return { level, providers, keys: entries.map(({ key }) => key) };
}
