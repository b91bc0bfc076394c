// The "otlp" format of RemoteLogProvider: OTLP/HTTP JSON logs, as a
// collector's /v1/logs takes them (ExportLogsServiceRequest):
//
//   {"resourceLogs":[{"resource":{"attributes":[{"key":"service.name",
//     "value":{"stringValue":"orders"}}]},"scopeLogs":[{"scope":{"name":
//     "@vendor/kit-platform-logging"},"logRecords":[<record>,…]}]}]}
//
// One record per entry, serialized when it is logged (the buffer holds
// strings, as in the "json" format); the batch wraps them:
//
//   {"timeUnixNano":"1735787045678000000","observedTimeUnixNano":"…",
//    "severityNumber":9,"severityText":"INFO","body":{"stringValue":"…"},
//    "attributes":[{"key":"orderId","value":{"intValue":42}},
//      {"key":"kit.log.category","value":{"stringValue":"orders"}}, …],
//    "traceId":"4bf9…","spanId":"00f0…"}
//
// Values are encoded as the official JSON serializer of
// @opentelemetry/otlp-transformer encodes them: integers as intValue,
// other numbers as doubleValue, strings, booleans, arrays as arrayValue,
// objects as kvlistValue, bytes as base64 bytesValue, null as an empty value.
import type { LogEntry } from "../log_entry.ts";
import type { Redactor } from "../_redactor.ts";
import { entryErrorBudget, serializeError } from "../_serialize_error.ts";
import { safeStringify } from "../_format.ts";
import { LOGGING_SCOPE } from "../_telemetry.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { readBodyText } from "../../internal/bounded_body.ts";
import { readEnvironmentVariable } from "../../internal/settings/environment.ts";
import { LogProviderOptionError } from "./log_provider_option_error.ts";
import { checkOptions } from "./_options.ts";
import { REMOTE_RULES } from "./_rules.ts";

// OTLP SeverityNumber of debug, info, warning and error (DEBUG, INFO, WARN,
// ERROR: the first number of each range).
const SEVERITY_NUMBERS = [5, 9, 13, 17];
const SEVERITY_TEXTS = ['"DEBUG"', '"INFO"', '"WARN"', '"ERROR"'];

/** Attribute keys Kit writes itself; a property of the same key is left out. */
const RESERVED = new Set([
  "log.record.uid",
  "kit.log.category",
  "kit.request_id",
  "exception.type",
  "exception.message",
  "exception.stacktrace",
]);

const MAX_DEPTH = 64;

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) {
    binary += String.fromCharCode(bytes[i]);
  }
  return btoa(binary);
}

/** A value as an OTLP AnyValue (JSON text). */
function anyValue(value: unknown, depth = 0): string {
  switch (typeof value) {
    case "string":
      return '{"stringValue":' + JSON.stringify(value) + "}";
    case "number":
      if (Number.isInteger(value)) return '{"intValue":' + value + "}";
      // JSON has no NaN or Infinity: the proto3 JSON mapping spells them.
      return '{"doubleValue":' +
        (Number.isFinite(value)
          ? String(value)
          : JSON.stringify(String(value))) +
        "}";
    case "boolean":
      return '{"boolValue":' + value + "}";
    case "bigint":
      return '{"stringValue":"' + value.toString() + '"}';
    case "object": {
      if (value === null) return "{}";
      if (depth >= MAX_DEPTH) return '{"stringValue":"[Truncated]"}';
      if (value instanceof Uint8Array) {
        return '{"bytesValue":"' + base64(value) + '"}';
      }
      if (Array.isArray(value)) {
        return '{"arrayValue":{"values":[' +
          value.map((item) => anyValue(item, depth + 1)).join(",") + "]}}";
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
        let json: unknown;
        try {
          json = (value as { toJSON(): unknown }).toJSON();
        } catch (error) {
          json = `[unserializable: ${String(error)}]`;
        }
        return json === value ? "{}" : anyValue(json, depth + 1);
      }
      if (
        ArrayBuffer.isView(value) || value instanceof Map ||
        value instanceof Set
      ) {
        return '{"stringValue":' + JSON.stringify(safeStringify(value)) + "}";
      }
      const values: string[] = [];
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        values.push(
          keyValue(key, (value as Record<string, unknown>)[key], depth + 1),
        );
      }
      return '{"kvlistValue":{"values":[' + values.join(",") + "]}}";
    }
    default:
      // undefined, functions and symbols: an empty value, as the official
      // serializer writes them.
      return "{}";
  }
}

function keyValue(key: string, value: unknown, depth = 0): string {
  return '{"key":' + JSON.stringify(key) + ',"value":' +
    anyValue(value, depth) + "}";
}

function nanos(ms: number): string {
  // Dates have whole milliseconds.
  return Number.isFinite(ms) ? String(Math.trunc(ms)) + "000000" : "0";
}

/** Serializes entries as OTLP log records and wraps batches of them. */
export class OtlpFormatter {
  readonly #redactor: Redactor;
  readonly #head: string;

