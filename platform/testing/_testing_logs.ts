// What the test kit records of the logging step: a provider added to a
// LoggerManager (duck-typed, as platform does not depend on logging), or,
// without a logging step, a logger of its own that the host writes its
// lines to instead of the console. Values come from ../mod.ts only: the npm
// build bundles the testing entry apart and must share the main one's.
import { RequestContext } from "../mod.ts";
import type { ApplicationLogger } from "../host/application_logger.ts";
import type { LogRecord, LogRecordLevel } from "../testing.ts";

const LEVELS: readonly LogRecordLevel[] = ["debug", "info", "warning", "error"];

// A LoggerManager as seen from here: its providers, its level, configure().
interface ManagerLike {
  readonly providers: readonly unknown[];
  readonly level: unknown;
  configure(options: { level: unknown; providers: unknown[] }): unknown;
}

function isManagerLike(value: unknown): value is ManagerLike {
  if (value === null || typeof value !== "object") return false;
  const manager = value as Partial<ManagerLike>;
  return Array.isArray(manager.providers) &&
    typeof manager.configure === "function";
}

// A LogEntry of Kit's logging, as ILogProvider.log receives it.
interface EntryLike {
  readonly timestamp: Date;
  readonly level: number;
  readonly category: string;
  readonly message: string;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly error?: Error;
  readonly requestId?: string;
  readonly traceId?: string;
  readonly spanId?: string;
}

function recordOf(entry: EntryLike): LogRecord {
  return Object.freeze({
    timestamp: entry.timestamp,
    level: LEVELS[entry.level] ?? "error",
    category: entry.category,
    message: entry.message,
    properties: entry.properties ?? {},
    ...(entry.error === undefined ? {} : { error: entry.error }),
    ...(entry.requestId === undefined ? {} : { requestId: entry.requestId }),
    ...(entry.traceId === undefined ? {} : { traceId: entry.traceId }),
    ...(entry.spanId === undefined ? {} : { spanId: entry.spanId }),
  });
}

/**
 * Adds a recording provider to what the logging step returned, when it is a
 * LoggerManager; `false` when it is something else.
 */
export function recordManager(
  logging: unknown,
  push: (record: LogRecord) => void,
): boolean {
  if (!isManagerLike(logging)) return false;
  const recorder = {
    log(entry: EntryLike): Promise<void> {
      push(recordOf(entry));
      return Promise.resolve();
    },
    // The manager's level decides: what it writes, the test sees.
    isEnabled: (): boolean => true,
  };
  logging.configure({
    level: logging.level,
    providers: [...logging.providers, recorder],
  });
  return true;
}

/**
 * The value of the logging step a test application adds when there is
 * none: the host's own lines (start, access lines, errors) are recorded
 * rather than printed.
 */
export function recordingLogging(
  push: (record: LogRecord) => void,
): { getLogger(category: string): ApplicationLogger } {
  const write = (
    category: string,
    level: number,
    message: string,
    given: Record<string, unknown> | undefined,
  ): void => {
    const { requestId, ...properties } = given ?? {};
    // As Kit's logger does: an Error and the request id get fields of their
    // own.
    const error = properties.error;
    if (error instanceof Error) delete properties.error;
    const fromContext = RequestContext.current()?.requestId;
    const id = typeof requestId === "string" ? requestId : fromContext;
    push(recordOf({
      timestamp: new Date(),
      level,
      category,
      message,
      properties,
      ...(error instanceof Error ? { error } : {}),
      ...(id === undefined ? {} : { requestId: id }),
    }));
  };
  return {
    getLogger: (category: string): ApplicationLogger => ({
      debug: (message, properties) => write(category, 0, message, properties),
      info: (message, properties) => write(category, 1, message, properties),
      warning: (message, properties) => write(category, 2, message, properties),
      error: (message, properties) => write(category, 3, message, properties),
      // Debug lines only with KIT_LOG_LEVEL=debug, as on the console.
      isEnabled: (level) => level > 0,
    }),
  };
}
