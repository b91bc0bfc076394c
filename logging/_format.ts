// Kit's JSON shape of an entry, shared by the console ("json" format), the
// file and the remote provider, so every destination carries the same record:
//
//   {"timestamp":"2025-01-02T03:04:05.678Z","level":"info","category":"orders",
//    "message":"Order placed","properties":{"orderId":42},
//    "requestId":"r-1","traceId":"4bf9…","spanId":"00f0…",
//    "error":{"name":"Error","message":"…","stack":"…"}}
//
// `requestId`, `traceId`/`spanId` and `error` appear only when the entry has
// them.
import type { LogEntry } from "./log_entry.ts";
import type { LogLevelName } from "./log_level.ts";
import type { Redactor } from "./_redactor.ts";
import {
  entryErrorBudget,
  type ErrorBudget,
  serializeError,
} from "./_serialize_error.ts";
import { escapeJsonControls } from "./_escape.ts";

export const LEVEL_NAMES: readonly LogLevelName[] = [
  "debug",
  "info",
  "warning",
  "error",
];

let cachedSecond = Number.NaN;
let cachedPrefix = "";

/**
 * `Date.prototype.toISOString` is slow next to the rest of writing an entry,
 * and entries made within the same second share the `YYYY-MM-DDTHH:MM:SS.`
 * prefix, so the prefix is built once per second and only the milliseconds
 * are formatted per entry.
 */
export function isoTimestamp(ms: number): string {
  if (!Number.isFinite(ms)) return "Invalid Date";
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    const iso = new Date(second * 1000).toISOString();
    // Years beyond 9999 have a longer prefix; format those in full.
    if (iso.length !== 24) return new Date(ms).toISOString();
    cachedSecond = second;
    cachedPrefix = iso.slice(0, 20);
  }
  const milli = ms - second * 1000;
  return cachedPrefix +
    (milli < 10 ? "00" + milli : milli < 100 ? "0" + milli : milli) + "Z";
}

/** JSON.stringify that survives cycles and throwing getters. */
export function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    const seen = new WeakSet<object>();
    try {
      return JSON.stringify(value, (_key, item: unknown) => {
        if (typeof item === "bigint") return item.toString();
        if (typeof item === "object" && item !== null) {
          if (seen.has(item)) return "[Circular]";
          seen.add(item);
        }
        return item;
      }) ?? "null";
    } catch (error) {
      return JSON.stringify(`[unserializable: ${String(error)}]`);
    }
  }
}

/** Formats entries as Kit JSON objects; category strings are cached. */
export class JsonFormatter {
  readonly #redactor: Redactor;
  readonly #categories = new Map<string, string>();

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  /** The properties, masked and ready for JSON. */
  properties(entry: LogEntry): Record<string, unknown> {
    return this.#redactor.prepare(entry.properties);
  }

  /** One entry as a JSON object, without a line break. */
  format(entry: LogEntry): string {
    let category = this.#categories.get(entry.category);
    if (category === undefined) {
      category = JSON.stringify(entry.category);
      if (this.#categories.size < 1024) {
        this.#categories.set(entry.category, category);
      }
    }
    // The entry's error first: it draws on the entry's budget of errors
    // before the properties do.
    let error = "";
    let budget: ErrorBudget | undefined;
    if (entry.error !== undefined) {
      budget = entryErrorBudget();
      error = ',"error":' + safeStringify(serializeError(entry.error, budget));
    }
    let properties = "{}";
    for (const _ in entry.properties) {
      properties = safeStringify(
        this.#redactor.prepare(entry.properties, budget),
      );
      break;
    }
    let line = '{"timestamp":"' + isoTimestamp(entry.timestamp.getTime()) +
      '","level":"' + LEVEL_NAMES[entry.level] + '","category":' + category +
      ',"message":' + JSON.stringify(String(entry.message)) +
      ',"properties":' + properties;
    if (entry.requestId !== undefined) {
      line += ',"requestId":' + JSON.stringify(String(entry.requestId));
    }
    if (entry.traceId !== undefined && entry.spanId !== undefined) {
      line += ',"traceId":' + JSON.stringify(String(entry.traceId)) +
        ',"spanId":' + JSON.stringify(String(entry.spanId));
    }
    line += error;
    // JSON.stringify leaves DEL and C1 characters raw: escaped too, so a
    // JSON line printed on a terminal cannot drive it either.
    return escapeJsonControls(line + "}");
  }
}
