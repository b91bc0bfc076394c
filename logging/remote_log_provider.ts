import ky, { HTTPError } from "ky";
import { parseRetryAfter, unrefTimer } from "../core/mod.ts";
import type { LogEntry } from "./log_entry.ts";
import { LogLevel, type LogLevelName } from "./log_level.ts";
import type { ILogProvider } from "./log_provider.ts";
import { LogDeliveryError } from "./log_delivery_error.ts";
import { checkOptions } from "./_options.ts";
import { REMOTE_RULES } from "./_rules.ts";
import { Redactor } from "./_redactor.ts";
import { JsonFormatter } from "./_format.ts";
import { RESOLVED } from "./_resolved.ts";

/** Options of {@linkcode RemoteLogProvider} (spec §2.4, §5 rule 5). */
export interface RemoteLogProviderOptions {
  /**
   * The http(s) URL batches are POSTed to; in a browser a path relative to
   * the page (`/logs`) works too.
   */
  endpoint: string | URL;
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
}

function entries(count: number): string {
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

const RETRY_STATUSES: number[] = [408, 429];
for (let status = 500; status < 600; status++) RETRY_STATUSES.push(status);

// Longest delay setTimeout accepts: a ref'd keep-alive while someone awaits
// flush() or dispose() (the flush timer and the retry waits are unref'd).
const KEEP_ALIVE_MS = 2_147_483_647;

// A retry wait that never keeps the process alive on its own. Clamped to
// what setTimeout accepts (a longer delay would fire at once in Node.js).
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) =>
    unrefTimer(setTimeout(resolve, Math.min(ms, KEEP_ALIVE_MS)))
  );
}

/**
 * Buffers entries and POSTs them as JSON batches:
 *
 * ```http
 * POST <endpoint>
 * Content-Type: application/json
 * X-API-Key: <apiKey>
 *
 * {"entries":[{"timestamp":"…","level":"info","category":"app","message":"…","properties":{}}, …]}
 * ```
 *
 * A batch goes out when `batchSize` entries are buffered, and whatever is
 * buffered goes out `flushInterval` ms after it was logged (the timer is
 * unref'd: it never keeps the process alive). One batch is in flight at a
 * time, so entries arrive in order. A network error, a timeout, a 5xx or a
 * 429 is retried up to `maxRetries` times with exponential backoff
 * (`retryDelay` doubling, capped by `maxRetryDelay`), honouring
 * `Retry-After`; a 401 or another 4xx is not retried. Entries that cannot be
 * delivered, or that overflow the bounded buffer, are counted in `dropped`,
 * reported to `onError`, and announced to the endpoint by a `warning` entry
 * of category `kit.logging` with `properties.dropped` in the next batch that
 * gets through. `dispose()` sends everything buffered before it returns.
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
 * await manager.dispose();
 * ```
 */
export class RemoteLogProvider implements ILogProvider {
  readonly #endpoint: string;
  readonly #batchSize: number;
  readonly #flushInterval: number;
  readonly #maxBufferSize: number;
  readonly #maxRetries: number;
  readonly #retryDelay: number;
  readonly #maxRetryDelay: number;
  readonly #level: LogLevel;
  readonly #json: JsonFormatter;
  readonly #onError: (error: Error) => void;
  readonly #client: typeof ky;

  // Serialized entries waiting; #head is the first one not yet taken.
  #buffer: string[] = [];
  #head = 0;
  #sending: Promise<void> | undefined;
  #sendAll = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #disposed = false;
  #dropped = 0;
  // Dropped but not yet announced to the endpoint.
  #unreported = 0;
  // A buffer-full warning was given and no batch has gone through since.
  #overflowing = false;

