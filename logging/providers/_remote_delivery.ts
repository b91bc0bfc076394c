// How RemoteLogProvider makes one attempt at a batch: the POST with ky
// (redirects followed only within the endpoint's origin), a "log batch
// delivery" span, an OTLP answer's partialSuccess, and what a failure means
// for the retries. The batching, the bounds, the retries through the
// backoff and the unreachable-endpoint probe are the shared delivery queue's
// (internal/delivery/delivery_queue.ts).
//
// Logging keeps ky rather than internal/delivery/post_json.ts: its client options
// (hooks, headers, a custom fetch) are part of the provider's surface, and
// ky loads only when the first batch goes out.
import type { KyInstance, Options as KyOptions } from "ky";
import { type Clock, maskSecretText } from "../../core/mod.ts";
import type {
  DeliveryFailure,
  FailedBatch,
} from "../../internal/delivery/delivery_queue.ts";
import { parseRetryAfter } from "../../internal/delivery/retry_after.ts";
import {
  type ServerAttributes,
  serverAttributes,
} from "../../internal/telemetry/telemetry.ts";
import { partialSuccess } from "./_otlp.ts";
import { escapeControls } from "../_escape.ts";
import { followRedirect, RedirectNotFollowed } from "./_redirect.ts";
import { endDeliverySpan, runIn, startDeliverySpan } from "../_telemetry.ts";

/** `kit.log.provider` of the remote provider. */
export const PROVIDER = "remote";

// ky loads when the first batch goes out, so importing the logging package
// (whose remote provider most processes never start) does not load it. A
// failed import is tried again at the next attempt.
let kyModule: Promise<typeof import("ky")> | undefined;
// Once loaded, for telling its HTTPError apart.
let kyLoaded: typeof import("ky") | undefined;
function loadKy(): Promise<typeof import("ky")> {
  return kyModule ??= import("ky").then((ky) => kyLoaded = ky).catch(
    (error: unknown) => {
      kyModule = undefined;
      throw error;
    },
  );
}

/** "1 entry", "2 entries". */
export function entries(count: number): string {
  return count === 1 ? "1 entry" : `${count} entries`;
}

// ky's HTTPError and TimeoutError carry the request and the options, whose
// headers hold the API key; printing such an error (the default onError is
// console.error) would show it. A LogDeliveryError's cause is therefore a
// plain copy: name, message, stack and (copied the same way, a few levels
// deep) the cause, such as the socket error under a network failure.
function detach(error: unknown, depth = 0): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const cause = error.cause;
  const copy = cause !== undefined && depth < 3
    ? new Error(error.message, { cause: detach(cause, depth + 1) })
    : new Error(error.message);
  copy.name = error.name;
  if (error.stack !== undefined) copy.stack = error.stack;
  return copy;
}

/** Characters of a collector's reason for rejecting records shown at most. */
const MAX_REASON_CHARS = 200;

/**
 * What the provider reports when a collector took a batch but rejected
 * `rejected` of its `of` entries; the collector's own words are masked, cut
 * and escaped, since the default onError prints them on the console.
 */
export function rejectionMessage(
  endpoint: string,
  rejected: number,
  of: number,
  reason: string,
): string {
  const why = reason
    ? `: ${escapeControls(maskSecretText(reason).slice(0, MAX_REASON_CHARS))}`
    : "";
  return `RemoteLogProvider: ${endpoint} rejected ${
    entries(rejected)
  } of ${of}${why}`;
}

/** What the provider reports when the queue gave up on a batch. */
export function failureMessage(
  endpoint: string,
  { failure, error, attempts, items, probe }: FailedBatch,
): string {
  if (!failure.retriable) {
    return error instanceof RedirectNotFollowed
      ? `RemoteLogProvider: ${endpoint} ${error.message}; ${
        entries(items)
      } dropped`
      : `RemoteLogProvider: ${endpoint} answered ${failure.status}; ${
        entries(items)
      } dropped (not retried)`;
  }
  if (probe) {
    return `RemoteLogProvider: ${
      entries(items)
    } dropped: ${endpoint} is unreachable (a batch used up its retries and the next attempt failed too)`;
  }
  return `RemoteLogProvider: ${entries(items)} dropped after ${
    attempts === 1 ? "1 attempt" : `${attempts} attempts`
  }: ${failure.reason}`;
}

const RETRY_STATUSES: number[] = [408, 429];
for (let status = 500; status < 600; status++) RETRY_STATUSES.push(status);

