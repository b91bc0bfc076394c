import type { Options as KyOptions } from "ky";
import { deadlineSignal, type DisposeOptions } from "../../core/mod.ts";
import { readEnvironmentVariable } from "../../internal/settings/environment.ts";
import type { HealthCheckResult } from "../../platform/mod.ts";
import type { LogEntry } from "../log_entry.ts";
import { LogLevel } from "../log_level.ts";
import type { RemoteLogProviderOptions } from "./remote_log_provider_options.ts";
export type {
  RemoteLogFormat,
  RemoteLogProviderOptions,
} from "./remote_log_provider_options.ts";
import type { ILogProvider } from "./log_provider.ts";
import { LogDeliveryError } from "./log_delivery_error.ts";
import { checkOptions, type Rules } from "./_options.ts";
import { REMOTE_RULES } from "./_rules.ts";
import { Redactor } from "../_redactor.ts";
import { JsonFormatter } from "../_format.ts";
import { RESOLVED } from "./_resolved.ts";
import { type Clock, systemClock } from "../../core/mod.ts";
import { randomId } from "../../internal/random_id.ts";
import { registerForExit, unregisterForExit } from "../_exit_registry.ts";
import type { ExitHooks } from "#logging/exit";
import {
  nonEmpty,
  otlpEndpointFromEnvironment,
  OtlpFormatter,
} from "./_otlp.ts";
import { countRecords } from "../_telemetry.ts";
import {
  entries,
  failureMessage,
  PROVIDER,
  rejectionMessage,
  RemoteSender,
} from "./_remote_delivery.ts";
import {
  DeliveryQueue,
  type FailedBatch,
} from "../../internal/delivery/delivery_queue.ts";

// One batch's request, the same on every attempt: the body (with the drop
// announcement it carries) and the idempotency key.
interface Prepared {
  readonly batch: readonly string[];
  readonly body: string;
  readonly size: number;
  readonly announced: number;
  readonly key: string;
}

/** `service.name` when neither `serviceName` nor `OTEL_SERVICE_NAME` is set. */
const DEFAULT_SERVICE_NAME = "unknown_service";

// The options given in code: those of configuration, and the clock.
const CODE_RULES: Rules = { ...REMOTE_RULES, clock: { kind: "clock" } };

// How long the flush started when a script ends without dispose() may take.
const EXIT_FLUSH_TIMEOUT = 2_000;

