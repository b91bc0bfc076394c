// The machinery shared by a CacheManager and its areas: age bands, single
// flight, fail-safe refresh, counters. Kept out of the public API.
import type {
  CacheGetOrSetOptions,
  CacheSetOptions,
  ICacheArea,
} from "./cache.ts";
import { isOpenTelemetryRegistered } from "../core/mod.ts";
import type { CacheError } from "./cache_error.ts";
import { CacheFactoryError } from "./cache_factory_error.ts";
import { CachePolicy, type CachePolicyOptions } from "./cache_policy.ts";
import { CachePolicyNotFoundError } from "./cache_policy_not_found_error.ts";
import type { CacheEntry, ICacheProvider } from "./cache_provider.ts";
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

/** What a write to a synchronous store returns: one settled promise, shared. */
const SETTLED: Promise<void> = Promise.resolve();

/** One factory run that concurrent callers share. */
interface Flight {
  promise: Promise<unknown>;
  /** Set by a later set/delete/clear: its result must not be stored. */
  superseded: boolean;
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
  readonly clock: () => number;
  readonly policies: Map<string, CachePolicy> = new Map();
  defaultPolicy: CachePolicy | undefined;
  readonly flights: Map<string, Flight> = new Map();
  readonly reads: Map<string, Promise<MaybeEntry>> = new Map();
  readonly writes: Set<Promise<void>> = new Set();
  readonly scopes: Counters[] = [];
  providerErrors = 0;
  readonly #onError: ((error: CacheError) => void) | undefined;

  constructor(
    provider: ICacheProvider,
    clock: () => number,
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
    for (const [key, flight] of [...this.flights]) {
      if (key.startsWith(prefix)) {
        flight.superseded = true;
        this.flights.delete(key);
      }
    }
  }

  track(write: Promise<void>): void {
    this.writes.add(write);
    write.then(() => this.writes.delete(write));
  }