/** What a {@linkcode RemoteSender} is given by its provider. */
export interface SenderSettings {
  readonly endpoint: string;
  /** The request timeout (ms); also bounds reading an OTLP answer. */
  readonly timeout: number;
  /** Retry-After dates are read against it. */
  readonly clock: Clock;
  readonly clientOptions: KyOptions;
  /** Whether answers are OTLP (their partialSuccess is read). */
  readonly otlp: boolean;
}

/** An answer that took the batch. */
export interface Accepted {
  readonly status: number;
  /** Records the collector rejected (OTLP partialSuccess). */
  readonly rejected: number;
  /** The collector's reason for rejecting them. */
  readonly message: string;
}

/** Makes the attempts at batches, one POST each. */
export class RemoteSender {
  readonly #settings: SenderSettings;
  readonly #server: ServerAttributes;
  #client: KyInstance | undefined;

  constructor(settings: SenderSettings) {
    this.#settings = settings;
    this.#server = serverAttributes(settings.endpoint);
  }

  /**
   * POSTs `body` (`size` items) once, with the batch's idempotency `key`.
   * Throws on a failure (see {@linkcode RemoteSender.prototype.classify}).
   */
  async attempt(
    body: string,
    size: number,
    attempt: number,
    key: string,
    signal: AbortSignal,
  ): Promise<Accepted> {
    const settings = this.#settings;
    let ky: typeof import("ky") | undefined;
    // One CLIENT span per POST; the POST itself runs where tracing is
    // suppressed (see startDeliverySpan).
    const delivery = startDeliverySpan(size, attempt - 1, this.#server);
    try {
      // Inside the try: a failed import of ky is a failed attempt, retried
      // and then counted as dropped like a network error.
      ky = await loadKy();
      const client = this.#client ??= ky.default.create(
        settings.clientOptions,
      );
      const response = await runIn(
        delivery.context,
        () => this.#send(client, ky!, body, signal, key),
      );
      // An OTLP collector may accept a batch in part: its answer's
      // partialSuccess counts the records it rejected.
      const partial = settings.otlp
        ? await partialSuccess(response, settings.timeout)
        : undefined;
      if (partial === undefined) {
        await response.body?.cancel().catch(() => {});
      }
      endDeliverySpan(delivery.span, response.status, undefined);
      return {
        status: response.status,
        rejected: partial?.rejected ?? 0,
        message: partial?.message ?? "",
      };
    } catch (error) {
      endDeliverySpan(delivery.span, statusOf(error, ky), error);
      if (ky !== undefined && error instanceof ky.HTTPError) {
        await error.response.body?.cancel().catch(() => {});
      }
      throw error;
    }
  }

  /**
   * What a failed attempt means: network errors, timeouts, 408, 429 and 5xx
   * are worth a retry (after the answer's Retry-After, read against the
   * clock, when it has one); another status is not. The reason holds no
   * header: the cause is a plain copy of the error.
   */
  classify(error: unknown): DeliveryFailure {
    const ky = kyLoaded;
    const status = statusOf(error, ky);
    const http = ky !== undefined && error instanceof ky.HTTPError
      ? error
      : undefined;
    return {
      retriable: status === undefined || RETRY_STATUSES.includes(status),
      status,
      retryAfterMs: http === undefined ? undefined : parseRetryAfter(
        http.response.headers.get("retry-after"),
        this.#settings.clock.now(),
      ),
      reason: error instanceof Error ? error.message : String(error),
      cause: detach(error),
    };
  }

  // One POST, following the collector's redirects within the endpoint's
  // origin (fetch follows none: see the client options); a redirect that is
  // not followed throws RedirectNotFollowed.
  async #send(
    client: KyInstance,
    ky: typeof import("ky"),
    body: string,
    signal: AbortSignal,
    key: string,
  ): Promise<Response> {
    let target = this.#settings.endpoint;
    for (let redirects = 0;; redirects++) {
      try {
        return await client.post(target, {
          body,
          signal,
          headers: { "idempotency-key": key },
        });
      } catch (error) {
        if (!(error instanceof ky.HTTPError)) throw error;
        const next = followRedirect(error.response, target, redirects);
        if (next === undefined) throw error;
        await error.response.body?.cancel().catch(() => {});
        if (typeof next !== "string") throw next;
        target = next;
      }
    }
  }
}

function statusOf(
  error: unknown,
  ky: typeof import("ky") | undefined,
): number | undefined {
  if (ky !== undefined && error instanceof ky.HTTPError) {
    return error.response.status;
  }
  return error instanceof RedirectNotFollowed ? error.status : undefined;
}
