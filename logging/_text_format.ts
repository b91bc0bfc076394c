// The "simple" text format of the console and file providers, built on
// LogTape's text formatters: LogTape renders the timestamp, the level, the
// category and the message, neutralises control characters and terminal
// escape sequences in the message and category (log forging), and colours
// the line with its ANSI formatter. Kit adds the properties (masked, as JSON),
// the request id, the trace and span ids and the error stack, escaped the
// same way (_escape.ts), so nothing on the line can move the cursor, erase a
// line or forge another entry.
//
//   2025-01-02T03:04:05.678Z INFO [orders] Order placed {"orderId":42}
//   2025-01-02T03:04:05.678Z INFO [orders] Paid requestId="r-1" trace=4bf9… span=00f0…
//
// Nothing of LogTape leaves this file: providers get a (entry) => string.
import type { LogRecord, TextFormatter } from "@logtape/logtape";
import type { LogEntry } from "./log_entry.ts";
import { isoTimestamp, LEVEL_NAMES, safeStringify } from "./_format.ts";
import { escapeControls, escapedStack } from "./_escape.ts";
import { loadLogTape } from "#logging/logtape";
import type { Redactor } from "./_redactor.ts";
import {
  entryErrorBudget,
  type ErrorBudget,
  groupDigits,
  type SerializedError,
  serializeError,
} from "./_serialize_error.ts";

function isSerializedError(value: unknown): value is SerializedError {
  return typeof value === "object" && value !== null &&
    typeof (value as SerializedError).name === "string" &&
    typeof (value as SerializedError).message === "string";
}

function plainId(id: string): string {
  const text = String(id);
  return /^[0-9a-f]{1,32}$/i.test(text) ? text : JSON.stringify(text);
}

// An error's lines, each to be indented under the entry: its stack (the
// first line prefixed), then its nested errors ("Error 1 of 100,000: …",
// "… and 99,990 more errors"), then its cause ("Caused by: …"). The message
// may quote any input (a JSON.parse error quotes the body): it and every
// frame are escaped like the entry's message, so the stack cannot forge a
// line or drive the terminal.
function errorLines(
  error: SerializedError,
  prefix: string,
  lines: string[],
): void {
  const stack = escapedStack(`${error.name}: ${error.message}`, error.stack);
  lines.push(prefix + stack[0]);
  for (let i = 1; i < stack.length; i++) lines.push(stack[i]);
  const nested = error.errors ?? [];
  const more = error.moreErrors ?? 0;
  const total = groupDigits(nested.length + more);
  nested.forEach((item, i) => {
    const label = `Error ${groupDigits(i + 1)} of ${total}: `;
    if (isSerializedError(item)) errorLines(item, label, lines);
    else lines.push(label + escapeControls(safeStringify(item)));
  });
  if (more > 0) {
    lines.push(
      `… and ${groupDigits(more)} more error${more === 1 ? "" : "s"}`,
    );
  }
  const cause: unknown = error.cause;
  if (isSerializedError(cause)) errorLines(cause, "Caused by: ", lines);
  else if (cause !== undefined) {
    lines.push("Caused by: " + escapeControls(safeStringify(cause)));
  }
}

interface KitRecord extends LogRecord {
  readonly kit: { suffix: string; stack: string };
}

/** Options of the simple formatter. */
export interface TextFormatOptions {
  colorize: boolean;
  timestamp: boolean;
  redactor: Redactor;
}

const DIM = "\x1b[2m";
const RED = "\x1b[31m";
const RESET = "\x1b[0m";

/** Returns a function that formats an entry as one "simple" line. */
export function textFormatter(
  options: TextFormatOptions,
): (entry: LogEntry) => string {
  const { colorize, redactor } = options;
  const common = {
    timestamp: options.timestamp
      ? (ms: number): string => isoTimestamp(ms)
      : ("none" as const),
    level: "FULL" as const,
    // Escape line breaks too: one entry stays one line.
    sanitize: { newlines: "escape", sgr: "escape" } as const,
    format(
      values: {
        timestamp: string | null;
        level: string;
        category: string;
        message: string;
        record: LogRecord;
      },
    ): string {
      const { suffix, stack } = (values.record as KitRecord).kit;
      const head = values.timestamp === null ? "" : values.timestamp + " ";
      const colouredSuffix = colorize && suffix !== ""
        ? DIM + suffix + RESET
        : suffix;
      const colouredStack = colorize && stack !== ""
        ? RED + stack + RESET
        : stack;
      return `${head}${values.level} [${values.category}] ${values.message}` +
        colouredSuffix + colouredStack;
    },
  };
  // LogTape is loaded here, when a provider first builds its formatter (see
  // _logtape_deno.ts), not when the logging module is imported.
  const { getAnsiColorFormatter, getTextFormatter } = loadLogTape();
  const formatter: TextFormatter = colorize
    ? getAnsiColorFormatter({ ...common, categoryStyle: null })
    : getTextFormatter(common);
  return (entry: LogEntry): string => {
    // The entry's error first: it draws on the entry's budget of errors
    // before the properties do.
    let stack = "";
    let budget: ErrorBudget | undefined;
    if (entry.error !== undefined) {
      // The stack starts with "Name: message"; without one, that line is
      // written. Nested errors and causes follow.
      budget = entryErrorBudget();
      const lines: string[] = [];
      errorLines(serializeError(entry.error, budget), "", lines);
      stack = "\n    " + lines.join("\n    ");
    }
    let suffix = "";
    for (const _ in entry.properties) {
      // JSON escapes C0 characters; DEL and C1 ones are escaped here.
      suffix = " " +
        escapeControls(
          safeStringify(redactor.prepare(entry.properties, budget)),
        );
      break;
    }
    if (entry.requestId !== undefined) {
      suffix += " requestId=" + JSON.stringify(String(entry.requestId));
    }
    if (entry.traceId !== undefined && entry.spanId !== undefined) {
      // Ids from a custom logger could be anything: JSON-quote what is not
      // plain hex, so the line stays one line.
      suffix += " trace=" + plainId(entry.traceId) + " span=" +
        plainId(entry.spanId);
    }
    const message = String(entry.message);
    const record: KitRecord = {
      category: [entry.category],
      level: LEVEL_NAMES[entry.level] ?? "info",
      message: [message],
      rawMessage: message,
      timestamp: entry.timestamp.getTime(),
      properties: {},
      kit: { suffix, stack },
    };
    return formatter(record).replace(/\r?\n$/, "");
  };
}
