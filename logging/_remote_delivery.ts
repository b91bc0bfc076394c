// How RemoteLogProvider sends one batch: the POST with ky, Kit's own retries
// (exponential backoff, Retry-After, the unreachable-endpoint probe), a
// "log batch delivery" span per attempt and the kit.log.records counts. The
// provider keeps the buffer and decides what goes in a batch.
import type { KyInstance, Options as KyOptions } from "ky";
import { type Clock, maskSecretText } from "../core/mod.ts";
import { randomId } from "../internal/random_id.ts";
import { retryDelay, sleep } from "../internal/backoff.ts";
import {
  type ServerAttributes,
  serverAttributes,
} from "../internal/telemetry.ts";
import { partialSuccess } from "./_otlp.ts";
import { escapeControls } from "./_escape.ts";
import { followRedirect, RedirectNotFollowed } from "./_redirect.ts";
import {
  countRecords,
  endDeliverySpan,
  runIn,
  startDeliverySpan,
} from "./_telemetry.ts";

/** `kit.log.provider` of the remote provider. */
export const PROVIDER = "remote";

// ky loads when the first batch goes out, so importing the logging package
// (whose remote provider most processes never start) does not load it. A
// failed import is tried again at the next attempt.
let kyModule: Promise<typeof import("ky")> | undefined;
function loadKy(): Promise<typeof import("ky")> {
  return kyModule ??= import("ky").catch((error: unknown) => {
    kyModule = undefined;
    throw error;
  });
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

const RETRY_STATUSES: number[] = [408, 429];
for (let status = 500; status < 600; status++) RETRY_STATUSES.push(status);

/**
 * Longest delay setTimeout accepts: a ref'd keep-alive while someone awaits
 * flush() or dispose() (the flush timer and the retry waits are unref'd).
 */
export const KEEP_ALIVE_MS = 2_147_483_647;

/** How one batch ended. */
export type Outcome = "sent" | "dropped" | "aborted" | "unreachable";

/** What a {@linkcode RemoteDelivery} is given by its provider. */
export interface DeliverySettings {
  readonly endpoint: string;
  /** The request timeout (ms); also bounds reading an OTLP answer. */
  readonly timeout: number;
  readonly maxRetries: number;
  readonly retryDelay: number;
  readonly maxRetryDelay: number;
  /** Runs the retry waits; Retry-After dates are read against it. */
  readonly clock: Clock;
  readonly clientOptions: KyOptions;
  /** Whether answers are OTLP (their partialSuccess is read). */
  readonly otlp: boolean;
  /** Drops entries: counts and reports them. */
  readonly drop: (
    count: number,
    message: string,
    status?: number,
    cause?: unknown,
  ) => void;
}

/** Sends batches, one at a time, with retries. */
export class RemoteDelivery {
  readonly #settings: DeliverySettings;
  readonly #server: ServerAttributes;
  #client: KyInstance | undefined;
  /** A batch used up its retries and none has gone through since. */
  unreachable = false;
  /** The last attempt failed. */
  failing = false;
  /** Failed attempts (checkHealth resets it). */
  failedAttempts = 0;

  constructor(settings: DeliverySettings) {
    this.#settings = settings;
    this.#server = serverAttributes(settings.endpoint);
  }

  /**
   * POSTs `body` (`size` items, of which `batchLength` are the batch's
   * entries, the rest a drop announcement) until it is delivered, refused,
   * out of retries or aborted. Entries it gives up on are dropped through
   * the settings' `drop`; it never throws.
   */
  async post(
    body: string,
    size: number,
    batchLength: number,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const settings = this.#settings;
    const endpoint = settings.endpoint;
    const probe = this.unreachable;
    // One key per batch, the same on every retry of it.
    const key = randomId();
    for (let attempt = 1;; attempt++) {
      let status: number | undefined;
      let retryAfter: string | null = null;
      let ky: typeof import("ky") | undefined;
      // One CLIENT span per POST; the POST itself runs where tracing is
      // suppressed (see startDeliverySpan).
      const delivery = startDeliverySpan(size, attempt - 1, this.#server);
      try {
        // Inside the try: a failed import of ky is a failed attempt,
        // retried and then counted as dropped like a network error.
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
        const rejected = Math.min(partial?.rejected ?? 0, batchLength);
        endDeliverySpan(delivery.span, response.status, undefined);
        countRecords(PROVIDER, "delivered", batchLength - rejected);
        this.unreachable = false;
        this.failing = false;
        if (rejected > 0) {
          // The collector's own words: masked, cut and escaped, since the
          // default onError prints them on the console.
          const why = partial?.message
            ? `: ${
              escapeControls(
                maskSecretText(partial.message).slice(0, MAX_REASON_CHARS),
              )
            }`
            : "";
          settings.drop(
            rejected,
            `RemoteLogProvider: ${endpoint} rejected ${
              entries(rejected)
            } of ${batchLength}${why}`,
            response.status,
          );
        }
        return "sent";
      } catch (error) {
        const httpError = ky !== undefined && error instanceof ky.HTTPError
          ? error
          : undefined;
        if (httpError !== undefined) status = httpError.response.status;
        const refused = error instanceof RedirectNotFollowed
          ? error
          : undefined;
        if (refused !== undefined) status = refused.status;
        endDeliverySpan(delivery.span, status, error);
        if (signal.aborted) return "aborted";
        this.failing = true;
        this.failedAttempts++;
        if (httpError !== undefined) {
          retryAfter = httpError.response.headers.get("retry-after");
          await httpError.response.body?.cancel().catch(() => {});
        }
        if (status !== undefined && !RETRY_STATUSES.includes(status)) {
          // The endpoint answered: it is reachable.
          this.unreachable = false;
          settings.drop(
            batchLength,
            refused !== undefined
              ? `RemoteLogProvider: ${endpoint} ${refused.message}; ${
                entries(batchLength)
              } dropped`
              : `RemoteLogProvider: ${endpoint} answered ${status}; ${
                entries(batchLength)
              } dropped (not retried)`,
            status,
            detach(error),
          );
          return "dropped";
        }
        if (probe) return "unreachable";
        if (attempt > settings.maxRetries) {
          this.unreachable = true;
          const reason = error instanceof Error ? error.message : String(error);
          settings.drop(
            batchLength,
            `RemoteLogProvider: ${entries(batchLength)} dropped after ${
              attempt === 1 ? "1 attempt" : `${attempt} attempts`
            }: ${reason}`,
            status,
            detach(error),
          );
          return "dropped";
        }
      }
      // Network errors, timeouts, 408, 429 and 5xx: wait, then send the same
      // batch again. Retry-After (capped by maxRetryDelay) replaces the
      // backoff, which has no jitter here: one provider sends one batch at
      // a time.
      countRecords(PROVIDER, "retried", batchLength);
      await sleep(
        settings.clock,
        retryDelay(
          attempt,
          {
            base: settings.retryDelay,
            max: settings.maxRetryDelay,
            jitter: 0,
          },
          retryAfter,
          settings.clock,
        ),
        signal,
      );
      if (signal.aborted) return "aborted";
    }
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
