// The machinery shared by a CacheManager and its areas: age bands, single
// flight, fail-safe refresh, counters. Kept out of the public API.
import type {
  CacheFactory,
  CacheGetOrSetOptions,
  CacheSetOptions,
  ICacheArea,
} from "./cache.ts";
import { type Clock } from "../core/mod.ts";
import { isOpenTelemetryRegistered } from "../internal/open_telemetry.ts";
import { unrefTimer } from "../internal/unref_timer.ts";
import { checkTimeout } from "./_check_timeout.ts";
import type { CacheError } from "./cache_error.ts";
import { CacheFactoryError } from "./cache_factory_error.ts";
import { CachePolicy, type CachePolicyOptions } from "./cache_policy.ts";
import { CachePolicyNotFoundError } from "./cache_policy_not_found_error.ts";
import type {
  CacheEntry,
  CacheLockAttempt,
  ICacheProvider,
} from "./cache_provider.ts";
import type { CacheStats } from "./cache_stats.ts";
import { CacheStoreError } from "./cache_store_error.ts";
import { reportByDefault } from "./_error_reporter.ts";
import {
  type AreaTelemetry,
  areaTelemetry,
  type AreaTotals,
  checkTelemetry,
  type Counters,
  failRun,
  newCounters,
  noteHit,
  startRun,
} from "./_telemetry.ts";

type MaybeEntry = CacheEntry | undefined;

/**
 * A read that took the store's lock when the entry was missing; shared by
 * the callers of one process, whose first factory run takes `lock` over
 * (then `undefined`).
 */
interface LockedRead {
  entry: MaybeEntry;
  lock: CacheLockAttempt | undefined;
}

/** What a write to a synchronous store returns: one settled promise, shared. */
const SETTLED: Promise<void> = Promise.resolve();

// What #serves decided for a stored entry.
const MISS = 0;
const SERVE = 1;
const SERVE_AFTER_SOFT_WAIT = 2;
type Decision = typeof MISS | typeof SERVE | typeof SERVE_AFTER_SOFT_WAIT;

// How often a caller waiting on another instance's lock looks for the value
// (on real time, whatever the manager's clock: that instance works in real
// time): quickly at first (a fast factory is done within a few
// milliseconds), then less often, so that many waiters do not flood the
// store.
const FIRST_POLL = 4;
const MAX_POLL = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => unrefTimer(setTimeout(resolve, ms)));
}

/** Returns `tags` if it is an array of non-empty strings, else throws. */
export function checkTags(tags: unknown): string[] | undefined {
  if (tags === undefined) return undefined;
  if (
    !Array.isArray(tags) ||
    !tags.every((tag) => typeof tag === "string" && tag !== "")
  ) {
    throw new TypeError(
      `Cache tags must be an array of non-empty strings: ${String(tags)}`,
    );
  }
  return tags;
}

/** Checks the per-call options that are not checked by CachePolicy. */
function checkCallOptions(options: CacheGetOrSetOptions): number | undefined {
  checkTags(options.tags);
  checkTimeout("Cache", "softTimeout", options.softTimeout, true);
  checkTimeout("Cache", "hardTimeout", options.hardTimeout, false);
  checkTimeout("Cache", "lockTimeout", options.lockTimeout, false);
  if (options.lock !== undefined && typeof options.lock !== "boolean") {
    throw new RangeError(`Cache lock must be a boolean: ${options.lock}`);
  }
  return checkTtl(options.ttl);
}

/** One factory run that concurrent callers share. */
interface Flight {
  promise: Promise<unknown>;
  /** Set by a later set/delete/clear: its result must not be stored. */
  superseded: boolean;
  /** The tags of the value it will store. */
  tags: string[] | undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function";
}

