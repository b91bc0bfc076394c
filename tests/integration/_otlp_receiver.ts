// A loopback OTLP/HTTP receiver for the telemetry tests: it accepts the JSON
// encoding (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) on /v1/traces,
// /v1/metrics and /v1/logs, answers `{}`, and decodes what arrived into
// flat spans and metric points, each with its resource's `service.name`.
import { sendJson, startTestServer } from "../_support/http_server.ts";

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
interface OtlpResource {
  attributes?: OtlpKeyValue[];
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpKeyValue[];
  events?: { name: string }[];
  status?: { code?: number; message?: string };
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: OtlpResource;
    scopeSpans?: { scope?: { name: string }; spans?: OtlpSpan[] }[];
  }[];
}
interface OtlpNumberPoint {
  attributes?: OtlpKeyValue[];
  asInt?: string | number;
  asDouble?: number;
}
interface OtlpHistogramPoint {
  attributes?: OtlpKeyValue[];
  count?: string | number;
  sum?: number;
}
interface OtlpMetric {
  name: string;
  unit?: string;
  sum?: { dataPoints?: OtlpNumberPoint[] };
  gauge?: { dataPoints?: OtlpNumberPoint[] };
  histogram?: { dataPoints?: OtlpHistogramPoint[] };
}
interface OtlpMetrics {
  resourceMetrics?: {
    resource?: OtlpResource;
    scopeMetrics?: { scope?: { name: string }; metrics?: OtlpMetric[] }[];
  }[];
}

/** A span as received, decoded. Kinds are OTLP's: 1 internal, 2 server, 3 client. */
export interface ReceivedSpan {
  service: string;
  scope: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, string | number | boolean>;
  status: { code: number; message?: string };
  events: string[];
}

/** A metric point as received, decoded. */
export interface ReceivedPoint {
  service: string;
  scope: string;
  name: string;
  unit?: string;
  attributes: Record<string, string | number | boolean>;
  value?: number;
  count?: number;
  sum?: number;
}

/** The running receiver. */
export interface OtlpReceiver {
  readonly url: string;
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  /**
   * The metric points of each service's newest export (exports are
   * cumulative: the newest holds the totals).
   */
  points(): ReceivedPoint[];
  close(): Promise<void>;
}

function valueOf(value: OtlpAnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return "";
}

function attributesOf(
  list: OtlpKeyValue[] | undefined,
): Record<string, string | number | boolean> {
  return Object.fromEntries(
    (list ?? []).map((entry) => [entry.key, valueOf(entry.value)]),
  );
}

function serviceOf(resource: OtlpResource | undefined): string {
  return String(attributesOf(resource?.attributes)["service.name"] ?? "");
}

// OTLP/JSON writes ids as hex; some encoders write base64: accept both.
function hexId(id: string | undefined): string | undefined {
  if (id === undefined || id === "") return undefined;
  if (/^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  const bytes = atob(id);
  let hex = "";
  for (let i = 0; i < bytes.length; i++) {
    hex += bytes.charCodeAt(i).toString(16).padStart(2, "0");
  }
  return hex;
}

/** Starts a receiver on 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  // Per service, scope and metric, the points of the newest export.
  const latest = new Map<string, ReceivedPoint[]>();
  const server = await startTestServer((request, response) => {
    if (request.method !== "POST") {
      sendJson(response, 404, {});
      return;
    }
    const body = request.body === "" ? {} : JSON.parse(request.body);
    if (request.url.endsWith("/v1/traces")) {
      for (const resource of (body as OtlpTraces).resourceSpans ?? []) {
        const service = serviceOf(resource.resource);
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              scope: scope.scope?.name ?? "",
              name: span.name,
              kind: span.kind,
              traceId: hexId(span.traceId)!,
              spanId: hexId(span.spanId)!,
              parentSpanId: hexId(span.parentSpanId),
              attributes: attributesOf(span.attributes),
              status: {
                code: span.status?.code ?? 0,
                message: span.status?.message,
              },
              events: (span.events ?? []).map((event) => event.name),
            });
          }
        }
      }
    } else if (request.url.endsWith("/v1/metrics")) {
      for (const resource of (body as OtlpMetrics).resourceMetrics ?? []) {
        const service = serviceOf(resource.resource);
        for (const scope of resource.scopeMetrics ?? []) {
          for (const metric of scope.metrics ?? []) {
            const points: ReceivedPoint[] = [];
            const base = {
              service,
              scope: scope.scope?.name ?? "",
              name: metric.name,
              unit: metric.unit,
            };
            for (
              const point of [
                ...(metric.sum?.dataPoints ?? []),
                ...(metric.gauge?.dataPoints ?? []),
              ]
            ) {
              points.push({
                ...base,
                attributes: attributesOf(point.attributes),
                value: point.asDouble ?? Number(point.asInt),
              });
            }
            for (const point of metric.histogram?.dataPoints ?? []) {
              points.push({
                ...base,
                attributes: attributesOf(point.attributes),
                count: Number(point.count),
                sum: point.sum,
              });
            }
            latest.set(`${service}|${base.scope}|${metric.name}`, points);
          }
        }
      }
    }
    sendJson(response, 200, {});
  });
  return {
    url: server.url,
    spans: () => [...spans],
    points: () => [...latest.values()].flat(),
    close: () => server.close(),
  };
}
