// Small helpers of the application host: its console logger, the logger of
// the logging step, and waiting for a promise until a deadline.
import { maskSecretText } from "../../core/mod.ts";
import {
  escapeControls,
  escapedStack,
} from "../../internal/escape_controls.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import type { ApplicationLogger } from "./application_logger.ts";

/** Whether `KIT_LOG_LEVEL` asks for the host's diagnostics. */
export function diagnosticsEnabled(value: string | undefined): boolean {
  return value !== undefined && value.trim().toLowerCase() === "debug";
}

/**
 * The logger used before (or without) a logging step: info and above to the
 * console, debug only with diagnostics on (to standard error). Each line is
 * {@linkcode consoleLine}: masked and escaped as a LoggerManager's text line.
 */
export function consoleLogger(diagnostics: boolean): ApplicationLogger {
  return {
    debug: (message, properties) => {
      if (diagnostics) console.error(consoleLine(message, properties));
    },
    info: (message, properties) =>
      console.info(consoleLine(message, properties)),
    warning: (message, properties) =>
      console.warn(consoleLine(message, properties)),
    error: (message, properties) =>
      console.error(consoleLine(message, properties)),
  };
}

// How many causes of an error a line follows, as a LoggerManager's does.
const MAX_CAUSES = 3;

/**
 * One entry of the console fallback: `[kit] message`, the request id when
 * the properties hold one, then the error's stack and causes, indented. The
 * secrets a text carries by shape are masked (message, stack and causes
 * alike) and every control character is escaped, the stack keeping one frame
 * a line: an error's text cannot print a secret nor forge a line of its own.
 */
export function consoleLine(
  message: string,
  properties?: Readonly<Record<string, unknown>>,
): string {
  let line = "[kit] " + escapeControls(maskSecretText(String(message)));
  if (properties === undefined) return line;
  const requestId = properties.requestId;
  if (requestId !== undefined && requestId !== null) {
    line += " requestId=" + JSON.stringify(String(requestId));
  }
  let error: unknown = properties.error;
  if (!(error instanceof Error)) return line;
  let prefix = "";
  for (let depth = 0; depth <= MAX_CAUSES; depth++) {
    if (error instanceof Error) {
      const stack = error.stack;
      line += "\n    " + prefix + escapedStack(
        `${error.name}: ${maskSecretText(String(error.message))}`,
        stack === undefined ? undefined : maskSecretText(String(stack)),
      ).join("\n    ");
    } else {
      line += "\n    " + prefix +
        escapeControls(maskSecretText(printable(error)));
      break;
    }
    error = (error as { cause?: unknown }).cause;
    if (error === undefined) break;
    prefix = "Caused by: ";
  }
  return line;
}

// A cause that is not an Error, as text.
function printable(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
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
