// Around each statement: its duration, a debug line with database:
// enableLogging (text, duration, row count; never the values), a warning
// when it was slow, its span and histogram point (_telemetry.ts), and the
// database's up/down bookkeeping (a statement that reached the server, or
// one that found it unreachable). One async frame per statement: it is on
// every query's path.
// Lines go to the logger given in the options, else the running
// application's logging under `kit.database`, else the console (warnings
// only: debug lines outside an application are dropped).
import type { ApplicationLogger } from "../mod.ts";
import { hostLogger } from "../mod.ts";
import type { EngineResult } from "./_engine.ts";
import { DatabaseUnavailableError } from "./database_unavailable_error.ts";
import { firstLine, loggedText } from "./_statement.ts";
import { type DatabaseAttributes, startStatement } from "./_telemetry.ts";

/** The category of the database's log lines. */
export const CATEGORY = "kit.database";

/** Told when a statement starts and ends, for the database's dispose. */
export interface Activity {
  begin(): void;
  end(): void;
}

/** Told of each statement's outcome, for the database's up/down state. */
export interface OutageHooks {
  /** A statement or connection succeeded. */
  reached(): void;
  /** The server could not be reached. */
  unreachable(error: DatabaseUnavailableError): void;
}

/** What the runner logs by, and where. */
export interface ObserverSettings {
  readonly enableLogging: boolean;
  /** Milliseconds from which a statement is slow; 0 for never. */
  readonly slowStatementThreshold: number;
  readonly logger: ApplicationLogger | undefined;
  readonly attributes: DatabaseAttributes;
}

type Level = "debug" | "info" | "warning" | "error";

/**
 * Writes one line through the given logger, the application's, or (from
 * info up) the console.
 */
export function writeLine(
  logger: ApplicationLogger | undefined,
  level: Level,
  message: string,
  properties: Record<string, unknown>,
): void {
  const target = logger ?? hostLogger(CATEGORY);
  if (target !== undefined) {
    target[level](message, properties);
    return;
  }
  if (level === "debug") return;
  const write = level === "info"
    ? console.info
    : level === "warning"
    ? console.warn
    : console.error;
  write(`[${CATEGORY}] ${message}`);
}

function rows(count: number): string {
  return count === 1 ? "1 row" : `${count} rows`;
}

/** Runs statements, measuring, logging and tracing each. */
export class StatementRunner {
  readonly #settings: ObserverSettings;
  readonly #hooks: OutageHooks;
  readonly #activity: Activity;

  constructor(
    settings: ObserverSettings,
    hooks: OutageHooks,
    activity: Activity,
  ) {
    this.#settings = settings;
    this.#hooks = hooks;
    this.#activity = activity;
  }

  /** Notes an error's meaning for the up/down state, and returns it. */
  noted(error: unknown): unknown {
    if (error instanceof DatabaseUnavailableError) {
      this.#hooks.unreachable(error);
    }
    return error;
  }

  /** Runs one statement through `execute`. */
  async run<R extends EngineResult | void>(
    text: string,
    execute: () => Promise<R>,
  ): Promise<R> {
    const telemetry = startStatement(text, this.#settings.attributes);
    const started = performance.now();
    let result: R;
    this.#activity.begin();
    try {
      result = await execute();
    } catch (error) {
      this.noted(error);
      telemetry?.end(error);
      if (this.#settings.enableLogging) {
        const ms = performance.now() - started;
        writeLine(
          this.#settings.logger,
          "debug",
          `Statement failed after ${ms.toFixed(1)} ms (${
            (error as Error).name
          }): ${firstLine(text)}`,
          { statement: loggedText(text), durationMs: ms },
        );
      }
      throw error;
    } finally {
      this.#activity.end();
    }
    this.#hooks.reached();
    telemetry?.end();
    const { enableLogging, slowStatementThreshold } = this.#settings;
    if (enableLogging || slowStatementThreshold > 0) {
      const ms = performance.now() - started;
      const slow = slowStatementThreshold > 0 && ms >= slowStatementThreshold;
      if (enableLogging || slow) {
        const count = (result as EngineResult | undefined)?.rowCount;
        writeLine(
          this.#settings.logger,
          slow ? "warning" : "debug",
          `${slow ? "Slow statement: " : "Statement: "}${ms.toFixed(1)} ms${
            count === undefined ? "" : `, ${rows(count)}`
          }${slow ? ` (over ${slowStatementThreshold} ms)` : ""}: ${
            firstLine(text)
          }`,
          {
            statement: loggedText(text),
            durationMs: ms,
            ...(count === undefined ? {} : { rowCount: count }),
          },
        );
      }
    }
    return result;
  }
}
