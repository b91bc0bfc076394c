// The options of RemoteLogProvider (re-exported by remote_log_provider.ts).
import type { Clock } from "../../core/mod.ts";
import type { LogLevel, LogLevelName } from "../log_level.ts";

/** The wire formats of {@linkcode RemoteLogProvider}. */
export type RemoteLogFormat = "json" | "otlp";

/** Options of {@linkcode RemoteLogProvider}. */
export interface RemoteLogProviderOptions {
  /**
   * The http(s) URL batches are POSTed to; in a browser a path relative to
   * the page (`/logs`) works too. Required, except with `format: "otlp"`,
   * where it defaults to `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT` (as is), else
   * `OTEL_EXPORTER_OTLP_ENDPOINT` followed by `/v1/logs`.
   */
  endpoint?: string | URL;
  /**
   * What a batch is: `"json"`, Kit's `{"entries":[…]}` (default), or
   * `"otlp"`, OTLP/HTTP JSON logs (an `ExportLogsServiceRequest`) for an
   * OpenTelemetry collector's `/v1/logs`.
   */
  format?: RemoteLogFormat;
  /**
   * With `format: "otlp"`, the `service.name` resource attribute. Default:
   * `OTEL_SERVICE_NAME`, else `"unknown_service"`. Ignored by `"json"`.
   */
  serviceName?: string;
  /** Sent in the `X-API-Key` header (never in the URL). Default: none. */
  apiKey?: string;
  /** A batch is sent as soon as this many entries are buffered. Default 100. */
  batchSize?: number;
  /** Whatever is buffered is sent at most this many ms after it was logged. Default 5000. */
  flushInterval?: number;
  /**
   * Most entries kept waiting (not counting the batch in flight). When full,
   * the oldest waiting entry is dropped for each new one; drops are counted
   * in `dropped`, reported to `onError` and to the endpoint. Default 10000.
   */
  maxBufferSize?: number;
  /**
   * Retries of a batch after a network error, a timeout, a 5xx or a 429.
   * Other statuses (401, 400…) are not retried. Default 5.
   */
  maxRetries?: number;
  /** First backoff delay in ms; it doubles per retry. Default 1000. */
  retryDelay?: number;
  /**
   * Cap of one backoff delay, and of a `Retry-After` wait, in ms.
   * Default 30000.
   */
  maxRetryDelay?: number;
  /** Time limit of one request in ms. Default 10000. */
  timeout?: number;
  /** Lowest level this provider sends. Default `debug` (all). */
  level?: LogLevel | LogLevelName;
  /** Keys to mask besides the defaults (see `DEFAULT_REDACTED_KEYS`). */
  redactKeys?: readonly (string | RegExp)[];
  /**
   * Receives a {@linkcode LogDeliveryError} whenever entries are dropped or a
   * batch is refused. Default: `console.error`.
   */
  onError?: (error: Error) => void;
  /**
   * The clock the `flushInterval` timer and the waits between retries run
   * on. Default `systemClock` (real time, unref'd timers). A test gives the
   * test kit's `FakeClock` and moves time with `clock.advance(ms)`; the
   * `timeout` of a request stays on real time, as the request does. Not
   * read from configuration.
   */
  clock?: Clock;
}