function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/**
 * Buffers entries and POSTs them as JSON batches:
 *
 * ```http
 * POST <endpoint>
 * Content-Type: application/json
 * X-API-Key: <apiKey>
 * Idempotency-Key: <one UUID per batch, the same on every retry>
 *
 * {"entries":[{"id":"…","timestamp":"…","level":"info","category":"app","message":"…","properties":{}}, …]}
 * ```
 *
 * Every entry carries an `id` (a UUID given when it is logged) and every
 * batch an `Idempotency-Key`, both unchanged across retries, so a collector
 * can drop the duplicates a retry produces (a batch that arrived but whose
 * answer was lost is sent again).
 *
 * A batch goes out when `batchSize` entries are buffered, and whatever is
 * buffered goes out `flushInterval` ms after it was logged (the timer is
 * unref'd: it never keeps the process alive). One batch is in flight at a
 * time, so entries arrive in order. A network error, a timeout, a 5xx or a
 * 429 is retried up to `maxRetries` times with exponential backoff
 * (`retryDelay` doubling, capped by `maxRetryDelay`), honouring
 * `Retry-After`; a 401 or another 4xx is not retried. Once a batch has used
 * up its retries the endpoint counts as unreachable: the next batch is sent
 * once, as a probe, and when the probe fails too, everything the current
 * flush was sending is dropped at once instead of each batch waiting through
 * its own retries. The first batch that gets through ends this.
 *
 * Entries that cannot be delivered, or that overflow the bounded buffer, are
 * counted in `dropped`, reported to `onError`, and announced to the endpoint
 * by a `warning` entry of category `kit.logging` with `properties.dropped` in
 * the next batch that gets through. `flush()` and `dispose()` send everything
 * buffered before they return; given a `signal` or a `timeout`, they stop
 * when it fires, and what was not delivered is dropped, counted and reported
 * once.
 *
 * A script that ends without `dispose()` still gets its entries out: when
 * the event loop runs empty (`beforeExit` in Node.js and Bun,
 * `beforeunload` in Deno) the provider starts a flush bounded to 2 seconds,
 * and when the process exits with entries still undelivered (after that
 * bound, or on `process.exit()` / `Deno.exit()`) it counts them as dropped
 * and writes their number on stderr.
 *
 * With `format: "otlp"`, batches are OTLP/HTTP JSON logs for an
 * OpenTelemetry collector's `/v1/logs` (an `ExportLogsServiceRequest`: the
 * resource's `service.name` from `serviceName`, one log record per entry with
 * its severity, message as `body`, properties, category, request id and error
 * as attributes, and the trace and span ids of the span active when it was
 * logged); the endpoint defaults to `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/logs`.
 *
 * Each POST is traced as a CLIENT span `log batch delivery`, and entries
 * delivered, retried and dropped are counted in the counter
 * `kit.log.records`, through `@opentelemetry/api` (no-ops until an
 * OpenTelemetry SDK is registered).
 *
 * Requests are made with `ky` (over `fetch`), so the provider works in
 * browsers, Deno, Node.js and Bun.
 *
 * @example Usage
 * ```ts
 * import { LoggerManager, RemoteLogProvider } from "@vendor/kit/logging";
 *
 * const manager = new LoggerManager().configure({
 *   level: "info",
 *   providers: [
 *     new RemoteLogProvider({
 *       endpoint: "https://logs.example.com/ingest",
 *       apiKey: "<API_KEY>",
 *       batchSize: 100,
 *       flushInterval: 5000,
 *     }),
 *   ],
 * });
 * await manager.dispose({ timeout: 5_000 });
 * ```
 *
 * @example To an OpenTelemetry collector
 * ```ts
 * import { LoggerManager, RemoteLogProvider } from "@vendor/kit/logging";
 *
 * const manager = new LoggerManager().configure({
 *   level: "info",
 *   providers: [
 *     new RemoteLogProvider({
 *       format: "otlp",
 *       endpoint: "http://localhost:4318/v1/logs",
 *       serviceName: "orders",
 *     }),
 *   ],
 * });
 * await manager.dispose({ timeout: 5_000 });
 * ```
 */
export class RemoteLogProvider implements ILogProvider {
  readonly #endpoint: string;
  readonly #level: LogLevel;
  readonly #json: JsonFormatter;
  readonly #otlp: OtlpFormatter | undefined;
  readonly #onError: (error: Error) => void;
  readonly #exitHooks: ExitHooks;
  readonly #sender: RemoteSender;
  readonly #queue: DeliveryQueue<string>;
  readonly #maxBufferSize: number;

  #disposed = false;
  #dropped = 0;
  // Dropped but not yet announced to the endpoint.
  #unreported = 0;
  // The batch being sent.
  #prepared: Prepared | undefined;
  // What is flushing, for the report of a flush stopped by its signal.
  #what = "flush()";
  // For checkHealth: `dropped` and failed attempts at the last check.
  #droppedAtCheck = 0;
  #failedAtCheck = 0;
  #exitFlushing = false;

