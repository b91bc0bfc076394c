// The HTTP cache of one client (HttpClient.fromConfiguration with
// `api:enableCaching`): the store it keeps responses in, reached through
// bounded waits and keys that hide the address, and the debug lines it
// writes. One call's use of it is a CachedCall (_cached_call.ts); the rules
// of RFC 9111 are in _cache_rules.ts.
import { type Clock, maskSecretText } from "../../core/mod.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { hostLogger } from "../../platform/mod.ts";
import { parseCacheControl } from "./_cache_rules.ts";
import { LOG_CATEGORY, logDebug, logUrl } from "../_log.ts";
import type { HttpCacheStore } from "./http_cache_store.ts";

/**
 * A stored response: plain strings and numbers, so that a store that keeps
 * JSON (Redis) keeps it as it is.
 */
export interface HttpCacheEntry {
  /** The format, for a store shared with other versions of Kit. */
  readonly v: 1;
  readonly status: number;
  /** The body as the JSON methods read it (UTF-8 text). */
  readonly body: string;
  /** Its size in UTF-8 bytes. */
  readonly size: number;
  /** The response headers the cache reads, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The request headers `Vary` names, with the values sent (null: none). */
  readonly vary: Readonly<Record<string, string | null>>;
  /** Until when it is fresh, in milliseconds on the client's clock. */
  readonly freshUntil: number;
}

/** What the HTTP cache did for a call, as spans and logs show it. */
export type HttpCacheResult = "hit" | "revalidated" | "miss";

/** Longest wait for the store: past it a read is a miss, a write skipped. */
export const STORE_TIMEOUT = 1_000;

/**
 * How long an entry that can be revalidated is kept once stale, so that a
 * conditional request can still spare the body.
 */
export const STALE_KEEP = 3_600_000;

const TIMED_OUT: unique symbol = Symbol("timed out");

export class HttpCache {
  readonly #store: HttpCacheStore;
  /** A store other clients or processes read: keys are hashed. */
  readonly #shared: boolean;
  readonly maxEntrySize: number;
  readonly clock: Clock;
  #warned = false;

  constructor(
    store: HttpCacheStore,
    shared: boolean,
    maxEntrySize: number,
    clock: Clock,
  ) {
    this.#store = store;
    this.#shared = shared;
    this.maxEntrySize = maxEntrySize;
    this.clock = clock;
  }

  /**
   * Whether a call with these headers may use the cache: not when it sends
   * `Cache-Control: no-store`. `noCache` when it asks for a revalidation
   * (`no-cache`, `max-age=0`).
   */
  requestRules(
    headers: Record<string, string>,
  ): { use: boolean; noCache: boolean } {
    const value = headers["cache-control"];
    if (value === undefined) return USE;
    const control = parseCacheControl(value);
    if (control.has("no-store")) return SKIP;
    return control.has("no-cache") || control.get("max-age") === "0"
      ? REVALIDATE
      : USE;
  }

  /**
   * The store's key of an address: in a shared store `kit.http:` and the
   * SHA-256 of the address, so that neither it nor a token in its query is
   * written there; in the client's own memory, the address itself.
   */
  async keyOf(url: string): Promise<string> {
    if (!this.#shared) return url;
    const subtle = globalThis.crypto?.subtle;
    // A browser page outside a secure context has no digest.
    if (subtle === undefined) return `kit.http:${url}`;
    const digest = new Uint8Array(
      await subtle.digest("SHA-256", new TextEncoder().encode(url)),
    );
    let hex = "";
    for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
    return `kit.http:${hex}`;
  }

  /** The entry under `key`; undefined when none, or not one of ours. */
  async read(key: string): Promise<HttpCacheEntry | undefined> {
    const value = await this.#bounded(() => this.#store.get(key), "read");
    return isEntry(value) ? value : undefined;
  }

  /** Stores an entry for `ttl` milliseconds (never throws). */
  async write(key: string, entry: HttpCacheEntry, ttl: number): Promise<void> {
    await this.#bounded(
      () => this.#store.set(key, entry, { ttl: Math.ceil(ttl) }),
      "write",
    );
  }

  /** Removes an entry (never throws). */
  async remove(key: string): Promise<void> {
    await this.#bounded(() => this.#store.delete(key), "delete");
  }

  /** Forgets the response stored for `url` (after a PUT, POST, …). */
  async invalidate(method: string, url: string): Promise<void> {
    await this.remove(await this.keyOf(url));
    logDebug(
      `${method} ${logUrl(url)} removed the stored response of its address ` +
        "from the HTTP cache",
      { method, url: logUrl(url) },
    );
  }

  /**
   * Runs a store operation within STORE_TIMEOUT: undefined when it fails or
   * takes longer (reported once as a warning, then at debug).
   */
  async #bounded(
    operation: () => Promise<unknown>,
    what: string,
  ): Promise<unknown> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const pending = operation();
      const late = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = unrefTimer(setTimeout(() => resolve(TIMED_OUT), STORE_TIMEOUT));
      });
      // A store that answers after the wait must not reject unheard.
      pending.catch(() => {});
      const value = await Promise.race([pending, late]);
      if (value !== TIMED_OUT) return value;
      this.#storeFailed(
        what,
        `no answer within ${STORE_TIMEOUT} ms`,
      );
    } catch (error) {
      this.#storeFailed(
        what,
        maskSecretText(error instanceof Error ? error.message : String(error)),
      );
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
    return undefined;
  }

  #storeFailed(what: string, reason: string): void {
    const logger = hostLogger(LOG_CATEGORY);
    if (logger === undefined) return;
    const message =
      `The HTTP cache's store failed to ${what} (${reason}): the call goes ` +
      "to the server";
    const properties = { cache: "error", operation: what, reason };
    if (this.#warned) {
      if (logger.isEnabled?.(0) !== false) logger.debug(message, properties);
      return;
    }
    this.#warned = true;
    logger.warning(
      message + "; later failures of this client's store are logged at debug",
      properties,
    );
  }
}

const USE = Object.freeze({ use: true, noCache: false });
const SKIP = Object.freeze({ use: false, noCache: false });
const REVALIDATE = Object.freeze({ use: true, noCache: true });

function isEntry(value: unknown): value is HttpCacheEntry {
  if (value === null || typeof value !== "object") return false;
  const entry = value as Partial<HttpCacheEntry>;
  return entry.v === 1 && typeof entry.status === "number" &&
    typeof entry.body === "string" && typeof entry.size === "number" &&
    typeof entry.freshUntil === "number" &&
    entry.headers !== null && typeof entry.headers === "object" &&
    entry.vary !== null && typeof entry.vary === "object";
}
