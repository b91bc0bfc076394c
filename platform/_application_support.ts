// Small helpers of the application host: its console logger, the logger of
// the logging step, and waiting for a promise until a deadline.
import { unrefTimer } from "../internal/unref_timer.ts";
import type { ApplicationLogger } from "./application_options.ts";

/** Whether `KIT_LOG_LEVEL` asks for the host's diagnostics. */
export function diagnosticsEnabled(value: string | undefined): boolean {
  return value !== undefined && value.trim().toLowerCase() === "debug";
}

/**
 * The logger used before (or without) a logging step: info and above to the
 * console, debug only with diagnostics on (to standard error).
 */
export function consoleLogger(diagnostics: boolean): ApplicationLogger {
  const line = (message: string): string => `[kit] ${message}`;
  return {
    debug: (message) => {
      if (diagnostics) console.error(line(message));
    },
    info: (message) => console.info(line(message)),
    warning: (message) => console.warn(line(message)),
    error: (message, properties) => {
      const cause = properties?.error;
      console.error(
        line(message),
        ...(cause instanceof Error && cause.stack !== undefined
          ? [`\n${cause.stack}`]
          : []),
      );
    },
  };
}

function isLogger(value: unknown): value is ApplicationLogger {
  if (value === null || typeof value !== "object") return false;
  const logger = value as Record<string, unknown>;
  return typeof logger.debug === "function" &&
    typeof logger.info === "function" &&
    typeof logger.warning === "function" &&
    typeof logger.error === "function";
}

/**
 * The application's logger from what the logging step returned: its
 * `getLogger(category)` (a LoggerManager), or the value itself when it is a
 * logger.
 */
export function loggerOf(
  logging: unknown,
  category = "kit.application",
): ApplicationLogger | undefined {
  if (logging === null || typeof logging !== "object") return undefined;
  const getLogger = (logging as { getLogger?: unknown }).getLogger;
  if (typeof getLogger === "function") {
    const logger: unknown = getLogger.call(logging, category);
    if (isLogger(logger)) return logger;
  }
  return isLogger(logging) ? logging : undefined;
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An Error naming the part that failed, the original as its cause. */
export function errorOf(name: string, error: unknown): Error {
  return new Error(`${name}: ${messageOf(error)}`, { cause: error });
}

/**
 * Waits for `promise` until `signal` aborts: `true` when it settled in time
 * (rethrowing its rejection), `false` when the deadline came first. When the
 * deadline has already passed, a promise that settles within the same turn
 * still counts as in time.
 */
export function abandonAfter(
  promise: Promise<unknown>,
  signal: AbortSignal,
): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => resolve(false);
    promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        clearTimeout(timer);
        resolve(true);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        clearTimeout(timer);
        reject(error);
      },
    );
    if (signal.aborted) {
      timer = unrefTimer(setTimeout(onAbort, 0));
    } else {
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
}
