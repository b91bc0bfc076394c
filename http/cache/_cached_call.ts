// One GET of a JSON method through the HTTP cache. The request engine asks
// it, in order: `answer` (a fresh stored body answers the call with no
// request), `conditionalHeaders` (a stale entry with a validator makes the
// request conditional), `received` (a 304 becomes the stored response,
// refreshed) and `save` (the response read is stored when the rules allow).
// It marks the call's span (`kit.http.cache`) and writes the debug lines.
import {
  type CacheControl,
  freshnessLifetime,
  initialAge,
  isCredentialHeader,
  parseCacheControl,
  STORED_STATUSES,
  varyNames,
} from "./_cache_rules.ts";
import {
  type HttpCache,
  type HttpCacheEntry,
  type HttpCacheResult,
  STALE_KEEP,
} from "./_http_cache.ts";
import { logDebug, logUrl } from "../_log.ts";
import type { CallTelemetry } from "../_telemetry.ts";

/** What `answer` gives when the call goes to the server. */
export const MISS: unique symbol = Symbol("miss");

/** The response headers an entry keeps. */
const KEPT_HEADERS = [
  "cache-control",
  "content-language",
  "content-type",
  "date",
  "etag",
  "expires",
  "last-modified",
  "vary",
];

/** The headers a request went out with: a Request's or the client's own. */
export type SentHeaders = Headers | Readonly<Record<string, string>>;

function sentValue(sent: SentHeaders, name: string): string | null {
  return sent instanceof Headers ? sent.get(name) : sent[name] ?? null;
}

function sentNames(sent: SentHeaders): string[] {
  return sent instanceof Headers ? [...sent.keys()] : Object.keys(sent);
}

export class CachedCall {
  readonly #cache: HttpCache;
  readonly #url: string;
  readonly #noCache: boolean;
  readonly #requestTime: number;
  #key: string | undefined;
  /** The stored entry that matches the call (fresh or not). */
  #entry: HttpCacheEntry | undefined;
  #responseTime = 0;
  /** The 304's headers merged over the entry's, once revalidated. */
  #refreshed: Headers | undefined;
  result: HttpCacheResult = "miss";

  constructor(cache: HttpCache, url: string, noCache: boolean) {
    this.#cache = cache;
    this.#url = url;
    this.#noCache = noCache;
    this.#requestTime = cache.clock.now();
  }

  /**
   * The parsed stored body when a fresh entry matches the call's headers
   * (the call's span then ends, marked `hit`); MISS otherwise.
   */
  async answer(
    headers: Readonly<Record<string, string>>,
    telemetry: CallTelemetry | undefined,
  ): Promise<unknown> {
    const text = await this.#lookup(headers);
    if (text === undefined) return MISS;
    let value: unknown;
    try {
      value = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Stored by something else than a client: not served, replaced.
      this.result = "miss";
      this.#entry = undefined;
      await this.#cache.remove(this.#key!);
      return MISS;
    }
    logDebug(`GET ${logUrl(this.#url)} answered from the HTTP cache`, {
      method: "GET",
      url: logUrl(this.#url),
      cache: "hit",
    });
    if (telemetry !== undefined) {
      telemetry.cache("hit");
      telemetry.end(undefined);
    }
    return value;
  }

  /** The stored body when a fresh entry matches the call's headers. */
  async #lookup(
    headers: Readonly<Record<string, string>>,
  ): Promise<string | undefined> {
    const cache = this.#cache;
    const key = this.#key = await cache.keyOf(this.#url);
    const entry = await cache.read(key);
    if (entry === undefined) return undefined;
    for (const name in entry.vary) {
      if ((headers[name] ?? null) !== entry.vary[name]) return undefined;
    }
    this.#entry = entry;
    if (this.#noCache || cache.clock.now() >= entry.freshUntil) {
      return undefined;
    }
    this.result = "hit";
    return entry.body;
  }

  /**
   * The headers that make the request conditional on the stale entry's
   * validators; undefined without an entry or a validator.
   */
  conditionalHeaders(): Record<string, string> | undefined {
    const entry = this.#entry;
    if (entry === undefined) return undefined;
    const etag = entry.headers["etag"];
    const modified = entry.headers["last-modified"];
    if (etag === undefined && modified === undefined) {
      this.#entry = undefined;
      return undefined;
    }
    const headers: Record<string, string> = {};
    if (etag !== undefined) headers["if-none-match"] = etag;
    if (modified !== undefined) headers["if-modified-since"] = modified;
    return headers;
  }

