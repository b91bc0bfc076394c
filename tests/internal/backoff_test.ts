// The one backoff rule of Kit's retrying parts (HTTP client, remote log
// delivery, analytics delivery): capped exponential growth, a jitter
// fraction (1 = full jitter), the server's Retry-After first, and waits on
// an injectable clock that end early when a signal aborts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Clock } from "../../core/mod.ts";
import {
  backoffDelay,
  retryDelay,
  sleep,
} from "../../internal/delivery/backoff.ts";

// A clock whose timers fire only when the test says so.
class ManualClock implements Clock {
  time = 1_000_000;
  timers = new Map<number, { at: number; callback: () => void }>();
  #next = 1;
  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.timers.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  advance(ms: number): void {
    this.time += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at <= this.time) {
        this.timers.delete(id);
        timer.callback();
      }
    }
  }
}

describe("backoffDelay()", () => {
  it("doubles from the base delay and stops at the cap, without jitter", () => {
    const options = { base: 100, max: 1_000, jitter: 0 };
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, options)),
      [100, 200, 400, 800, 1_000, 1_000],
    );
  });

  it("uses full jitter by default: anywhere from nothing to the nominal delay", () => {
    const options = { base: 100, max: 10_000 };
    assert.equal(backoffDelay(3, { ...options, random: () => 0 }), 400);
    assert.equal(backoffDelay(3, { ...options, random: () => 0.5 }), 200);
    assert.ok(backoffDelay(3, { ...options, random: () => 0.999 }) < 1);
    for (let i = 0; i < 200; i++) {
      const delay = backoffDelay(3, options);
      assert.ok(delay > 0 && delay <= 400, String(delay));
    }
  });

  it("takes off at most the jitter fraction", () => {
    const options = { base: 1_000, max: 10_000, jitter: 0.5 };
    assert.equal(backoffDelay(1, { ...options, random: () => 0 }), 1_000);
    assert.equal(backoffDelay(1, { ...options, random: () => 1 }), 500);
  });

  it("refuses a jitter outside 0..1 and an attempt below 1", () => {
    assert.throws(
      () => backoffDelay(1, { base: 1, max: 1, jitter: 2 }),
      /jitter must be between 0 and 1, got 2/,
    );
    assert.throws(
      () => backoffDelay(0, { base: 1, max: 1 }),
      /attempt must be a whole number from 1, got 0/,
    );
  });
});

describe("retryDelay()", () => {
  const options = { base: 100, max: 5_000, jitter: 0 };

  it("waits as long as Retry-After says in seconds, capped", () => {
    assert.equal(retryDelay(1, options, "2"), 2_000);
    assert.equal(retryDelay(1, options, "1.5"), 1_500);
    assert.equal(retryDelay(1, options, "120"), 5_000);
  });

  it("measures an HTTP-date Retry-After against the clock", () => {
    const clock = new ManualClock();
    clock.time = Date.UTC(2015, 9, 21, 7, 27, 58);
    assert.equal(
      retryDelay(1, options, "Wed, 21 Oct 2015 07:28:00 GMT", clock),
      2_000,
    );
    clock.time = Date.UTC(2015, 9, 21, 7, 29);
    assert.equal(
      retryDelay(1, options, "Wed, 21 Oct 2015 07:28:00 GMT", clock),
      0,
    );
  });

  it("falls back to the backoff when Retry-After is absent or unreadable", () => {
    assert.equal(retryDelay(3, options, null), 400);
    assert.equal(retryDelay(3, options, undefined), 400);
    assert.equal(retryDelay(3, options, "soon"), 400);
  });
});

describe("sleep()", () => {
  it("waits on the given clock", async () => {
    const clock = new ManualClock();
    let done: boolean | undefined;
    const waiting = sleep(clock, 1_000).then((value) => done = value);
    clock.advance(999);
    await Promise.resolve();
    assert.equal(done, undefined);
    clock.advance(1);
    await waiting;
    assert.equal(done, true);
    assert.equal(clock.timers.size, 0);
  });

  it("ends early, with false, when a signal aborts, and clears its timer", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const waiting = sleep(clock, 60_000, undefined, controller.signal);
    controller.abort();
    assert.equal(await waiting, false);
    assert.equal(clock.timers.size, 0);
    assert.equal(await sleep(clock, 10, controller.signal), false);
  });

  it("never asks a timer for more than setTimeout accepts", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const waiting = sleep(clock, Number.MAX_SAFE_INTEGER, controller.signal);
    const [timer] = clock.timers.values();
    assert.equal(timer.at - clock.time, 2_147_483_647);
    controller.abort();
    await waiting;
  });
});
