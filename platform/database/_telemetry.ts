// The database's OpenTelemetry: a CLIENT span per statement with the
// database semantic conventions (db.system.name, db.namespace,
// db.query.text without values, db.operation.name, server.address and
// server.port, and db.response.status_code / error.type on failure), and the
// histogram db.client.operation.duration. With no SDK registered a
// statement costs two property reads (isOpenTelemetryRegistered) and the
// API is never loaded, as in Kit's other modules.
import type {
  Attributes,
  Histogram,
  MeterProvider,
  Span,
} from "@opentelemetry/api";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
  type OpenTelemetryApi,
} from "../../internal/telemetry/open_telemetry.ts";
import { createScopeTracer } from "../../internal/telemetry/scope_tracer.ts";
import { DatabaseError } from "./database_error.ts";
import { DatabaseQueryError } from "./database_query_error.ts";
import { loggedText, operationOf } from "./_statement.ts";

/** The instrumentation scope: the npm package's name. */
const SCOPE = "@vendor/kit-platform";

// Bucket boundaries the database conventions advise, in seconds.
const BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

const tracerOf = createScopeTracer(SCOPE);
let meterProvider: MeterProvider | undefined;
let duration: Histogram | undefined;

function durationOf(api: OpenTelemetryApi): Histogram | undefined {
  if (!isOpenTelemetryRegistered("metrics")) {
    meterProvider = undefined;
    return duration = undefined;
  }
  const provider = api.metrics.getMeterProvider();
  if (provider !== meterProvider) {
    meterProvider = provider;
    const meter = provider.getMeter(SCOPE);
    duration = meter === api.createNoopMeter()
      ? undefined
      : meter.createHistogram("db.client.operation.duration", {
        description: "Duration of database client operations.",
        unit: "s",
        advice: { explicitBucketBoundaries: BUCKETS },
      });
  }
  return duration;
}

/** The attributes every statement of one database shares. */
export interface DatabaseAttributes {
  readonly system: "postgresql";
  readonly namespace: string | undefined;
  readonly host: string | undefined;
  readonly port: number | undefined;
}

function errorType(error: unknown): string {
  if (error instanceof DatabaseQueryError && error.sqlState !== undefined) {
    return error.sqlState;
  }
  if (error instanceof DatabaseError) return error.name;
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" && name !== "" ? name : "_OTHER";
}

/** One statement's span and measurement, ended once. */
export interface StatementSpan {
  /** Ends the span and records the duration, with the error if any. */
  end(error?: unknown): void;
}

class StatementTelemetry implements StatementSpan {
  readonly #api: OpenTelemetryApi;
  readonly #span: Span | undefined;
  readonly #histogram: Histogram | undefined;
  readonly #attributes: Attributes;
  readonly #started: number;

  constructor(
    api: OpenTelemetryApi,
    text: string,
    database: DatabaseAttributes,
  ) {
    this.#api = api;
    const operation = operationOf(text);
    const attributes: Attributes = { "db.system.name": database.system };
    if (database.namespace !== undefined) {
      attributes["db.namespace"] = database.namespace;
    }
    if (operation !== undefined) attributes["db.operation.name"] = operation;
    if (database.host !== undefined) {
      attributes["server.address"] = database.host;
    }
    if (database.port !== undefined) attributes["server.port"] = database.port;
    this.#attributes = attributes;
    const tracer = tracerOf(api);
    if (tracer !== undefined) {
      const span = tracer.startSpan(
        operation === undefined
          ? database.system
          : database.namespace === undefined
          ? operation
          : `${operation} ${database.namespace}`,
        { kind: api.SpanKind.CLIENT },
        api.context.active(),
      );
      if (span.isRecording()) {
        span.setAttributes(attributes);
        span.setAttribute("db.query.text", loggedText(text));
      }
      this.#span = span;
    }
    this.#histogram = durationOf(api);
    this.#started = performance.now();
  }

  /** Ends the span and records the duration, with the error if any. */
  end(error?: unknown): void {
    const type = error === undefined ? undefined : errorType(error);
    const span = this.#span;
    if (span !== undefined) {
      if (type !== undefined) {
        span.setAttribute("error.type", type);
        if (error instanceof DatabaseQueryError && error.sqlState) {
          span.setAttribute("db.response.status_code", error.sqlState);
        }
        const message = error instanceof Error ? error.message : String(error);
        span.recordException({
          name: (error as { name?: string } | null)?.name ?? "Error",
          message,
        });
        span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message });
      }
      span.end();
    }
    const histogram = this.#histogram;
    if (histogram !== undefined) {
      histogram.record(
        (performance.now() - this.#started) / 1000,
        type === undefined
          ? this.#attributes
          : { ...this.#attributes, "error.type": type },
      );
    }
  }
}

/**
 * The telemetry of one statement, or `undefined` when no tracer or meter
 * provider is registered.
 *
 * @param text The statement.
 * @param database Its database's attributes.
 */
export function startStatement(
  text: string,
  database: DatabaseAttributes,
): StatementSpan | undefined {
  if (
    !isOpenTelemetryRegistered("trace") && !isOpenTelemetryRegistered("metrics")
  ) {
    return undefined;
  }
  return new StatementTelemetry(loadOpenTelemetryApi(), text, database);
}
