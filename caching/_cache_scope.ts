// One area of a CacheManager (or its root): get, set, delete, clear and
// getOrSet on the area's keys. getOrSet serves a stored value by its age:
// fresh; past the policy's refresh threshold, served while a refresh runs in
// the background (refresh-ahead); past its ttl but within maxStale, served
// stale while it is refreshed (stale-while-revalidate, the caller waiting
// at most softTimeout for the new value); beyond, a miss that waits for the
// key's one factory run. A failed background refresh keeps the stored value
// (fail-safe) and is reported.
import type {
  CacheFactory,
  CacheGetOrSetOptions,
  CacheSetOptions,
  ICacheArea,
} from "./cache.ts";
import { isOpenTelemetryRegistered } from "../internal/telemetry/open_telemetry.ts";
import {
  type CacheCore,
  type Flight,
  isThenable,
  type LockedRead,
  type MaybeEntry,
} from "./_cache_core.ts";
import { checkCallOptions, checkTags, checkTtl } from "./_cache_checks.ts";
import { bounded, softWait } from "./_factory_timeouts.ts";
import { runUnderLock } from "./_store_lock_wait.ts";
import { CacheFactoryError } from "./cache_factory_error.ts";
import type { CachePolicy } from "./cache_policy.ts";
import type { CacheEntry, CacheLockAttempt } from "./cache_provider.ts";
import type { CacheStats } from "./cache_stats.ts";
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

/** What a write to a synchronous store returns: one settled promise, shared. */
const SETTLED: Promise<void> = Promise.resolve();

// What #serves decided for a stored entry.
const MISS = 0;
const SERVE = 1;
const SERVE_AFTER_SOFT_WAIT = 2;
type Decision = typeof MISS | typeof SERVE | typeof SERVE_AFTER_SOFT_WAIT;

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
    return softWait(
      this.#core.clock,
      flight.promise,
      stale,
      options?.softTimeout ?? (policy?.softTimeout as number),
    );
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
      ? runUnderLock(
        core,
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
