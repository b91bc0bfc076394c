// RemoteLogProvider loads ky when its first batch goes out. When that import
// fails, each attempt fails like a network error: the batch is retried,
// then counted as dropped and reported to onError, and flush() still
// resolves (nothing rejects unhandled). The child process of the runtime
// running the tests is given a ky that throws when loaded: an import map in
// Deno, a resolve hook in Node.js, a load plugin in Bun.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { moduleUrl } from "../_support/module_url.ts";
import { runWithModulesReplaced } from "../_support/replaced_modules.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const BROKEN = 'throw new Error("ky failed to load (test)");\n';

test("RemoteLogProvider counts a batch as dropped and reports it when ky cannot be loaded", async () => {
  const result = await runWithModulesReplaced(
    `import { LogLevel, RemoteLogProvider } from ${
      JSON.stringify(moduleUrl("logging"))
    };
const errors = [];
const remote = new RemoteLogProvider({
  endpoint: "http://127.0.0.1:9/ingest",
  maxRetries: 1,
  retryDelay: 1,
  flushInterval: 60000,
  onError: (error) => errors.push(error.message),
});
await remote.log({ timestamp: new Date(), level: LogLevel.Info, category: "x", message: "m", properties: {} });
await remote.flush({ timeout: 10000 });
console.log(JSON.stringify({ dropped: remote.dropped, buffered: remote.buffered, errors }));
`,
    { ky: BROKEN },
  );
  assert.equal(result.code, 0, result.out);
  const printed = JSON.parse(result.out.trim().split("\n").at(-1)!) as {
    dropped: number;
    buffered: number;
    errors: string[];
  };
  assert.equal(printed.dropped, 1, result.out);
  assert.equal(printed.buffered, 0);
  assert.equal(printed.errors.length, 1, result.out);
  assert.match(
    printed.errors[0],
    /^RemoteLogProvider: 1 entry dropped after 2 attempts: ky failed to load \(test\)$/,
  );
});
