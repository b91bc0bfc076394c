import type { Clock } from "../../core/mod.ts";

/**
 * Options of a {@linkcode FakeClock}.
 *
 * @example Usage
 * ```ts
 * import type { FakeClockOptions } from "@vendor/kit/testing";
 *
 * const options: FakeClockOptions = { now: new Date("2026-11-26T09:00:00Z") };
 * ```
 */
export interface FakeClockOptions {
  /**
   * The time the clock starts at: milliseconds since the epoch, or a
   * `Date`. Default 2000-01-01T00:00:00Z (946684800000), the same in every
   * run, so a test never depends on the day it runs.
   */
  now?: number | Date;
  /**
   * How many timers {@linkcode FakeClock.runAll} runs at most before it
   * decides that timers keep scheduling timers and throws. Default 1000.
   */
  maxTimers?: number;
}

/**
 * Options of {@linkcode FakeClock.waitForTimers}.
 *
 * @example Usage
 * ```ts
 * import type { WaitForTimersOptions } from "@vendor/kit/testing";
 *
 * // A retry wait of at most 45 s, not a total timeout minutes away.
 * const options: WaitForTimersOptions = { within: 45_000, timeout: 5_000 };
 * ```
 */
export interface WaitForTimersOptions {
  /**
   * How long to wait at most, in milliseconds of real time (the fake time
   * does not move while waiting). Default 10000: far more than a request on
   * loopback takes, even on a busy machine.
   */
  timeout?: number;
  /**
   * Counts only the timers due within this many milliseconds of `now()`:
   * the one the test is about (a retry wait of 45 s), and not another the
   * code keeps on the same clock further off (a total timeout of 5
   * minutes). Default: every pending timer.
   */
  within?: number;
}

/** One pending timer of a fake clock. */
interface FakeTimer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/** The handle `setTimeout` returns: only its identity matters. */
class FakeTimerHandle {
  readonly id: number;
  constructor(id: number) {
    this.id = id;
  }
}

// 2000-01-01T00:00:00Z.
const DEFAULT_START = 946_684_800_000;

// The runtime's own way to run a callback after the current task, taken when
// the module loads, so fake timers a test runner installs later (Vitest's
// vi.useFakeTimers) cannot stop a FakeClock from settling.
const defer: (callback: () => void) => void = (() => {
  const immediate = (globalThis as {
    setImmediate?: (callback: () => void) => unknown;
  }).setImmediate;
  const timeout = globalThis.setTimeout;
  return typeof immediate === "function"
    ? (callback) => void immediate(callback)
    : (callback) => void timeout(callback, 0);
})();

// The runtime's own timers, taken when the module loads for the same reason:
// the bound of waitForTimers() is real time, whatever a runner replaced.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

// Lets promise callbacks (and what they schedule) run: a macrotask runs only
// once every queued microtask has.
function settle(): Promise<void> {
  return new Promise((resolve) => defer(resolve));
}