  /**
   * Creates the provider. Nothing is sent until entries arrive.
   *
   * @param options See {@linkcode RemoteLogProviderOptions}.
   * @throws {LogProviderOptionError} When `endpoint` is missing (with
   * `format: "otlp"`, when the `OTEL_EXPORTER_OTLP_*` variables do not give
   * one either) or not an http(s) URL, or another option is unknown or
   * invalid.
   */
  constructor(options: RemoteLogProviderOptions) {
    const otlp = (options as { format?: unknown } | undefined)?.format ===
      "otlp";
    const checked = checkOptions(
      "RemoteLogProvider",
      CODE_RULES,
      options,
      otlp ? [] : ["endpoint"],
    );
    const number = (name: string, fallback: number): number =>
      (checked[name] as number | undefined) ?? fallback;
    this.#endpoint = (checked.endpoint as string | undefined) ??
      otlpEndpointFromEnvironment();
    const clock = (checked.clock as Clock | undefined) ?? systemClock;
    this.#maxBufferSize = number("maxBufferSize", 10_000);
    this.#level = (checked.level as LogLevel | undefined) ?? LogLevel.Debug;
    this.#onError = (checked.onError as ((error: Error) => void) | undefined) ??
      ((error) => globalThis.console.error(error));
    const redactor = new Redactor(
      checked.redactKeys as readonly (string | RegExp)[] | undefined,
    );
    this.#json = new JsonFormatter(redactor);
    this.#otlp = otlp
      ? new OtlpFormatter(
        redactor,
        (checked.serviceName as string | undefined) ??
          nonEmpty(readEnvironmentVariable("OTEL_SERVICE_NAME")) ??
          DEFAULT_SERVICE_NAME,
      )
      : undefined;
    const headers: Record<string, string> = {
      "content-type": "application/json",
    };
    if (checked.apiKey !== undefined) {
      headers["x-api-key"] = checked.apiKey as string;
    }
    const clientOptions: KyOptions = {
      headers,
      timeout: number("timeout", 10_000),
      throwHttpErrors: true,
      // Retries are Kit's own (see RemoteDelivery): ky's waits are ref'd
      // timers that would keep a process alive after its script ended.
      retry: 0,
      // The key must not travel to another origin: RemoteDelivery follows a
      // redirect itself, and only within the endpoint's origin.
      redirect: "manual",
    };
    this.#sender = new RemoteSender({
      endpoint: this.#endpoint,
      timeout: number("timeout", 10_000),
      clock,
      clientOptions,
      otlp,
    });
    this.#queue = new DeliveryQueue<string>({
      batchSize: number("batchSize", 100),
      flushInterval: number("flushInterval", 5000),
      maxQueueSize: this.#maxBufferSize,
      maxRetries: number("maxRetries", 5),
      retryDelay: number("retryDelay", 1000),
      maxRetryDelay: number("maxRetryDelay", 30_000),
      clock,
      // One batch in flight, so entries arrive in order; no jitter, as one
      // provider sends one batch at a time.
      maxConcurrentRequests: 1,
      jitter: 0,
      // A full buffer drops the oldest entries; its warning is given again
      // only after a batch got through.
      overflow: "drop-oldest",
      overflowEndsOn: "delivery",
      // While the endpoint is unreachable a failed probe drops the rest of
      // the flush at once, an idle provider still knows it is unreachable,
      // and a stopped flush drops everything undelivered.
      afterFailedProbe: "drop-waiting",
      forgetOutageWhenIdle: false,
      abandon: "all",
      send: (batch, signal, attempt) => this.#send(batch, signal, attempt),
      classify: (error) => this.#sender.classify(error),
      count: (outcome, count) => {
        if (outcome === "dropped") {
          this.#dropped += count;
          this.#unreported += count;
        }
        countRecords(PROVIDER, outcome, count);
      },
      onOverflow: () =>
        this.#report(
          new LogDeliveryError(
            "RemoteLogProvider",
            `RemoteLogProvider: buffer full (maxBufferSize ${this.#maxBufferSize}); oldest entries are being dropped`,
            1,
          ),
        ),
      onFailed: (failed) => this.#failed(failed),
      onAbandoned: (count, reason) =>
        this.#reportDrop(
          count,
          `RemoteLogProvider: ${
            entries(count)
          } dropped: ${this.#what} stopped (${
            reasonText(reason)
          }) before ${this.#endpoint} took them`,
        ),
    });
    this.#exitHooks = {
      beforeExit: () => this.#beforeExit(),
      exit: () => this.#exit(),
    };
  }

  /** Entries dropped so far (buffer overflow, refused or failed batches). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Entries buffered and not yet sent. */
  get buffered(): number {
    return this.#queue.queued;
  }

  /**
   * Buffers the entry (giving it its `id`); sends a batch when `batchSize`
   * is reached.
   *
   * @param entry The entry.
   * @returns A settled promise; use `flush()` to wait for delivery.
   */
  log(entry: LogEntry): Promise<void> {
    if (this.#disposed) {
      this.#queue.drop(1);
      this.#reportDrop(
        1,
        "RemoteLogProvider: 1 entry dropped: logged after dispose()",
      );
      return RESOLVED;
    }
    let json: string;
    try {
      json = this.#serialize(entry);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#queue.queued === 0) registerForExit(this.#exitHooks);
    this.#queue.enqueue(json);
    return RESOLVED;
  }

  /**
   * Tells whether entries of a level are sent.
   *
   * @param level A level.
   * @returns `true` from the provider's `level` up, until disposed.
   */
  isEnabled(level: LogLevel): boolean {
    return !this.#disposed && level >= this.#level;
  }

  /**
   * Sends everything buffered (in batches of `batchSize`), retrying as
   * configured.
   *
   * @param options `signal` and/or `timeout` (ms): when either fires,
   * retries stop and everything not yet delivered is dropped, counted and
   * reported once; the call still resolves.
   * @returns A promise that settles when the buffer is empty and no batch is
   * in flight; entries that could not be delivered are counted as dropped.
   * @throws {RangeError} When `timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { RemoteLogProvider } from "@vendor/kit/logging";
   *
   * const remote = new RemoteLogProvider({ endpoint: "https://logs.example.com/ingest" });
   * await remote.flush({ timeout: 2_000 });
   * ```
   */
  flush(options?: DisposeOptions): Promise<void> {
    return this.#deliver(deadlineSignal(options), "flush()");
  }

  /**
   * Stops the timer and sends everything buffered before it returns.
   * Entries logged afterwards are dropped and reported.
   *
   * @param options `signal` and/or `timeout` (ms): when either fires,
   * retries stop and everything not yet delivered is dropped, counted and
   * reported once; the call still resolves.
   * @returns A promise that settles when the last batch is delivered (or
   * given up on).
   * @throws {RangeError} When `timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { RemoteLogProvider } from "@vendor/kit/logging";
   *
   * const remote = new RemoteLogProvider({ endpoint: "https://logs.example.com/ingest" });
   * await remote.dispose({ timeout: 5_000 });
   * ```
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    const signal = deadlineSignal(options);
    this.#queue.stop();
    await this.#deliver(signal, "dispose()");
    this.#disposed = true;
    this.#queue.stop();
    unregisterForExit(this.#exitHooks);
    if (this.#unreported > 0) {
      const count = this.#unreported;
      this.#unreported = 0;
      this.#report(
        new LogDeliveryError(
          "RemoteLogProvider",
          `RemoteLogProvider: ${count} dropped entries could not be announced to ${this.#endpoint}`,
          0,
        ),
      );
    }
  }

  /**
   * Same as {@linkcode RemoteLogProvider.prototype.dispose}, for
   * `await using`.
   *
   * @returns A promise that settles when the provider is closed.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  /**
   * Reports how delivery goes: `degraded` while deliveries fail (the last
   * attempt failed) or when entries were dropped since the previous check,
   * else `healthy`. The detail counts entries dropped and attempts failed
   * since the previous check, and entries buffered; it never holds the API
   * key.
   *
   * @returns The status with `{ dropped, failed, buffered }`.
   *
   * @example Usage
   * ```ts
   * import { RemoteLogProvider } from "@vendor/kit/logging";
   *
   * const remote = new RemoteLogProvider({ endpoint: "https://logs.example.com/ingest" });
   * console.log(remote.checkHealth().status); // "healthy"
   * ```
   */
  checkHealth(): HealthCheckResult {
    const dropped = this.#dropped - this.#droppedAtCheck;
    const { failedAttempts, failing } = this.#queue.state;
    const failed = failedAttempts - this.#failedAtCheck;
    this.#droppedAtCheck = this.#dropped;
    this.#failedAtCheck = failedAttempts;
    return {
      status: failing || dropped > 0 ? "degraded" : "healthy",
      detail: { dropped, failed, buffered: this.buffered },
    };
  }

  #serialize(entry: LogEntry): string {
    if (this.#otlp !== undefined) return this.#otlp.format(entry, randomId());
    // The id goes first, before the shared JSON shape.
    return '{"id":"' + randomId() + '",' + this.#json.format(entry).slice(1);
  }

  // Flushes until nothing is buffered or in flight (entries logged during
  // the flush go too), or until the signal fires.
  async #deliver(signal: AbortSignal | undefined, what: string): Promise<void> {
    const queue = this.#queue;
    do {
      this.#what = what;
      await queue.flush({ signal });
    } while (queue.queued + queue.inFlight > 0 && !signal?.aborted);
  }

  // One attempt at a batch: the same body and key on every attempt, with
  // the announcement of entries dropped before it.
  async #send(
    batch: readonly string[],
    signal: AbortSignal,
    attempt: number,
  ): Promise<ReadonlySet<number> | void> {
    let prepared = this.#prepared;
    if (prepared?.batch !== batch) {
      const announced = this.#unreported;
      const items = announced > 0
        ? [this.#dropEntry(announced), ...batch]
        : batch;
      prepared = this.#prepared = {
        batch,
        body: this.#otlp !== undefined
          ? this.#otlp.body(items)
          : '{"entries":[' + items.join(",") + "]}",
        size: items.length,
        announced,
        key: randomId(),
      };
    }
    const accepted = await this.#sender.attempt(
      prepared.body,
      prepared.size,
      attempt,
      prepared.key,
      signal,
    );
    // The drop entry went through with the batch.
    this.#unreported -= prepared.announced;
    this.#prepared = undefined;
    const rejected = Math.min(accepted.rejected, batch.length);
    if (rejected === 0) return;
    this.#reportDrop(
      rejected,
      rejectionMessage(
        this.#endpoint,
        rejected,
        batch.length,
        accepted.message,
      ),
      accepted.status,
    );
    const indices = new Set<number>();
    for (let i = batch.length - rejected; i < batch.length; i++) {
      indices.add(i);
    }
    return indices;
  }

  // The queue gave up on a batch: refused, out of retries, or (while the
  // endpoint is unreachable) a failed probe with the rest of the flush.
  #failed(failed: FailedBatch): void {
    this.#prepared = undefined;
    const { failure, items, probe } = failed;
    const message = failureMessage(this.#endpoint, failed);
    if (probe && failure.retriable) this.#reportDrop(items, message);
    else this.#reportDrop(items, message, failure.status, failure.cause);
  }

  // The event loop ran empty with entries undelivered (no dispose() was
  // awaited): start a bounded flush, which keeps the process alive.
  #beforeExit(): boolean {
    if (this.#disposed || this.#exitFlushing) return false;
    if (this.#queue.queued + this.#queue.inFlight === 0) return false;
    this.#exitFlushing = true;
    this.flush({ timeout: EXIT_FLUSH_TIMEOUT }).finally(() => {
      this.#exitFlushing = false;
    });
    return true;
  }

  // The process ends now: count and tell what is lost.
  #exit(): void {
    if (this.#disposed) return;
    const count = this.#queue.discard();
    if (count === 0) return;
    this.#dropped += count;
    countRecords(PROVIDER, "dropped", count);
    try {
      globalThis.console.error(
        `RemoteLogProvider: ${
          entries(count)
        } not delivered to ${this.#endpoint}: the process exited before they were sent (await dispose() before exiting)`,
      );
    } catch {
      // Nothing more can be done at exit.
    }
  }

  #dropEntry(count: number): string {
    return this.#serialize({
      timestamp: new Date(),
      level: LogLevel.Warning,
      category: "kit.logging",
      message: `RemoteLogProvider dropped ${count} log entries`,
      properties: { dropped: count },
    });
  }

  // Reports entries dropped (the queue counted them).
  #reportDrop(
    count: number,
    message: string,
    status?: number,
    cause?: unknown,
  ): void {
    this.#report(
      new LogDeliveryError(
        "RemoteLogProvider",
        message,
        count,
        status,
        cause === undefined ? undefined : { cause },
      ),
    );
  }

  #report(error: Error): void {
    try {
      this.#onError(error);
    } catch {
      // A failing error handler must not break logging.
    }
  }
}