  /**
   * Notes a response's arrival (and marks the call's span); a 304 to the
   * conditional request becomes the stored response, its headers updated by
   * the 304's, and ends the attempt's span with the 304.
   */
  received(response: Response, telemetry: CallTelemetry | undefined): Response {
    this.#responseTime = this.#cache.clock.now();
    const entry = this.#entry;
    if (response.status !== 304 || entry === undefined) {
      telemetry?.cache(this.result);
      return response;
    }
    this.result = "revalidated";
    if (telemetry !== undefined) {
      telemetry.cache("revalidated");
      telemetry.endAttempt(304);
    }
    // A 304 has no body; one sent anyway is not read.
    response.body?.cancel().catch(() => {});
    const headers = new Headers(entry.headers);
    for (const name of KEPT_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    // Freshness counts from the 304, its Date and Age included.
    for (const name of ["age", "date"]) {
      const value = response.headers.get(name);
      if (value === null) headers.delete(name);
      else headers.set(name, value);
    }
    this.#refreshed = headers;
    return new Response(entry.body === "" ? null : entry.body, {
      status: entry.status,
      headers,
    });
  }

  /**
   * Stores what the call read when the rules allow, and writes the debug
   * line of the call. Never throws.
   */
  async save(
    response: Response,
    body: string,
    sent: SentHeaders,
  ): Promise<void> {
    const key = this.#key;
    if (key === undefined) return;
    const refreshed = this.#refreshed;
    const outcome = refreshed !== undefined
      ? this.#entryOf(this.#entry!.status, refreshed, body, this.#entry!.vary)
      : this.#admit(response, body, sent);
    const url = logUrl(this.#url);
    const verb = refreshed !== undefined
      ? "revalidated (304) and answered from the HTTP cache"
      : "answered by the server";
    if (typeof outcome === "string") {
      // The server's latest answer is not to be kept: neither is an older one.
      if (this.#entry !== undefined) await this.#cache.remove(key);
      logDebug(`GET ${url} ${verb}; not stored: ${outcome}`, {
        method: "GET",
        url,
        cache: this.result,
        stored: false,
        reason: outcome,
      });
      return;
    }
    await this.#cache.write(key, outcome.entry, outcome.ttl);
    const fresh = Math.max(
      0,
      outcome.entry.freshUntil - this.#cache.clock.now(),
    );
    logDebug(
      `GET ${url} ${verb}; stored, fresh for ${Math.round(fresh / 1000)} s`,
      { method: "GET", url, cache: this.result, stored: true, fresh },
    );
  }

  /** The entry for a response to the call, or why it is not stored. */
  #admit(
    response: Response,
    body: string,
    sent: SentHeaders,
  ): { entry: HttpCacheEntry; ttl: number } | string {
    const status = response.status;
    if (!STORED_STATUSES.has(status)) return `status ${status}`;
    // Reached through a redirect (or sent elsewhere by an interceptor): the
    // answer belongs to another address.
    if (response.url !== "" && response.url !== normalized(this.#url)) {
      return "the response comes from another address (a redirect)";
    }
    const headers = response.headers;
    const control = parseCacheControl(headers.get("cache-control"));
    if (control.has("no-store")) return "Cache-Control: no-store";
    if (!control.has("public")) {
      for (const name of sentNames(sent)) {
        if (isCredentialHeader(name)) {
          return `the request carried credentials (${name}) and the ` +
            "response is not public";
        }
      }
    }
    const vary: Record<string, string | null> = {};
    for (const name of varyNames(headers.get("vary"))) {
      if (name === "*") return "Vary: *";
      if (isCredentialHeader(name)) return `Vary names ${name}`;
      vary[name] = sentValue(sent, name);
    }
    return this.#entryOf(status, headers, body, vary, control);
  }

  /** Builds an entry and its time to live, or says why there is none. */
  #entryOf(
    status: number,
    headers: Headers,
    body: string,
    vary: Record<string, string | null>,
    control: CacheControl = parseCacheControl(headers.get("cache-control")),
  ): { entry: HttpCacheEntry; ttl: number } | string {
    if (control.has("no-store")) return "Cache-Control: no-store";
    const limit = this.#cache.maxEntrySize;
    const size = utf8Size(body, limit);
    if (limit > 0 && size > limit) {
      return `the body is larger than maxCacheEntrySize (${limit} bytes)`;
    }
    const responseTime = this.#responseTime;
    const lifetime = control.has("no-cache")
      ? 0
      : freshnessLifetime(control, headers);
    const freshUntil = responseTime + lifetime -
      initialAge(headers, this.#requestTime, responseTime);
    const validated = headers.has("etag") || headers.has("last-modified");
    const now = this.#cache.clock.now();
    const ttl = Math.max(0, freshUntil - now) + (validated ? STALE_KEEP : 0);
    if (ttl <= 0) return "it is not fresh and has no ETag or Last-Modified";
    const kept: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = headers.get(name);
      if (value !== null) kept[name] = value;
    }
    return {
      entry: { v: 1, status, body, size, headers: kept, vary, freshUntil },
      ttl,
    };
  }
}

/** The address as a Response's `url` spells it. */
function normalized(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/**
 * The UTF-8 size of `text`, exact unless it is plainly above `limit` (0: no
 * limit): one UTF-16 unit is one to three bytes.
 */
function utf8Size(text: string, limit: number): number {
  return limit > 0 && text.length > limit ? text.length : exact(text);
}

function exact(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