  /**
   * Creates the provider. Nothing is sent until entries arrive.
   *
   * @param options See {@linkcode RemoteLogProviderOptions}.
   * @throws {LogProviderOptionError} When `endpoint` is missing or not an
   * http(s) URL, or another option is unknown or invalid.
   */
  constructor(options: RemoteLogProviderOptions) {
    const checked = checkOptions("RemoteLogProvider", REMOTE_RULES, options, [
      "endpoint",
    ]);
    const number = (name: string, fallback: number): number =>
      (checked[name] as number | undefined) ?? fallback;
    this.#endpoint = checked.endpoint as string;
    this.#batchSize = number("batchSize", 100);
    this.#flushInterval = number("flushInterval", 5000);
    this.#maxBufferSize = number("maxBufferSize", 10_000);
    this.#maxRetries = number("maxRetries", 5);
    this.#retryDelay = number("retryDelay", 1000);
    this.#maxRetryDelay = number("maxRetryDelay", 30_000);
    this.#level = (checked.level as LogLevel | undefined) ?? LogLevel.Debug;
    this.#onError = (checked.onError as ((error: Error) => void) | undefined) ??
      ((error) => globalThis.console.error(error));
    this.#json = new JsonFormatter(
      new Redactor(
        checked.redactKeys as readonly (string | RegExp)[] | undefined,
      ),
    );
    const headers: Record<string, string> = {
      "content-type": "application/json",
    };
    if (checked.apiKey !== undefined) {
      headers["x-api-key"] = checked.apiKey as string;
    }
    this.#client = ky.create({
      headers,
      timeout: number("timeout", 10_000),
      throwHttpErrors: true,
      // Retries are Kit's own (see #post): ky's waits are ref'd timers that
      // would keep a process alive after its script ended.
      retry: 0,
    });
  }

  /** Entries dropped so far (buffer overflow, refused or failed batches). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Entries buffered and not yet sent. */
  get buffered(): number {
    return this.#buffer.length - this.#head;
  }

  /**
   * Buffers the entry; sends a batch when `batchSize` is reached.
   *
   * @param entry The entry.
   * @returns A settled promise; use `flush()` to wait for delivery.
   */
  log(entry: LogEntry): Promise<void> {
    if (this.#disposed) {
      this.#drop(
        1,
        "RemoteLogProvider: 1 entry dropped: logged after dispose()",
      );
      return RESOLVED;
    }
    let json: string;
    try {
      json = this.#json.format(entry);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.buffered >= this.#maxBufferSize) {
      this.#head++;
      this.#compact();
      this.#dropped++;
      this.#unreported++;
      if (!this.#overflowing) {
        this.#overflowing = true;
        this.#report(
          new LogDeliveryError(
            "RemoteLogProvider",
            `RemoteLogProvider: buffer full (maxBufferSize ${this.#maxBufferSize}); oldest entries are being dropped`,
            1,
          ),
        );
      }
    }
    this.#buffer.push(json);
    if (this.buffered >= this.#batchSize) this.#kick(false);
    else this.#arm();
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
   * @returns A promise that settles when the buffer is empty and no batch is
   * in flight; entries that could not be delivered are counted as dropped.
   */
  async flush(): Promise<void> {
    if (this.#sending === undefined && this.buffered === 0) return;
    // Someone waits for the delivery: keep the process alive until it is
    // done, though the retry waits are unref'd.
    const keepAlive = setTimeout(() => {}, KEEP_ALIVE_MS);
    try {
      while (this.#sending !== undefined || this.buffered > 0) {
        this.#kick(true);
        await this.#sending;
      }
    } finally {
      clearTimeout(keepAlive);
    }
  }

  /**
   * Stops the timer and sends everything buffered before it returns.
   * Entries logged afterwards are dropped and reported.
   *
   * @returns A promise that settles when the last batch is delivered (or
   * given up on).
   */
  async dispose(): Promise<void> {
    this.#clearTimer();
    await this.flush();
    this.#disposed = true;
    this.#clearTimer();
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

  #arm(): void {
    if (this.#timer !== undefined || this.#disposed) return;
    this.#timer = unrefTimer(setTimeout(() => {
      this.#timer = undefined;
      this.#kick(true);
    }, this.#flushInterval));
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #kick(all: boolean): void {
    if (all) this.#sendAll = true;
    if (this.#sending === undefined) this.#sending = this.#run();
  }

  // The single sender: batches while there is a full batch, or everything
  // while a flush (timer, flush(), dispose()) asked for it.
  async #run(): Promise<void> {
    try {
      while (true) {
        const count = this.buffered;
        if (count === 0) {
          this.#sendAll = false;
          this.#clearTimer();
          break;
        }
        if (count < this.#batchSize && !this.#sendAll) break;
        const take = Math.min(count, this.#batchSize);
        const batch = this.#buffer.slice(this.#head, this.#head + take);
        this.#head += take;
        this.#compact();
        await this.#post(batch);
      }
    } finally {
      this.#sending = undefined;
      if (this.buffered > 0) this.#arm();
    }
  }

  async #post(batch: string[]): Promise<void> {
    const announced = this.#unreported;
    const items = announced > 0
      ? [this.#dropEntry(announced), ...batch]
      : batch;
    const body = '{"entries":[' + items.join(",") + "]}";
    for (let attempt = 1;; attempt++) {
      let status: number | undefined;
      let retryAfter: number | undefined;
      try {
        const response = await this.#client.post(this.#endpoint, { body });
        await response.body?.cancel().catch(() => {});
        this.#unreported -= announced;
        this.#overflowing = false;
        return;
      } catch (error) {
        if (error instanceof HTTPError) {
          status = error.response.status;
          retryAfter = parseRetryAfter(
            error.response.headers.get("retry-after"),
          );
          await error.response.body?.cancel().catch(() => {});
        }
        if (status !== undefined && !RETRY_STATUSES.includes(status)) {
          this.#drop(
            batch.length,
            `RemoteLogProvider: ${this.#endpoint} answered ${status}; ${
              entries(batch.length)
            } dropped (not retried)`,
            status,
            detach(error),
          );
          return;
        }
        if (attempt > this.#maxRetries) {
          const reason = error instanceof Error ? error.message : String(error);
          this.#drop(
            batch.length,
            `RemoteLogProvider: ${entries(batch.length)} dropped after ${
              attempt === 1 ? "1 attempt" : `${attempt} attempts`
            }: ${reason}`,
            status,
            detach(error),
          );
          return;
        }
      }
      // Network errors, timeouts, 408, 429 and 5xx: wait, then send the same
      // batch again. Retry-After (capped by maxRetryDelay) replaces the
      // backoff.
      await sleep(Math.min(
        this.#maxRetryDelay,
        retryAfter ?? this.#retryDelay * 2 ** (attempt - 1),
      ));
    }
  }

  #dropEntry(count: number): string {
    return this.#json.format({
      timestamp: new Date(),
      level: LogLevel.Warning,
      category: "kit.logging",
      message: `RemoteLogProvider dropped ${count} log entries`,
      properties: { dropped: count },
    });
  }

  #drop(
    count: number,
    message: string,
    status?: number,
    cause?: unknown,
  ): void {
    this.#dropped += count;
    this.#unreported += count;
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

  #compact(): void {
    const buffer = this.#buffer;
    if (this.#head === buffer.length) {
      buffer.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > buffer.length) {
      buffer.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
