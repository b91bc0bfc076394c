// Around each statement: its duration, a debug line with database:
// enableLogging (text, duration, row count; never the values), a warning
// when it was slow, and its span and histogram point (_telemetry.ts).
// Lines go to the logger given in the options, else the running
// application's logging under `kit.database`, else the console (warnings
// only: debug lines outside an application are dropped).
import type { ApplicationLogger } from "../mod.ts";
import { hostLogger } from "../mod.ts";
import type { EngineResult } from "./_engine.ts";
import { firstLine, loggedText } from "./_statement.ts";
import { type DatabaseAttributes, startStatement } from "./_telemetry.ts";

/** The category of the database's log lines. */
export const CATEGORY = "kit.database";

/** What the observer logs by, and where. */
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
export class StatementObserver {
  readonly #settings: ObserverSettings;

  constructor(settings: ObserverSettings) {
    this.#settings = settings;
  }

  /** Runs one statement through `execute`. */
  async run<R extends EngineResult | void>(
    text: string,
    execute: () => Promise<R>,
  ): Promise<R> {
    const telemetry = startStatement(text, this.#settings.attributes);
    const started = performance.now();
    let result: R;
    try {
      result = await execute();
    } catch (error) {
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
    }
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