  /** Reads through the provider, sharing one pending read per key. */
  read(fullKey: string): MaybeEntry | Promise<MaybeEntry> {
    if (this.reads.size !== 0) {
      const pending = this.reads.get(fullKey);
      if (pending !== undefined) return pending;
    }
    let result: MaybeEntry | Promise<MaybeEntry>;
    try {
      result = this.provider.get(fullKey);
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

  /** Stores a value; the returned promise never rejects. */
  write(
    fullKey: string,
    value: unknown,
    policy: CachePolicy | undefined,
    ttl: number | undefined,
  ): void | Promise<void> {
    const freshFor = ttl ?? policy?.ttl;
    const storedAt = this.clock();
    let entry: CacheEntry;
    let keep: number | undefined;
    if (freshFor === undefined) {
      entry = { value, storedAt };
    } else {
      const maxStale = policy?.maxStale ?? 0;
      entry = { value, storedAt, ttl: freshFor, maxStale };
      keep = freshFor + maxStale;
    }
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
        this.#core.clock() - entry.storedAt >= entry.ttl)
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
    if (options !== undefined) {
      try {
        ttl = checkTtl(options.ttl);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const fullKey = this.#prefix + key;
    const core = this.#core;
    core.invalidate(fullKey);
    // A synchronous store is done here: no async frame, no extra await.
    return core.write(fullKey, value, this.#policy, ttl) ?? SETTLED;
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
    factory: () => T | Promise<T>,
    options?: CacheGetOrSetOptions,
  ): Promise<T> {
    const fullKey = this.#prefix + key;
    let policy: CachePolicy | undefined;
    let ttl: number | undefined;
    if (options === undefined) {
      policy = this.#policy;
    } else {
      try {
        policy = options.policy === undefined
          ? this.#policy
          : this.#core.resolvePolicy(options.policy);
        ttl = checkTtl(options.ttl);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const entry = this.#core.read(fullKey);
    if (isThenable(entry)) {
      // A hit resolves with the value itself: no promise to adopt.
      return Promise.resolve(entry).then((found) =>
        this.#serves(fullKey, found, factory, policy, ttl)
          ? (found as CacheEntry).value as T
          : this.#wait(fullKey, factory, policy, ttl)
      );
    }
    return this.#serves(fullKey, entry, factory, policy, ttl)
      ? Promise.resolve((entry as CacheEntry).value as T)
      : this.#wait(fullKey, factory, policy, ttl);
  }

  /**
   * Applies the age bands of the policy to what the provider returned:
   * `true` when the stored value is to be returned (starting a background
   * refresh in the refresh and stale bands), `false` when the caller must
   * wait for the factory.
   */
  #serves<T>(
    fullKey: string,
    entry: MaybeEntry,
    factory: () => T | Promise<T>,
    policy: CachePolicy | undefined,
    ttl: number | undefined,
  ): boolean {
    const counters = this.#counters;
    const totals = this.#totals;
    if (entry === undefined) {
      counters.misses++;
      totals.misses++;
      return false;
    }
    const freshFor = entry.ttl;
    if (freshFor === undefined) {
      this.#hit();
      return true;
    }
    const age = this.#core.clock() - entry.storedAt;
    if (
      age <
        (policy === undefined ? freshFor : freshFor * policy.refreshThreshold)
    ) {
      this.#hit();
      return true;
    }
    if (age < freshFor) {
      counters.hits++;
      totals.hits++;
      this.#refresh(fullKey, factory, policy, ttl, "refresh");
      return true;
    }
    if (age < freshFor + (entry.maxStale ?? 0)) {
      counters.staleServed++;
      totals.staleServed++;
      this.#refresh(fullKey, factory, policy, ttl, "stale");
      return true;
    }
    counters.misses++;
    totals.misses++;
    return false;
  }

  /**
   * Counts a plain hit. Kept small, so that it is inlined: with no context
   * manager registered, the telemetry costs an AND and two property reads
   * per hit (noteHit), and a look for a new meter provider every 1,024th.
   */
  #hit(): void {
    this.#counters.hits++;
    if ((++this.#totals.hits & 1023) === 0) checkTelemetry();
    if (isOpenTelemetryRegistered("context")) noteHit(this.#telemetry.hit);
  }

  /** Joins the key's factory run, or starts one. */
  #wait<T>(
    fullKey: string,
    factory: () => T | Promise<T>,
    policy: CachePolicy | undefined,
    ttl: number | undefined,
  ): Promise<T> {
    const flight = this.#core.flights.get(fullKey) ??
      this.#run(fullKey, factory, policy, ttl, "miss");
    return flight.promise as Promise<T>;
  }

  #refresh<T>(
    fullKey: string,
    factory: () => T | Promise<T>,
    policy: CachePolicy | undefined,
    ttl: number | undefined,
    band: "refresh" | "stale",
  ): void {
    if (this.#core.flights.has(fullKey)) return;
    this.#counters.backgroundRefreshes++;
    this.#totals.backgroundRefreshes++;
    const flight = this.#run(fullKey, factory, policy, ttl, band);
    // Fail-safe: the stored value stays; the failure is reported.
    flight.promise.catch((error: unknown) =>
      this.#core.report(new CacheFactoryError(fullKey, error))
    );
  }

  /**
   * Starts a shared factory run; it stays joinable until its value is
   * stored. The run is traced: the span "cache getOrSet" (`result` is why it
   * runs) ends once the value is stored, and the factory runs inside it.
   */
  #run<T>(
    fullKey: string,
    factory: () => T | Promise<T>,
    policy: CachePolicy | undefined,
    ttl: number | undefined,
    result: "miss" | "stale" | "refresh",
  ): Flight {
    const core = this.#core;
    const flight: Flight = {
      promise: undefined as unknown as Promise<unknown>,
      superseded: false,
    };
    core.flights.set(fullKey, flight);
    const traced = startRun(this.#telemetry[result]);
    const span = traced.span;
    const done = () => {
      if (core.flights.get(fullKey) === flight) core.flights.delete(fullKey);
      span.end();
    };
    flight.promise = Promise.resolve().then(() => traced.run(factory)).then(
      (value) => {
        if (flight.superseded) {
          span.end();
          return value;
        }
        const written = core.write(fullKey, value, policy, ttl);
        if (written === undefined) done();
        else core.track(written.then(done));
        return value;
      },
      (error: unknown) => {
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