  constructor(redactor: Redactor, serviceName: string) {
    this.#redactor = redactor;
    this.#head = '{"resourceLogs":[{"resource":{"attributes":[' +
      keyValue("service.name", serviceName) +
      ']},"scopeLogs":[{"scope":{"name":' + JSON.stringify(LOGGING_SCOPE) +
      '},"logRecords":[';
  }

  /** One entry as an OTLP LogRecord (JSON), `id` as `log.record.uid`. */
  format(entry: LogEntry, id: string): string {
    const level = entry.level;
    const attributes: string[] = [];
    // The entry's error first: it draws on the entry's budget of errors
    // before the properties do.
    const budget = entry.error === undefined ? undefined : entryErrorBudget();
    const error = entry.error === undefined
      ? undefined
      : serializeError(entry.error, budget);
    const properties = this.#redactor.prepare(entry.properties, budget);
    for (const key in properties) {
      if (!Object.hasOwn(properties, key) || RESERVED.has(key)) continue;
      attributes.push(keyValue(key, properties[key]));
    }
    attributes.push(keyValue("kit.log.category", String(entry.category)));
    if (entry.requestId !== undefined) {
      attributes.push(keyValue("kit.request_id", String(entry.requestId)));
    }
    if (error !== undefined) {
      attributes.push(keyValue("exception.type", error.name));
      attributes.push(keyValue("exception.message", error.message));
      if (error.stack !== undefined) {
        attributes.push(keyValue("exception.stacktrace", error.stack));
      }
    }
    attributes.push(keyValue("log.record.uid", id));
    let record = '{"timeUnixNano":"' + nanos(entry.timestamp.getTime()) +
      '","observedTimeUnixNano":"' + nanos(Date.now()) +
      '","severityNumber":' + (SEVERITY_NUMBERS[level] ?? 9) +
      ',"severityText":' + (SEVERITY_TEXTS[level] ?? '"INFO"') +
      ',"body":{"stringValue":' + JSON.stringify(String(entry.message)) +
      '},"attributes":[' + attributes.join(",") + "]";
    if (entry.traceId !== undefined && entry.spanId !== undefined) {
      record += ',"traceId":' + JSON.stringify(String(entry.traceId)) +
        ',"spanId":' + JSON.stringify(String(entry.spanId));
    }
    return record + "}";
  }

  /** The request body of a batch of records. */
  body(records: readonly string[]): string {
    return this.#head + records.join(",") + "]}]}]}";
  }
}

/** `value` trimmed, or undefined when it is missing or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/**
 * The endpoint of an otlp provider given none: the OTLP exporters'
 * variables (a logs endpoint as is; a base endpoint gets /v1/logs).
 */
export function otlpEndpointFromEnvironment(): string {
  const logs = nonEmpty(
    readEnvironmentVariable("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"),
  );
  const base = nonEmpty(readEnvironmentVariable("OTEL_EXPORTER_OTLP_ENDPOINT"));
  const endpoint = logs ??
    (base === undefined ? undefined : base.replace(/\/+$/, "") + "/v1/logs");
  if (endpoint === undefined) {
    throw new LogProviderOptionError(
      "RemoteLogProvider",
      "endpoint",
      "is required (or set OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_LOGS_ENDPOINT)",
      undefined,
    );
  }
  const checked = checkOptions("RemoteLogProvider", REMOTE_RULES, {
    endpoint,
  }, ["endpoint"]);
  return checked.endpoint as string;
}

// Largest OTLP answer read for its partialSuccess.
const MAX_ANSWER_BYTES = 65_536;

// The partialSuccess of an OTLP answer (ExportLogsServiceResponse): how
// many records the collector rejected and why. Reads at most 64 KiB (Kit's
// bounded body reader) for at most `ms` ms; an answer that is empty, not
// JSON, larger or too slow counts as a full success. The body is always
// consumed or cancelled.
export async function partialSuccess(
  response: Response,
  ms: number,
): Promise<{ rejected: number; message: string }> {
  if (response.body === null) return { rejected: 0, message: "" };
  const late = new AbortController();
  const timer = unrefTimer(setTimeout(() => late.abort(), ms));
  try {
    const text = await readBodyText(response, {
      limit: MAX_ANSWER_BYTES,
      signal: late.signal,
    });
    const parsed = text.trim() === "" ? undefined : JSON.parse(text);
    const partial = parsed?.partialSuccess;
    const rejected = Number(partial?.rejectedLogRecords ?? 0);
    return {
      rejected: Number.isSafeInteger(rejected) && rejected > 0 ? rejected : 0,
      message: typeof partial?.errorMessage === "string"
        ? partial.errorMessage
        : "",
    };
  } catch {
    // Not JSON, larger than read, too slow, or the connection broke after
    // the status: delivered.
    return { rejected: 0, message: "" };
  } finally {
    clearTimeout(timer);
  }
}
