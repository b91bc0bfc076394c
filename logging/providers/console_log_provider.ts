import type { ConsoleSinkOptions, Sink } from "@logtape/logtape";
import type { LogEntry } from "../log_entry.ts";
import { LogLevel, type LogLevelName } from "../log_level.ts";
import type { ILogProvider } from "./log_provider.ts";
import { checkOptions } from "./_options.ts";
import { CONSOLE_RULES as RULES } from "./_rules.ts";
import { Redactor } from "../_redactor.ts";
import { JsonFormatter, LEVEL_NAMES } from "../_format.ts";
import { textFormatter } from "../_text_format.ts";
import { stdoutIsTerminal } from "#logging/providers/terminal";
import { loadLogTape } from "#logging/logtape";
import { RESOLVED } from "./_resolved.ts";

/**
 * Where {@linkcode ConsoleLogProvider} writes: `console` by default. Entries
 * go to `debug`, `info`, `warn` and `error` by level, one call per entry.
 */
export interface LogConsole {
  /** Receives debug entries. */
  debug(...data: unknown[]): void;
  /** Receives info entries. */
  info(...data: unknown[]): void;
  /** Receives warning entries. */
  warn(...data: unknown[]): void;
  /** Receives error entries. */
  error(...data: unknown[]): void;
}

/** Options of {@linkcode ConsoleLogProvider}. */
export interface ConsoleLogProviderOptions {
  /**
   * Colour the level, timestamp, properties and stack with ANSI codes. Takes
   * effect only when standard output is a terminal (see `isTerminal`), so
   * piped and collected output stays plain. Default `true`.
   */
  colorize?: boolean;
  /** Start each line with the ISO 8601 UTC timestamp. Default `true`. */
  timestamp?: boolean;
  /**
   * `"simple"` (default): `<timestamp> <LEVEL> [<category>] <message>
   * <properties as JSON>`, control characters in the message escaped, an
   * error's stack on the following indented lines. `"json"`: Kit's JSON
   * object per entry, the same shape as the file provider writes.
   */
  format?: "simple" | "json";
  /** Lowest level this provider writes. Default `debug` (all). */
  level?: LogLevel | LogLevelName;
  /** Keys to mask besides the defaults (see `DEFAULT_REDACTED_KEYS`). */
  redactKeys?: readonly (string | RegExp)[];
  /** Where to write. Default: the global `console`. */
  console?: LogConsole;
  /**
   * Overrides terminal detection (`process.stdout.isTTY`, or
   * `Deno.stdout.isTerminal()`). Default: detected.
   */
  isTerminal?: boolean;
}

/**
 * Writes one console call per entry, through LogTape's console sink and text
 * formatters. Colours only when `colorize` is on and the output is a
 * terminal; errors come with their stack; secret properties are written as
 * `***`.
 *
 * @example Usage
 * ```ts
 * import { ConsoleLogProvider, LoggerManager } from "@vendor/kit/logging";
 *
 * const manager = new LoggerManager().configure({
 *   level: "info",
 *   providers: [
 *     new ConsoleLogProvider({ colorize: true, timestamp: true, format: "simple" }),
 *   ],
 * });
 * manager.getLogger("app").info("Started", { port: 3000 });
 * // 2025-01-02T03:04:05.678Z INFO [app] Started {"port":3000}
 * ```
 */
export class ConsoleLogProvider implements ILogProvider {
  readonly #level: LogLevel;
  readonly #sink: Sink;
  #disposed = false;

  /**
   * Creates the provider.
   *
   * @param options See {@linkcode ConsoleLogProviderOptions}.
   * @throws {LogProviderOptionError} When an option is unknown or invalid.
   */
  constructor(options: ConsoleLogProviderOptions = {}) {
    const checked = checkOptions("ConsoleLogProvider", RULES, options, []);
    const redactor = new Redactor(
      checked.redactKeys as readonly (string | RegExp)[] | undefined,
    );
    this.#level = (checked.level as LogLevel | undefined) ?? LogLevel.Debug;
    const terminal = (checked.isTerminal as boolean | undefined) ??
      stdoutIsTerminal();
    const colorize = ((checked.colorize as boolean | undefined) ?? true) &&
      terminal;
    let format: (entry: LogEntry) => string;
    if (checked.format === "json") {
      const json = new JsonFormatter(redactor);
      format = (entry) => json.format(entry);
    } else {
      format = textFormatter({
        colorize,
        timestamp: (checked.timestamp as boolean | undefined) ?? true,
        redactor,
      });
    }
    // LogTape is loaded here, by the first console provider (see
    // _logtape_deno.ts), not when the logging module is imported.
    this.#sink = loadLogTape().getConsoleSink({
      console: ((checked.console as LogConsole | undefined) ??
        globalThis.console) as unknown as SinkConsole,
      // The record handed to the sink carries the Kit entry; see log().
      formatter: (record) => format((record as unknown as Carrier).entry),
    });
  }

  /**
   * Writes the entry now.
   *
   * @param entry The entry.
   * @returns A settled promise (rejected only when writing threw).
   */
  log(entry: LogEntry): Promise<void> {
    if (this.#disposed) return RESOLVED;
    try {
      const carrier: Carrier = {
        category: [entry.category],
        level: LEVEL_NAMES[entry.level] ?? "info",
        message: [],
        rawMessage: "",
        timestamp: 0,
        properties: {},
        entry,
      };
      this.#sink(carrier as unknown as Parameters<Sink>[0]);
      return RESOLVED;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Tells whether entries of a level are written.
   *
   * @param level A level.
   * @returns `true` from the provider's `level` up.
   */
  isEnabled(level: LogLevel): boolean {
    return !this.#disposed && level >= this.#level;
  }

  /**
   * Nothing is buffered: resolves at once.
   *
   * @returns A settled promise.
   */
  flush(): Promise<void> {
    return RESOLVED;
  }

  /**
   * Stops writing.
   *
   * @returns A settled promise.
   */
  dispose(): Promise<void> {
    this.#disposed = true;
    return RESOLVED;
  }
}

type SinkConsole = NonNullable<ConsoleSinkOptions["console"]>;

// What the LogTape console sink needs from a record (category, level) plus
// the Kit entry the formatter reads.
interface Carrier {
  category: readonly string[];
  level: string;
  message: readonly unknown[];
  rawMessage: string;
  timestamp: number;
  properties: Record<string, unknown>;
  entry: LogEntry;
}
