// What a CacheManager and its areas share: the provider and the clock, the
// policies, one pending read per key (so concurrent callers make one round
// trip), the factory runs under way per key (single flight: concurrent
// misses share one run, and a later write supersedes it), the writes not yet
// settled, the counters and the error reports. Kept out of the public API;
// an area's own behaviour is in _cache_scope.ts.
import type { Clock } from "../core/mod.ts";
import type { CacheError } from "./cache_error.ts";
import { CachePolicy, type CachePolicyOptions } from "./cache_policy.ts";
import { CachePolicyNotFoundError } from "./cache_policy_not_found_error.ts";
import type {
  CacheEntry,
  CacheLockAttempt,
  ICacheProvider,
} from "./cache_provider.ts";
import { CacheStoreError } from "./cache_store_error.ts";
import { reportCacheErrorByDefault } from "./_error_reporter.ts";
import { type Counters, newCounters } from "./_telemetry.ts";

export type MaybeEntry = CacheEntry | undefined;

/**
 * A read that took the store's lock when the entry was missing; shared by
 * the callers of one process, whose first factory run takes `lock` over
 * (then `undefined`).
 */
export interface LockedRead {
  entry: MaybeEntry;
  lock: CacheLockAttempt | undefined;
}

/** One factory run that concurrent callers share. */
export interface Flight {
  promise: Promise<unknown>;
  /** Set by a later set/delete/clear: its result must not be stored. */
  superseded: boolean;
  /** The tags of the value it will store. */
  tags: string[] | undefined;
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function";
}

export class CacheCore {
  readonly provider: ICacheProvider;
  /** Ages, tag times, and the soft and hard factory timeouts. */
  readonly clock: Clock;
  readonly policies: Map<string, CachePolicy> = new Map();
  defaultPolicy: CachePolicy | undefined;
  readonly flights: Map<string, Flight> = new Map();
  readonly reads: Map<string, Promise<MaybeEntry>> = new Map();
  readonly lockedReads: Map<string, Promise<LockedRead>> = new Map();
  readonly writes: Set<Promise<void>> = new Set();
  readonly scopes: Counters[] = [];
  providerErrors = 0;
  readonly #onError: ((error: CacheError) => void) | undefined;

  constructor(
    provider: ICacheProvider,
    clock: Clock,
    defaultPolicy: CachePolicy | undefined,
    onError: ((error: CacheError) => void) | undefined,
  ) {
    this.provider = provider;
    this.clock = clock;
    this.defaultPolicy = defaultPolicy;
    this.#onError = onError;
  }

  newCounters(): Counters {
    const counters = newCounters();
    this.scopes.push(counters);
    return counters;
  }

  report(error: CacheError): void {
    if (this.#onError === undefined) {
      reportCacheErrorByDefault("CacheManager", error);
      return;
    }
    try {
      this.#onError(error);
    } catch (hookError) {
      console.error("CacheManager: onError threw:", hookError);
    }
  }

  providerFailed(
    method: string,
    key: string | undefined,
    error: unknown,
  ): void {
    this.providerErrors++;
    this.report(new CacheStoreError(method, key, error));
  }

  resolvePolicy(
    policy: string | CachePolicy | CachePolicyOptions,
  ): CachePolicy {
    if (typeof policy === "string") {
      const named = this.policies.get(policy);
      if (named === undefined) throw new CachePolicyNotFoundError(policy);
      return named;
    }
    return CachePolicy.from(policy);
  }

  /** Forgets pending reads and runs for keys a write has made obsolete. */
  invalidate(fullKey: string): void {
    if (this.reads.size !== 0) this.reads.delete(fullKey);
    if (this.lockedReads.size !== 0) this.lockedReads.delete(fullKey);
    if (this.flights.size !== 0) {
      const flight = this.flights.get(fullKey);
      if (flight !== undefined) {
        flight.superseded = true;
        this.flights.delete(fullKey);
      }
    }
  }

  invalidatePrefix(prefix: string): void {
    for (const key of [...this.reads.keys()]) {
      if (key.startsWith(prefix)) this.reads.delete(key);
    }
    for (const key of [...this.lockedReads.keys()]) {
      if (key.startsWith(prefix)) this.lockedReads.delete(key);
    }
    for (const [key, flight] of [...this.flights]) {
      if (key.startsWith(prefix)) {
        flight.superseded = true;
        this.flights.delete(key);
      }
    }
  }