/**
 * A {@linkcode Clock} whose time moves only when a test says so: give it as
 * the `clock` option of a `CacheManager`, `MemoryCacheProvider`,
 * `LocalizationCache`, analytics provider, `RemoteLogProvider` or
 * `HttpClient`, then `await clock.advance(ms)` to run, in milliseconds of
 * real time, what would take minutes. Nothing global is replaced: only the
 * parts given this clock see fake time.
 *
 * `advance` and `runAll` are asynchronous: Kit's timed work goes on in
 * promise callbacks (a retry wait ends, then the next attempt is sent; a
 * batch timer fires, then the batch is posted), so between two timers the
 * clock lets pending promise callbacks run, and a timer they schedule
 * within the window fires too. Await them.
 *
 * Real I/O is not a promise callback: code that sets its timer after a
 * real answer (a client's retry wait once the server's 429 is read) sets it
 * at a moment the test does not control. Wait for it with
 * {@linkcode FakeClock.waitForTimers} before advancing, or the clock may
 * move past nothing and the timer be set later, from the new time.
 *
 * @example A cache entry that goes stale after 15 minutes
 * ```ts
 * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
 * import { FakeClock } from "@vendor/kit/testing";
 *
 * const clock = new FakeClock();
 * const cache = new CacheManager(new MemoryCacheProvider({ clock }), {
 *   clock,
 * });
 * await cache.set("greeting", "hello", { ttl: 15 * 60_000 });
 * await clock.advance(15 * 60_000);
 * console.log(await cache.get("greeting")); // undefined
 * await cache.dispose();
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  readonly #maxTimers: number;
  readonly #timers = new Map<number, FakeTimer>();
  #nextId = 1;
  #running: string | undefined;
  // The checks of waitForTimers() calls still waiting, run on each new timer.
  readonly #waiters = new Set<() => void>();

  /**
   * Creates a clock standing still at `options.now`.
   *
   * @param options `now` (default 2000-01-01T00:00:00Z) and `maxTimers`
   * (default 1000).
   * @throws {RangeError} When `now` is not a finite time or a valid `Date`,
   * or `maxTimers` is not a positive integer, naming the value.
   *
   * @example Usage
   * ```ts
   * import { FakeClock } from "@vendor/kit/testing";
   *
   * const clock = new FakeClock({ now: Date.UTC(2026, 10, 26) });
   * console.log(new Date(clock.now()).toISOString()); // "2026-11-26T00:00:00.000Z"
   * ```
   */
  constructor(options: FakeClockOptions = {}) {
    const start = options.now ?? DEFAULT_START;
    const time = start instanceof Date ? start.getTime() : start;
    if (typeof time !== "number" || !Number.isFinite(time)) {
      throw new RangeError(
        `FakeClock: now must be a finite number of milliseconds since the epoch or a valid Date, got ${
          String(start)
        }`,
      );
    }
    const maxTimers = options.maxTimers ?? 1000;
    if (!Number.isSafeInteger(maxTimers) || maxTimers < 1) {
      throw new RangeError(
        `FakeClock: maxTimers must be a positive integer, got ${
          String(maxTimers)
        }`,
      );
    }
    this.#now = time;
    this.#maxTimers = maxTimers;
  }

  /**
   * The clock's time, in milliseconds since the epoch.
   *
   * @returns The time.
   *
   * @example Usage
   * ```ts
   * import { FakeClock } from "@vendor/kit/testing";
   *
   * const clock = new FakeClock({ now: 0 });
   * await clock.advance(1500);
   * console.log(clock.now()); // 1500
   * ```
   */
  now(): number {
    return this.#now;
  }

  /**
   * How many timers are waiting.
   *
   * @returns The count.
   *
   * @example Usage
   * ```ts
   * import { FakeClock } from "@vendor/kit/testing";
   *
   * const clock = new FakeClock();
   * clock.setTimeout(() => {}, 10);
   * console.log(clock.pending); // 1
   * ```
   */
  get pending(): number {
    return this.#timers.size;
  }

  /**
   * Schedules `callback` to run when the clock reaches `now() + ms`
   * (through {@linkcode FakeClock.advance} or {@linkcode FakeClock.runAll});
   * never on its own.
   *
   * @param callback What to run.
   * @param ms The delay; a negative or non-finite delay counts as 0, as with
   * the global `setTimeout`.
   * @returns A handle for {@linkcode FakeClock.clearTimeout}.
   *
   * @example Usage
   * ```ts
   * import { FakeClock } from "@vendor/kit/testing";
   *
   * const clock = new FakeClock();
   * let fired = false;
   * clock.setTimeout(() => fired = true, 1000);
   * await clock.advance(1000);
   * console.log(fired); // true
   * ```
   */
  setTimeout(callback: () => void, ms: number): unknown {
    if (typeof callback !== "function") {
      throw new TypeError(
        `FakeClock.setTimeout(): callback must be a function, got ${typeof callback}`,
      );
    }
    const delay = typeof ms === "number" && ms > 0 && Number.isFinite(ms)
      ? ms
      : 0;
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + delay, callback });
    for (const check of [...this.#waiters]) check();
    return new FakeTimerHandle(id);
  }

  /**
   * Cancels a pending timer; anything else (a handle of another clock, a
   * timer that already ran, `undefined`) is ignored.
   *
   * @param handle What {@linkcode FakeClock.setTimeout} returned.
   *
   * @example Usage
   * ```ts
   * import { FakeClock } from "@vendor/kit/testing";
   *
   * const clock = new FakeClock();
   * clock.clearTimeout(clock.setTimeout(() => {}, 10));
   * console.log(clock.pending); // 0
   * ```
   */
  clearTimeout(handle: unknown): void {
    if (handle instanceof FakeTimerHandle) this.#timers.delete(handle.id);
  }

  /**
   * Waits, in real time, until the code under test has set `count` timers
   * on this clock (counted among those pending, or among those due within
   * `options.within` ms when given). Call it before
   * {@linkcode FakeClock.advance} whenever the timer is set after real I/O:
   * a client sets its retry wait only once it has read the server's answer,
   * which on a busy machine can come well after the server saw the request.
   * Advanced too early, the clock moves past nothing; the timer is then set
   * from the new time, and a test that awaits the call would wait for ever.
   *
   * It never hangs: after `options.timeout` ms of real time (default 10000)
   * it rejects with an error that says how many timers it waited for and how
   * many there were. The fake time does not move while it waits.
   *
   * @param count How many timers to wait for, at least 1 (default 1).
   * @param options `timeout` (real milliseconds, default 10000) and `within`
   * (count only timers due within that many fake milliseconds of `now()`).
   * @returns A promise of how many timers are pending (due within `within`,
   * when given) once there are at least `count`.
   * @throws {RangeError} (as a rejection) When `count` is not a positive
   * integer, `timeout` not a positive finite number, or `within` not a
   * finite number of at least 0, naming the value.
   * @throws {Error} (as a rejection) When `timeout` ms passed with fewer
   * timers set, naming how many it waited for and how many there were.
   *
   * @example A retry wait set after real I/O
   * ```ts
   * import { FakeClock } from "@vendor/kit/testing";
   *
   * const clock = new FakeClock({ now: 0 });
   * // Code that sets its timer once some real I/O is done (here a real 20 ms).
   * const done = new Promise<number>((resolve) => {
   *   setTimeout(() => clock.setTimeout(() => resolve(clock.now()), 45_000), 20);
   * });
   * await clock.waitForTimers(1, { within: 45_000, timeout: 5_000 });
   * await clock.advance(45_000);
   * console.log(await done); // 45000
   * ```
   */
  waitForTimers(
    count = 1,
    options: WaitForTimersOptions = {},
  ): Promise<number> {
    const { timeout = 10_000, within } = options;
    const bad = !Number.isSafeInteger(count) || count < 1
      ? `count must be a positive integer, got ${String(count)}`
      : typeof timeout !== "number" || !Number.isFinite(timeout) ||
          timeout <= 0
      ? `timeout must be a positive finite number of milliseconds, got ${
        String(timeout)
      }`
      : within !== undefined &&
          (typeof within !== "number" || !Number.isFinite(within) ||
            within < 0)
      ? `within must be a finite number of milliseconds of at least 0, got ${
        String(within)
      }`
      : undefined;
    if (bad !== undefined) {
      return Promise.reject(
        new RangeError(`FakeClock.waitForTimers(): ${bad}`),
      );
    }
    const counted = (): number => {
      if (within === undefined) return this.#timers.size;
      let due = 0;
      for (const timer of this.#timers.values()) {
        if (timer.at <= this.#now + within) due++;
      }
      return due;
    };
    const already = counted();
    if (already >= count) return Promise.resolve(already);
    return new Promise<number>((resolve, reject) => {
      const check = (): void => {
        const now = counted();
        if (now < count) return;
        this.#waiters.delete(check);
        realClearTimeout(timer);
        resolve(now);
      };
      // A ref'd timer on purpose: it keeps the test running until the bound,
      // so the wait ends with this error rather than a runner's complaint
      // that a promise never settled.
      const timer = realSetTimeout(() => {
        this.#waiters.delete(check);
        const which = within === undefined ? "" : ` due within ${within} ms`;
        const found = counted();
        reject(
          new Error(
            `FakeClock.waitForTimers(): waited ${timeout} ms of real time for ${count} timer${
              count === 1 ? "" : "s"
            }${which}, and ${found} ${
              found === 1 ? "is" : "are"
            } pending: the code under test has not set ${
              count === 1 ? "its timer" : "them"
            } (is it still waiting for I/O, did it fail, or does it set fewer timers on this clock?)`,
          ),
        );
      }, timeout);
      this.#waiters.add(check);
    });
  }

  /**
   * Moves the time forward by `ms`, running each timer that falls due on the
   * way in the order of its time (then of scheduling), the clock standing at
   * that timer's time while it runs; timers scheduled meanwhile run too when
   * they fall within the window. Pending promise callbacks run before each
   * timer and once more at the end, so awaiting `advance` leaves the work
   * the timers started as far along as it can get without real I/O. When a
   * timer throws, the others still run and the first error is thrown at the
   * end.
   *
   * @param ms Milliseconds, at least 0.
   * @returns A promise that resolves once the time is `now() + ms`.
   * @throws {RangeError} (as a rejection) When `ms` is negative, `NaN` or
   * not finite, naming it.
   * @throws {Error} (as a rejection) When another `advance()` or `runAll()`
   * of this clock has not finished (one was not awaited, or a timer calls
   * it).
   *
   * @example Usage
   * ```ts
   * import { FakeClock } from "@vendor/kit/testing";
   *
   * const clock = new FakeClock({ now: 0 });
   * const seen: number[] = [];
   * clock.setTimeout(() => {
   *   seen.push(clock.now());
   *   clock.setTimeout(() => seen.push(clock.now()), 50);
   * }, 100);
   * await clock.advance(200);
   * console.log(seen); // [100, 150]
   * ```
   */
  advance(ms: number): Promise<void> {
    if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) {
      return Promise.reject(
        new RangeError(
          `FakeClock.advance(): ms must be a finite number of milliseconds of at least 0, got ${
            String(ms)
          }`,
        ),
      );
    }
    return this.#exclusive("advance()", async () => {
      const target = this.#now + ms;
      let first: { error: unknown } | undefined;
      for (;;) {
        await settle();
        const timer = this.#next();
        if (timer === undefined || timer.at > target) break;
        const error = this.#fire(timer);
        if (error !== undefined) first ??= error;
      }
      this.#now = target;
      await settle();
      if (first !== undefined) throw first.error;
    });
  }

  /**
   * Runs timers, earliest first, moving the time to each, until none is
   * pending (timers scheduled meanwhile included), letting pending promise
   * callbacks run between them. A timer that keeps scheduling another (a
   * periodic job, a retry loop that never ends) would never let it finish:
   * after `maxTimers` timers it throws instead; use
   * {@linkcode FakeClock.advance} for such work.
   *
   * @returns How many timers ran.
   * @throws {Error} (as a rejection) When more than `maxTimers` timers ran
   * and some are still pending, saying how many; the first error a timer
   * threw, once the rest have run; or when another `advance()` or `runAll()`
   * of this clock has not finished.
   *
   * @example Usage
   * ```ts
   * import { FakeClock } from "@vendor/kit/testing";
   *
   * const clock = new FakeClock({ now: 0 });
   * clock.setTimeout(() => {}, 30_000);
   * console.log(await clock.runAll(), clock.now()); // 1 30000
   * ```
   */
  runAll(): Promise<number> {
    return this.#exclusive("runAll()", async () => {
      let ran = 0;
      let first: { error: unknown } | undefined;
      for (;;) {
        await settle();
        const timer = this.#next();
        if (timer === undefined) break;
        if (ran === this.#maxTimers) {
          throw new Error(
            `FakeClock.runAll(): ${ran} timers ran and ${this.#timers.size} still pending: a timer keeps scheduling another (a periodic job or an endless retry loop?); move time by a fixed amount with advance(ms) instead, or raise maxTimers`,
          );
        }
        ran++;
        const error = this.#fire(timer);
        if (error !== undefined) first ??= error;
      }
      if (first !== undefined) throw first.error;
      return ran;
    });
  }

  async #exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    if (this.#running !== undefined) {
      throw new Error(
        `FakeClock.${name}: ${this.#running} of this clock is still running; await it first`,
      );
    }
    this.#running = name;
    try {
      return await work();
    } finally {
      this.#running = undefined;
    }
  }

  // The pending timer due first (of two at the same time, the one set first).
  #next(): FakeTimer | undefined {
    let next: FakeTimer | undefined;
    for (const timer of this.#timers.values()) {
      if (next === undefined || timer.at < next.at) next = timer;
    }
    return next;
  }

  // Runs a due timer at its time; returns what it threw, if anything.
  #fire(timer: FakeTimer): { error: unknown } | undefined {
    this.#timers.delete(timer.id);
    if (timer.at > this.#now) this.#now = timer.at;
    try {
      timer.callback();
      return undefined;
    } catch (error) {
      return { error };
    }
  }
}
