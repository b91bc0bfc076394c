// The outage tracker behind the delivery queue: one lead retries while the
// others wait, it gives up after its retries, then only probes go, one at a
// time and no more often than minProbeInterval on the clock given.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { OutageTracker } from "../../internal/delivery/outage_tracker.ts";

// A clock whose "now" the test moves.
function manualClock(): { now(): number; at: number } {
  return {
    at: 1_000,
    now() {
      return this.at;
    },
  };
}

describe("OutageTracker", () => {
  it("starts up and lets the sender's concurrency through", () => {
    const tracker = new OutageTracker<string>();
    assert.equal(tracker.state, "up");
    assert.equal(tracker.allowed(4), 4);
  });

  it("lets one lead retry alone; another batch that fails waits", () => {
    const tracker = new OutageTracker<string>();
    assert.equal(tracker.failed("a", 1, 3), "retry");
    assert.equal(tracker.state, "retrying");
    assert.equal(tracker.lead, "a");
    assert.equal(tracker.allowed(4), 0);
    assert.equal(tracker.failed("b", 1, 3), "wait");
    assert.equal(tracker.failed("a", 2, 3), "retry");
  });

  it("goes down when the lead used up its retries; a failed probe keeps it down", () => {
    const tracker = new OutageTracker<string>();
    assert.equal(tracker.failed("a", 1, 1), "retry");
    assert.equal(tracker.failed("a", 2, 1), "give-up");
    assert.equal(tracker.state, "down");
    assert.equal(tracker.lead, undefined);
    assert.equal(tracker.allowed(4), 1, "one probe at a time");
    assert.equal(tracker.failed("b", 1, 1), "probe-failed");
    assert.equal(tracker.state, "down");
  });

  it("comes back up on an answer, unless another batch leads", () => {
    const tracker = new OutageTracker<string>();
    tracker.failed("a", 1, 3);
    tracker.answered("b");
    assert.equal(tracker.state, "retrying", "b does not end a's schedule");
    tracker.answered("a");
    assert.equal(tracker.state, "up");
    tracker.failed("c", 1, 0);
    assert.equal(tracker.state, "down");
    tracker.answered("d");
    assert.equal(tracker.state, "up", "a probe that gets through");
  });

  it("forgets a lead given up on from outside", () => {
    const tracker = new OutageTracker<string>();
    tracker.failed("a", 1, 3);
    tracker.released("b");
    assert.equal(tracker.state, "retrying");
    tracker.released("a");
    assert.equal(tracker.state, "up");
  });

  it("bounds the probe rate by minProbeInterval on its clock", () => {
    const clock = manualClock();
    const tracker = new OutageTracker<string>({
      clock,
      minProbeInterval: 500,
    });
    tracker.failed("a", 1, 0);
    assert.equal(tracker.state, "down");
    // The lead's last attempt was the first probe.
    assert.equal(tracker.allowed(4), 0);
    assert.equal(tracker.probeDelay(), 500);
    clock.at += 499;
    assert.equal(tracker.allowed(4), 0);
    assert.equal(tracker.probeDelay(), 1);
    clock.at += 1;
    assert.equal(tracker.allowed(4), 1);
    tracker.probing();
    assert.equal(tracker.allowed(4), 0, "the next probe waits again");
    assert.equal(tracker.probeDelay(), 500);
  });

  it("refuses a negative minProbeInterval, naming it", () => {
    assert.throws(
      () => new OutageTracker({ minProbeInterval: -1 }),
      /minProbeInterval must be a number of milliseconds from 0, got -1/,
    );
  });
});