  async invalidateTags(tags: string[]): Promise<void> {
    const provider = this.provider;
    if (provider.invalidateTags === undefined) {
      throw new TypeError(
        `Cache tags are not supported by this provider: ${provider.constructor.name} has no invalidateTags`,
      );
    }
    const at = this.clock.now();
    // A run under way may have read what the invalidation is about: its
    // value goes to its callers but is not stored.
    for (const [key, flight] of [...this.flights]) {
      if (flight.tags?.some((tag) => tags.includes(tag))) {
        flight.superseded = true;
        this.flights.delete(key);
      }
    }
    this.reads.clear();
    this.lockedReads.clear();
    try {
      await provider.invalidateTags(tags, at);
    } catch (error) {
      this.providerFailed("invalidateTags", undefined, error);
    }
  }

  track(write: Promise<void>): void {
    this.writes.add(write);
    write.then(() => this.writes.delete(write));
  }

  /** Reads through the provider, sharing one pending read per key. */
  read(fullKey: string, tagged?: boolean): MaybeEntry | Promise<MaybeEntry> {
    if (this.reads.size !== 0) {
      const pending = this.reads.get(fullKey);
      if (pending !== undefined) return pending;
    }
    let result: MaybeEntry | Promise<MaybeEntry>;
    try {
      result = this.provider.get(fullKey, tagged);
    } catch (error) {
      this.providerFailed("get", fullKey, error);
      return undefined;
    }
    if (!isThenable(result)) return result;
    const pending: Promise<MaybeEntry> = Promise.resolve(result).then(
      (entry) => {
        if (this.reads.get(fullKey) === pending) this.reads.delete(fullKey);
        return entry;
      },
      (error: unknown) => {
        if (this.reads.get(fullKey) === pending) this.reads.delete(fullKey);
        this.providerFailed("get", fullKey, error);
        return undefined;
      },
    );
    this.reads.set(fullKey, pending);
    return pending;
  }

  /** Reads and, on a miss, takes the store's lock in one round trip. */
  readOrLock(fullKey: string, lockTimeout: number): Promise<LockedRead> {
    if (this.lockedReads.size !== 0) {
      const pending = this.lockedReads.get(fullKey);
      if (pending !== undefined) return pending;
    }
    const done = () => {
      if (this.lockedReads.get(fullKey) === pending) {
        this.lockedReads.delete(fullKey);
      }
    };
    const pending: Promise<LockedRead> = Promise.resolve()
      .then(() => this.provider.readOrLock!(fullKey, lockTimeout))
      .then(
        (read): LockedRead => {
          done();
          return { entry: read.entry, lock: read.lock };
        },
        (error: unknown): LockedRead => {
          done();
          this.providerFailed("readOrLock", fullKey, error);
          return { entry: undefined, lock: undefined };
        },
      );
    this.lockedReads.set(fullKey, pending);
    return pending;
  }

  /** Stores a value; the returned promise never rejects. */
  write(
    fullKey: string,
    value: unknown,
    policy: CachePolicy | undefined,
    ttl: number | undefined,
    tags?: string[],
  ): void | Promise<void> {
    const freshFor = ttl ?? policy?.ttl;
    const storedAt = this.clock.now();
    let entry: CacheEntry;
    let keep: number | undefined;
    if (freshFor === undefined) {
      entry = { value, storedAt };
    } else {
      const maxStale = policy?.maxStale ?? 0;
      entry = { value, storedAt, ttl: freshFor, maxStale };
      keep = freshFor + maxStale;
    }
    if (tags !== undefined && tags.length > 0) entry.tags = tags;
    let written: void | Promise<void>;
    try {
      written = this.provider.set(fullKey, entry, keep);
    } catch (error) {
      this.providerFailed("set", fullKey, error);
      return;
    }
    if (isThenable(written)) {
      return Promise.resolve(written).then(
        () => {},
        (error: unknown) => this.providerFailed("set", fullKey, error),
      );
    }
  }
}