export function checkTtl(ttl: number | undefined): number | undefined {
  if (
    ttl !== undefined &&
    (typeof ttl !== "number" || !(ttl > 0) || !Number.isFinite(ttl))
  ) {
    throw new RangeError(
      `Cache ttl must be a positive number of milliseconds: ${ttl}`,
    );
  }
  return ttl;
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
      reportByDefault("CacheManager", error);
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

/** The root scope of a manager, or one area. */
export class CacheScope implements ICacheArea {
  readonly name: string;
  readonly #core: CacheCore;
  readonly #prefix: string;
  readonly #counters: Counters;
  /** The area's counts for the process (read by `kit.cache.requests`). */
  readonly #totals: AreaTotals;
  readonly #telemetry: AreaTelemetry;
  readonly #isRoot: boolean;

  constructor(core: CacheCore, name: string | undefined) {
    this.#core = core;
    this.#isRoot = name === undefined;
    this.name = name ?? "";
    this.#prefix = name === undefined ? "" : `${name}:`;
    this.#counters = core.newCounters();
    this.#telemetry = areaTelemetry(this.name);
    this.#totals = this.#telemetry.totals;
  }

  get #policy(): CachePolicy | undefined {
    const core = this.#core;
    if (this.#isRoot || core.policies.size === 0) return core.defaultPolicy;
    return core.policies.get(this.name) ?? core.defaultPolicy;
  }

  get<T = unknown>(key: string): Promise<T | undefined> {
    const fullKey = this.#prefix + key;
    const entry = this.#core.read(fullKey);
    if (isThenable(entry)) {
      return Promise.resolve(entry).then((found) => this.#fresh<T>(found));
    }
    return Promise.resolve(this.#fresh<T>(entry));
  }

  #fresh<T>(entry: MaybeEntry): T | undefined {
    if (
      entry === undefined ||
      (entry.ttl !== undefined &&
        this.#core.clock.now() - entry.storedAt >= entry.ttl)
    ) {
      this.#counters.misses++;
      this.#totals.misses++;
      return undefined;
    }
    this.#counters.hits++;
    this.#totals.hits++;
    return entry.value as T;
  }

  set<T = unknown>(
    key: string,
    value: T,
    options?: CacheSetOptions,
  ): Promise<void> {
    let ttl: number | undefined;
    let tags: string[] | undefined;
    if (options !== undefined) {
      try {
        ttl = checkTtl(options.ttl);
        tags = checkTags(options.tags);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const fullKey = this.#prefix + key;
    const core = this.#core;
    core.invalidate(fullKey);
    // A synchronous store is done here: no async frame, no extra await.
    return core.write(fullKey, value, this.#policy, ttl, tags) ?? SETTLED;
  }

  invalidateTags(tags: string[]): Promise<void> {
    try {
      checkTags(tags);
      if (tags.length === 0) return SETTLED;
      return this.#core.invalidateTags(tags);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async delete(key: string): Promise<void> {
    const fullKey = this.#prefix + key;
    const core = this.#core;
    core.invalidate(fullKey);
    try {
      await core.provider.delete(fullKey);
    } catch (error) {
      core.providerFailed("delete", fullKey, error);
    }
  }

  async clear(): Promise<void> {
    const core = this.#core;
    core.invalidatePrefix(this.#prefix);
    try {
      await (this.#isRoot
        ? core.provider.clear()
        : core.provider.clear(this.#prefix));
    } catch (error) {
      core.providerFailed("clear", this.#prefix || undefined, error);
    }
  }

  getOrSet<T>(
    key: string,
    factory: CacheFactory<T>,
    options?: CacheGetOrSetOptions,
  ): Promise<T> {
    const fullKey = this.#prefix + key;
    let policy: CachePolicy | undefined;
    if (options === undefined) {
      policy = this.#policy;
    } else {
      try {
        policy = options.policy === undefined
          ? this.#policy
          : this.#core.resolvePolicy(options.policy);
        checkCallOptions(options);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const core = this.#core;
    if (
      (options?.lock ?? policy?.lock) === true &&
      core.provider.readOrLock !== undefined
    ) {
      return core.readOrLock(
        fullKey,
        options?.lockTimeout ?? policy?.lockTimeout ?? 5_000,
      ).then((read) =>
        this.#answer(fullKey, read.entry, factory, policy, options, read)
      );
    }
    const entry = core.read(
      fullKey,
      options !== undefined && options.tags !== undefined,
    );
    if (isThenable(entry)) {
      // A hit resolves with the value itself: no promise to adopt.
      return Promise.resolve(entry).then((found) =>
        this.#answer(fullKey, found, factory, policy, options)
      );
    }
    return Promise.resolve(
      this.#answer(fullKey, entry, factory, policy, options),
    );
  }

  #answer<T>(
    fullKey: string,
    entry: MaybeEntry,
    factory: CacheFactory<T>,
    policy: CachePolicy | undefined,
    options: CacheGetOrSetOptions | undefined,
    read?: LockedRead,
  ): T | Promise<T> {
    const decision = this.#serves(fullKey, entry, factory, policy, options);
    if (decision === SERVE) return (entry as CacheEntry).value as T;
    if (decision === MISS) {
      return this.#wait(fullKey, factory, policy, options, read);
    }
    const flight = this.#core.flights.get(fullKey);
    const stale = (entry as CacheEntry).value as T;
    if (flight === undefined) return stale;
    return this.#softWait(
      flight,
      stale,
      options?.softTimeout ?? (policy?.softTimeout as number),
    );
  }

  /**
   * The refresh's value if it comes within `ms`, else (or if it fails) the
   * stale value; the refresh goes on either way.
   */
  #softWait<T>(flight: Flight, stale: T, ms: number): Promise<T> {
    const clock = this.#core.clock;
    return new Promise<T>((resolve) => {
      const timer = clock.setTimeout(() => resolve(stale), ms);
      flight.promise.then(
        (value) => {
          clock.clearTimeout(timer);
          resolve(value as T);
        },
        () => {
          clock.clearTimeout(timer);
          resolve(stale);
        },
      );
    });
  }

  #serves<T>(
    fullKey: string,
    entry: MaybeEntry,
    factory: CacheFactory<T>,
    policy: CachePolicy | undefined,
    options: CacheGetOrSetOptions | undefined,
  ): Decision {
    const counters = this.#counters;
    const totals = this.#totals;
    if (entry === undefined) {
      counters.misses++;
      totals.misses++;
      return MISS;
    }
    const freshFor = entry.ttl;
    if (freshFor === undefined) {
      this.#hit();
      return SERVE;
    }
    const age = this.#core.clock.now() - entry.storedAt;
    if (
      age <
        (policy === undefined ? freshFor : freshFor * policy.refreshThreshold)
    ) {
      this.#hit();
      return SERVE;
    }
    if (age < freshFor) {
      counters.hits++;
      totals.hits++;
      this.#refresh(fullKey, factory, policy, options, "refresh");
      return SERVE;
    }
    if (age < freshFor + (entry.maxStale ?? 0)) {
      counters.staleServed++;
      totals.staleServed++;
      this.#refresh(fullKey, factory, policy, options, "stale");
      return (options?.softTimeout ?? policy?.softTimeout)
        ? SERVE_AFTER_SOFT_WAIT
        : SERVE;
    }
    counters.misses++;
    totals.misses++;
    return MISS;
  }

  #hit(): void {
    this.#counters.hits++;
    if ((++this.#totals.hits & 1023) === 0) checkTelemetry();
    if (isOpenTelemetryRegistered("context")) noteHit(this.#telemetry.hit);
  }

  /** Joins the key's factory run, or starts one. */
  #wait<T>(
    fullKey: string,
    factory: CacheFactory<T>,
    policy: CachePolicy | undefined,
    options: CacheGetOrSetOptions | undefined,
    read?: LockedRead,
  ): Promise<T> {
    let flight = this.#core.flights.get(fullKey);
    if (flight === undefined) {
      const first = read?.lock;
      if (read !== undefined) read.lock = undefined;
      flight = this.#run(fullKey, factory, policy, options, "miss", first);
    } else if (read?.lock?.acquired) {
      // A run is under way here already: the lock just taken is not needed.
      const lock = read.lock;
      read.lock = undefined;
      void lock.release();
    }
    return flight.promise as Promise<T>;
  }

  #refresh<T>(
    fullKey: string,
    factory: CacheFactory<T>,
    policy: CachePolicy | undefined,
    options: CacheGetOrSetOptions | undefined,
    band: "refresh" | "stale",
  ): void {
    if (this.#core.flights.has(fullKey)) return;
    this.#counters.backgroundRefreshes++;
    this.#totals.backgroundRefreshes++;
    const flight = this.#run(fullKey, factory, policy, options, band);
    // Fail-safe: the stored value stays; the failure is reported.
    flight.promise.catch((error: unknown) =>
      this.#core.report(
        error instanceof CacheFactoryError && error.timeout !== undefined
          ? error
          : new CacheFactoryError(fullKey, error),
      )
    );
  }

  #run<T>(
    fullKey: string,
    factory: CacheFactory<T>,
    policy: CachePolicy | undefined,
    options: CacheGetOrSetOptions | undefined,
    result: "miss" | "stale" | "refresh",
    first?: CacheLockAttempt,
  ): Flight {
    const core = this.#core;
    const flight: Flight = {
      promise: undefined as unknown as Promise<unknown>,
      superseded: false,
      tags: options?.tags,
    };
    core.flights.set(fullKey, flight);
    const traced = startRun(this.#telemetry[result]);
    const span = traced.span;
    const done = () => {
      if (core.flights.get(fullKey) === flight) core.flights.delete(fullKey);
      span.end();
    };
    const ttl = options?.ttl;
    const hardTimeout = options?.hardTimeout ?? policy?.hardTimeout;
    const controller = new AbortController();
    const signal = controller.signal;
    const lock = (options?.lock ?? policy?.lock) === true &&
      core.provider.tryLock !== undefined;
    if (!lock && first?.acquired) void first.release();
    // Set when the value came from another instance's run (nothing to
    // store) and when this run holds the store's lock (to release).
    let fromStore = false;
    let release: (() => Promise<void>) | undefined;
    let produced: Promise<T> = lock
      ? this.#underLock(
        fullKey,
        () => traced.run(() => factory(signal)),
        options?.lockTimeout ?? policy?.lockTimeout ?? 5_000,
        signal,
        first,
        // Known as soon as the lock is taken, so a hardTimeout that fires
        // while the factory still runs gives the lock back at once.
        (held) => {
          release = held;
        },
      ).then((outcome) => {
        fromStore = outcome.fromStore;
        release = outcome.release;
        // Past the hardTimeout nobody waits for this run: free the lock.
        if (signal.aborted) void release?.();
        return outcome.value;
      })
      : Promise.resolve().then(() => traced.run(() => factory(signal)));
    if (hardTimeout !== undefined) {
      produced = bounded(
        core.clock,
        produced,
        fullKey,
        hardTimeout,
        controller,
        () => {
          // The abandoned run's lock, once it has one, is given back.
          void release?.();
        },
      );
    }
    flight.promise = produced.then(
      (value) => {
        if (flight.superseded || fromStore) {
          void release?.();
          if (fromStore) done();
          else span.end();
          return value;
        }
        const written = core.write(fullKey, value, policy, ttl, flight.tags);
        if (written === undefined) {
          void release?.();
          done();
        } else {
          core.track(
            written.then(
              release === undefined ? done : () => {
                done();
                return release?.();
              },
            ),
          );
        }
        return value;
      },
      (error: unknown) => {
        void release?.();
        if (core.flights.get(fullKey) === flight) core.flights.delete(fullKey);
        this.#counters.factoryErrors++;
        this.#totals.factoryErrors++;
        failRun(span, error);
        throw error;
      },
    );
    return flight;
  }

  /**
   * Runs `run` once the store's lock on `fullKey` is this caller's; while
   * another instance holds it, looks for that instance's value with a
   * growing pause, until `lockTimeout` has passed (then runs `run` anyway,
   * rather than fail).
   */
  async #underLock<T>(
    fullKey: string,
    run: () => T | Promise<T>,
    lockTimeout: number,
    signal: AbortSignal,
    first: CacheLockAttempt | undefined,
    locked: (release: () => Promise<void>) => void,
  ): Promise<
    { value: T; fromStore: boolean; release?: () => Promise<void> }
  > {
    const core = this.#core;
    const provider = core.provider;
    const deadline = performance.now() + lockTimeout;
    let attempt = first ?? await provider.tryLock!(fullKey, lockTimeout);
    let pause = FIRST_POLL;
    while (!attempt.acquired && attempt.held) {
      // Past the hardTimeout the run is given up: no factory to start.
      if (signal.aborted) throw signal.reason;
      const left = deadline - performance.now();
      if (left <= 0) break;
      await sleep(Math.min(pause, left));
      pause = Math.min(pause * 2, MAX_POLL);
      let entry: MaybeEntry;
      try {
        entry = await provider.get(fullKey);
      } catch (error) {
        core.providerFailed("get", fullKey, error);
      }
      if (
        entry !== undefined &&
        (entry.ttl === undefined ||
          core.clock.now() - entry.storedAt < entry.ttl)
      ) {
        return { value: entry.value as T, fromStore: true };
      }
      attempt = await provider.tryLock!(fullKey, lockTimeout);
    }
    const release = attempt.acquired ? attempt.release : undefined;
    // The hardTimeout may have passed during the last pause or look-up: then
    // no factory starts, and a lock just taken is given back.
    if (signal.aborted) {
      void release?.();
      throw signal.reason;
    }
    if (release !== undefined) locked(release);
    try {
      return { value: await run(), fromStore: false, release };
    } catch (error) {
      void release?.();
      throw error;
    }
  }

  stats(): CacheStats {
    const core = this.#core;
    const sum = newCounters();
    for (const counters of this.#isRoot ? core.scopes : [this.#counters]) {
      sum.hits += counters.hits;
      sum.misses += counters.misses;
      sum.staleServed += counters.staleServed;
      sum.backgroundRefreshes += counters.backgroundRefreshes;
      sum.factoryErrors += counters.factoryErrors;
    }
    return { ...sum, providerErrors: core.providerErrors };
  }
}

/**
 * Rejects with a timeout CacheFactoryError (and aborts the factory's signal
 * with it) when `run` takes more than `ms`; a late outcome of `run` is then
 * dropped, never an unhandled rejection.
 */
function bounded<T>(
  clock: Clock,
  run: Promise<T>,
  key: string,
  ms: number,
  controller: AbortController,
  onTimeout: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(() => {
      const error = new CacheFactoryError(key, undefined, ms);
      controller.abort(error);
      reject(error);
      onTimeout();
    }, ms);
    run.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimeout(timer);
        reject(error);
      },
    );
  });
}
