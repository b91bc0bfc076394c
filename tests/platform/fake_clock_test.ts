// The test kit's FakeClock: time moves only through advance() and runAll(),
// timers fire in time order (also those scheduled inside the window), promise
// callbacks settle between timers, a self-rescheduling timer stops runAll()
// with a clear error, waitForTimers() waits (in real time, bounded) for a
// timer the code sets after real I/O, and bad input names the value.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "@vendor/kit-platform/testing";
import { type Clock, systemClock } from "../../core/mod.ts";
import { startTestServer } from "../_support/http_server.ts";

describe("FakeClock", () => {
  it("starts at a fixed epoch, or the one given", () => {
    assert.equal(
      new Date(new FakeClock().now()).toISOString(),
      "2000-01-01T00:00:00.000Z",
    );
    assert.equal(new FakeClock({ now: 1234 }).now(), 1234);
    assert.equal(
      new FakeClock({ now: new Date("2026-11-26T09:00:00Z") }).now(),
      Date.UTC(2026, 10, 26, 9),
    );
  });

  it("is a Clock, as systemClock is", () => {
    const clocks: Clock[] = [new FakeClock(), systemClock];
    for (const clock of clocks) {
      assert.equal(typeof clock.now(), "number");
      clock.clearTimeout(clock.setTimeout(() => {}, 10));
    }
  });

  it("stands still until advanced", async () => {
    const clock = new FakeClock({ now: 0 });
    let fired = 0;
    clock.setTimeout(() => fired++, 10);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(clock.now(), 0);
    assert.equal(fired, 0);
    assert.equal(clock.pending, 1);
    await clock.advance(9);
    assert.equal(fired, 0);
    await clock.advance(1);
    assert.equal(fired, 1);
    assert.equal(clock.now(), 10);
    assert.equal(clock.pending, 0);
  });

  it("fires due timers in time order, then in the order they were set, each at its own time", async () => {
    const clock = new FakeClock({ now: 0 });
    const seen: string[] = [];
    const note = (name: string) => () => seen.push(`${name}@${clock.now()}`);
    clock.setTimeout(note("c"), 300);
    clock.setTimeout(note("a"), 100);
    clock.setTimeout(note("b1"), 200);
    clock.setTimeout(note("b2"), 200);
    clock.setTimeout(note("late"), 1001);
    await clock.advance(1000);
    assert.deepEqual(seen, ["a@100", "b1@200", "b2@200", "c@300"]);
    assert.equal(clock.now(), 1000);
    assert.equal(clock.pending, 1);
  });

  it("runs timers scheduled by timers inside the window, and not those past it", async () => {
    const clock = new FakeClock({ now: 0 });
    const seen: number[] = [];
    const tick = () => {
      seen.push(clock.now());
      clock.setTimeout(tick, 100);
    };
    clock.setTimeout(tick, 100);
    await clock.advance(350);
    assert.deepEqual(seen, [100, 200, 300]);
    assert.equal(clock.pending, 1);
  });

  it("lets promise callbacks settle between timers, so a timer they set fires in the same advance", async () => {
    const clock = new FakeClock({ now: 0 });
    const wait = (ms: number) =>
      new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
    const seen: number[] = [];
    const job = (async () => {
      for (let i = 0; i < 3; i++) {
        await wait(1000);
        await Promise.resolve();
        seen.push(clock.now());
      }
      return "done";
    })();
    await clock.advance(3000);
    assert.deepEqual(seen, [1000, 2000, 3000]);
    assert.equal(await job, "done");
  });

  it("clearTimeout cancels; foreign handles are ignored", async () => {
    const clock = new FakeClock();
    let fired = false;
    const handle = clock.setTimeout(() => fired = true, 5);
    clock.clearTimeout(handle);
    clock.clearTimeout(undefined);
    clock.clearTimeout(42);
    clock.clearTimeout(new FakeClock().setTimeout(() => {}, 1));
    await clock.advance(10);
    assert.equal(fired, false);
  });

  it("treats a negative or NaN delay as 0, like setTimeout", async () => {
    const clock = new FakeClock({ now: 0 });
    const seen: number[] = [];
    clock.setTimeout(() => seen.push(1), -5);
    clock.setTimeout(() => seen.push(2), Number.NaN);
    await clock.advance(0);
    assert.deepEqual(seen, [1, 2]);
  });

  it("runAll() runs until nothing is pending and says how many ran", async () => {
    const clock = new FakeClock({ now: 0 });
    const seen: number[] = [];
    clock.setTimeout(() => {
      seen.push(clock.now());
      clock.setTimeout(() => seen.push(clock.now()), 30_000);
    }, 15 * 60_000);
    assert.equal(await clock.runAll(), 2);
    assert.deepEqual(seen, [900_000, 930_000]);
    assert.equal(clock.now(), 930_000);
    assert.equal(await clock.runAll(), 0);
  });

  it("runAll() throws a clear error on a timer that reschedules itself for ever", async () => {
    const clock = new FakeClock({ now: 0, maxTimers: 50 });
    let runs = 0;
    const loop = () => {
      runs++;
      clock.setTimeout(loop, 1000);
    };
    clock.setTimeout(loop, 1000);
    await assert.rejects(clock.runAll(), {
      name: "Error",
      message:
        "FakeClock.runAll(): 50 timers ran and 1 still pending: a timer keeps scheduling another (a periodic job or an endless retry loop?); move time by a fixed amount with advance(ms) instead, or raise maxTimers",
    });
    assert.equal(runs, 50);
  });

  it("runs the other timers when one throws, then throws the first error", async () => {
    const clock = new FakeClock({ now: 0 });
    let after = false;
    clock.setTimeout(() => {
      throw new Error("first");
    }, 1);
    clock.setTimeout(() => {
      throw new Error("second");
    }, 2);
    clock.setTimeout(() => after = true, 3);
    await assert.rejects(clock.advance(10), { message: "first" });
    assert.equal(after, true);
    assert.equal(clock.now(), 10);
  });

  it("refuses a negative, NaN or infinite advance, naming the value", async () => {
    const clock = new FakeClock({ now: 0 });
    for (const value of [-1, Number.NaN, Infinity]) {
      await assert.rejects(clock.advance(value), {
        name: "RangeError",
        message:
          `FakeClock.advance(): ms must be a finite number of milliseconds of at least 0, got ${value}`,
      });
    }
    await assert.rejects(clock.advance("5" as unknown as number), {
      name: "RangeError",
      message: /got 5$/,
    });
    assert.equal(clock.now(), 0);
  });

  it("refuses a bad start time or bound, naming it", () => {
    assert.throws(() => new FakeClock({ now: Number.NaN }), {
      name: "RangeError",
      message:
        "FakeClock: now must be a finite number of milliseconds since the epoch or a valid Date, got NaN",
    });
    assert.throws(() => new FakeClock({ now: new Date("nope") }), {
      name: "RangeError",
      message: /got Invalid Date$/,
    });
    assert.throws(() => new FakeClock({ maxTimers: 0 }), {
      name: "RangeError",
      message: "FakeClock: maxTimers must be a positive integer, got 0",
    });
  });

  it("waitForTimers() resolves once the code has set its timer after real I/O, and advance() then fires it", async () => {
    const clock = new FakeClock({ now: 0 });
    // The timer is set only after a real answer over loopback.
    await using server = await startTestServer((_request, response) => {
      response.end("429");
    });
    const done = fetch(server.url).then(async (response) => {
      await response.text();
      return new Promise<number>((resolve) =>
        clock.setTimeout(() => resolve(clock.now()), 45_000)
      );
    });
    assert.equal(clock.pending, 0);
    assert.equal(await clock.waitForTimers(1, { timeout: 10_000 }), 1);
    await clock.advance(45_000);
    assert.equal(await done, 45_000);
    // Already there: resolves at once.
    clock.setTimeout(() => {}, 10);
    clock.setTimeout(() => {}, 20);
    assert.equal(await clock.waitForTimers(2), 2);
    assert.equal(await clock.waitForTimers(), 2);
  });

  it("waitForTimers() with within counts only the timers due that soon", async () => {
    const clock = new FakeClock({ now: 0 });
    // A total timeout minutes away is not the retry wait the test is after.
    clock.setTimeout(() => {}, 300_000);
    let settled = false;
    const waiting = clock.waitForTimers(1, { within: 45_000 }).then((n) => {
      settled = true;
      return n;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(settled, false);
    clock.setTimeout(() => {}, 45_001);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(settled, false);
    clock.setTimeout(() => {}, 45_000);
    assert.equal(await waiting, 1);
    assert.equal(await clock.waitForTimers(3), 3);
  });

  it("waitForTimers() fails after its timeout, naming how many timers it waited for and how many there were", async () => {
    const clock = new FakeClock({ now: 0 });
    clock.setTimeout(() => {}, 300_000);
    const started = performance.now();
    await assert.rejects(clock.waitForTimers(2, { timeout: 200 }), {
      name: "Error",
      message:
        "FakeClock.waitForTimers(): waited 200 ms of real time for 2 timers, and 1 is pending: the code under test has not set them (is it still waiting for I/O, did it fail, or does it set fewer timers on this clock?)",
    });
    assert.ok(performance.now() - started >= 190);
    await assert.rejects(
      clock.waitForTimers(1, { timeout: 50, within: 45_000 }),
      {
        message:
          "FakeClock.waitForTimers(): waited 50 ms of real time for 1 timer due within 45000 ms, and 0 are pending: the code under test has not set its timer (is it still waiting for I/O, did it fail, or does it set fewer timers on this clock?)",
      },
    );
    // The fake time did not move while it waited.
    assert.equal(clock.now(), 0);
    // A timer set after the failure is counted by the next wait.
    clock.setTimeout(() => {}, 10);
    assert.equal(await clock.waitForTimers(2, { timeout: 50 }), 2);
  });

  it("waitForTimers() refuses a bad count, timeout or within, naming the value", async () => {
    const clock = new FakeClock();
    const cases: Array<
      [number, { timeout?: number; within?: number }, string]
    > = [
      [0, {}, "count must be a positive integer, got 0"],
      [1.5, {}, "count must be a positive integer, got 1.5"],
      [
        1,
        { timeout: 0 },
        "timeout must be a positive finite number of milliseconds, got 0",
      ],
      [
        1,
        { timeout: Infinity },
        "timeout must be a positive finite number of milliseconds, got Infinity",
      ],
      [
        1,
        { within: -1 },
        "within must be a finite number of milliseconds of at least 0, got -1",
      ],
      [
        1,
        { within: Number.NaN },
        "within must be a finite number of milliseconds of at least 0, got NaN",
      ],
    ];
    for (const [count, options, message] of cases) {
      await assert.rejects(clock.waitForTimers(count, options), {
        name: "RangeError",
        message: `FakeClock.waitForTimers(): ${message}`,
      });
    }
  });

  it("refuses to advance while another advance is still running", async () => {
    const clock = new FakeClock();
    const first = clock.advance(10);
    await assert.rejects(clock.advance(5), {
      message:
        "FakeClock.advance(): advance() of this clock is still running; await it first",
    });
    await first;
  });
});
