// scripts/_node_limit_reporter.ts, the reporter scripts/test_npm.ts gives
// `node --test` beside the TAP one: for a test file that ran past its limit
// it names the test the file was running, from the events Node.js 20 sends
// (recorded from a real run: a file's own events carry its path as their
// name; its tests start with test:dequeue and end with test:complete). The
// scripts run from a checkout under Deno; under Node.js and Bun (the npm
// passes) there is nothing to run.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;
const skip = isDeno ? false : "the scripts run from a checkout under Deno";

interface Event {
  type: string;
  data: {
    name: string;
    nesting: number;
    file: string;
    details?: { error: { failureType: string; message: string } };
  };
}

// The reporter, loaded only where it runs (see run_test.ts).
function load(): Promise<
  { default: (source: AsyncIterable<Event>) => AsyncGenerator<string> }
> {
  return import(
    new URL("../../scripts/_node_limit_reporter.ts", import.meta.url).href
  );
}

const FILE = "/tmp/npm/tests/esm/http/fake_clock_test.js";
const event = (
  type: string,
  name: string,
  nesting: number,
  file = FILE,
): Event => ({ type, data: { name, nesting, file } });
const timedOut = (file = FILE): Event => ({
  type: "test:fail",
  data: {
    name: file,
    nesting: 0,
    file,
    details: {
      error: {
        failureType: "testTimeoutFailure",
        message: "test timed out after 300000ms",
      },
    },
  },
});

async function report(events: Event[]): Promise<string[]> {
  const { default: reporter } = await load();
  async function* source(): AsyncGenerator<Event> {
    yield* events;
  }
  const lines: string[] = [];
  for await (const line of reporter(source())) lines.push(line);
  return lines;
}

describe("scripts/_node_limit_reporter.ts", { skip }, () => {
  it("names the test a file was running when it ran past its limit", async () => {
    assert.deepEqual(
      await report([
        event("test:dequeue", FILE, 0),
        event("test:dequeue", "HttpClient with a FakeClock", 0),
        event("test:dequeue", "waits retryDelay on the clock", 1),
        event("test:complete", "waits retryDelay on the clock", 1),
        event("test:pass", "waits retryDelay on the clock", 1),
        event("test:dequeue", "waits a Retry-After on the clock", 1),
        event("test:complete", FILE, 0),
        timedOut(),
      ]),
      [
        `# TIMED OUT: ${FILE} ran past its limit of 300 s while running: HttpClient with a FakeClock > waits a Retry-After on the clock\n`,
      ],
    );
  });

  it("says so when no test had started, and keeps files apart", async () => {
    const other = "/tmp/npm/tests/esm/other_test.js";
    assert.deepEqual(
      await report([
        event("test:dequeue", "a test of the other file", 0, other),
        event("test:dequeue", FILE, 0),
        timedOut(),
      ]),
      [
        `# TIMED OUT: ${FILE} ran past its limit of 300 s before any of its tests started (its top-level code was running)\n`,
      ],
    );
  });

  it("prints nothing for files that end in time, or fail otherwise", async () => {
    assert.deepEqual(
      await report([
        event("test:dequeue", FILE, 0),
        event("test:dequeue", "a test", 0),
        event("test:complete", "a test", 0),
        event("test:fail", "a test", 0),
        event("test:complete", FILE, 0),
        { ...event("test:fail", FILE, 0) },
      ]),
      [],
    );
  });
});
