// A script that logs to a remote endpoint and ends without dispose(): what
// can be delivered is flushed (bounded) when the event loop runs empty, and
// what is lost is counted on stderr. Each test runs a child process of the
// runtime running the tests (Deno here; Node.js and Bun in the npm passes).
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import {
  type RecordedRequest,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import { runChild } from "./_helpers.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

function ids(requests: RecordedRequest[]): number[] {
  return requests.flatMap((request) =>
    (JSON.parse(request.body).entries as {
      category: string;
      properties: { id: number };
    }[])
      .filter((item) => item.category !== "kit.logging")
      .map((item) => item.properties.id)
  );
}

const LOG = (count: number): string =>
  `for (let i = 0; i < ${count}; i++) {
  await remote.log({ timestamp: new Date(), level: LogLevel.Info, category: "x", message: "m", properties: { id: i } });
}`;

test("A script that ends without dispose() still delivers its buffered entries", async () => {
  const server = await startCollector();
  try {
    const result = await runChild(
      `import { LogLevel, RemoteLogProvider } from LOGGING;
const remote = new RemoteLogProvider({ endpoint: ${
        JSON.stringify(`${server.url}/ingest`)
      }, batchSize: 100, flushInterval: 60000 });
${LOG(250)}
console.log("script ended");
`,
    );
    assert.equal(result.code, 0, result.out);
    assert.match(result.out, /script ended/);
    assert.deepEqual(
      ids(server.requests),
      Array.from({ length: 250 }, (_, i) => i),
    );
    assert.equal(result.stderr, "", "nothing lost, nothing reported");
  } finally {
    await server.close();
  }
});

test("A script that ends without dispose() against a refusing endpoint exits within the bound and reports the loss on stderr", async () => {
  const server = await startTestServer();
  const url = `${server.url}/ingest`;
  await server.close();
  const result = await runChild(
    `import { LogLevel, RemoteLogProvider } from LOGGING;
const remote = new RemoteLogProvider({ endpoint: ${
      JSON.stringify(url)
    }, flushInterval: 60000, maxRetries: 10, retryDelay: 1000 });
${LOG(30)}
`,
  );
  assert.equal(result.code, 0, result.out);
  // The exit flush is bounded to 2 s; ten retries would take minutes.
  assert.ok(result.ms < 20_000, `the child took ${result.ms} ms`);
  assert.match(
    result.stderr,
    /RemoteLogProvider: 30 entries dropped: flush\(\) stopped \(Timed out after 2000 ms\)/,
  );
});

test("A script that exits at once reports on stderr how many entries were not delivered", async () => {
  const server = await startCollector();
  try {
    const result = await runChild(
      `import process from "node:process";
import { LogLevel, RemoteLogProvider } from LOGGING;
const remote = new RemoteLogProvider({ endpoint: ${
        JSON.stringify(`${server.url}/ingest`)
      }, flushInterval: 60000 });
${LOG(7)}
process.exit(0);
`,
    );
    assert.equal(result.code, 0, result.out);
    assert.match(
      result.stderr,
      /RemoteLogProvider: 7 entries not delivered to http:\/\/127\.0\.0\.1:\d+\/ingest: the process exited before they were sent/,
    );
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});
