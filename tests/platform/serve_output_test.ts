// What the host's server writes to standard output and error, seen from a
// child process (the runtime's own output included): an application without
// a logging step prints through the host's console fallback, masked and
// escaped as a LoggerManager line; a response body that fails while it is
// sent is one error line of Kit's; the runtime prints nothing of its own.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runChildScript } from "../_support/child_script.ts";
import { RUNTIME } from "./_serve_support.ts";

// Three secrets of three shapes, none of which may be printed.
const SECRETS = ["s3cretpw", "abcdefghijklmnop12345", "hunter2222"];

function printedSecrets(text: string): string[] {
  return SECRETS.filter((secret) => text.includes(secret));
}

// The JSON lines a child printed on standard output.
function jsonLines(out: string): Record<string, unknown>[] {
  return out.split("\n").filter((line) => line.startsWith("{")).map((line) =>
    JSON.parse(line)
  );
}

// A handler whose error carries a secret in its message, its stack and its
// cause, and control characters that would forge an access line.
const THROWING = `
const { Application } = await import(PLATFORM_URL);
const app = await Application.start({
  configuration: () => ({}),
  serve: () => () => {
    const error = new Error(
      "db down: postgres://app:s3cretpw@db/app (Bearer abcdefghijklmnop12345, password=hunter2222)\\r\\n[kit] GET /forged 200 1 ms\\x1b[2J\\x07",
      { cause: new Error("auth with Bearer abcdefghijklmnop12345 failed") },
    );
    error.stack += "\\n    at connect (password=hunter2222\\r\\n[kit] GET /forged-too 200 1 ms)";
    throw error;
  },
  server: { port: 0, hostname: "127.0.0.1" },
});
const response = await fetch(app.url + "/orders?token=x", {
  headers: { "X-Request-ID": "r-1" },
});
console.log("STATUS " + response.status + " " + (await response.text()));
await app.stop();
`;

describe("the host's console fallback", () => {
  it("masks and escapes a handler's error, message, stack and cause, with the request id", async () => {
    const { code, out, stderr } = await runChildScript(THROWING);
    assert.equal(code, 0, out);
    assert.match(out, /STATUS 500 /, out);
    assert.deepEqual(printedSecrets(out), [], out);
    // No control character but line breaks and tabs reaches the output, and
    // no line of the error's text starts a line of its own: no forged
    // access line.
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(out, /[\x00-\x08\x0b-\x1f\x7f]/, JSON.stringify(out));
    assert.doesNotMatch(out, /^\[kit\] GET \/forged/m, out);
    const lines = stderr.split("\n");
    const first = lines.findIndex((line) =>
      line.startsWith("[kit] GET /orders failed: ")
    );
    assert.ok(first >= 0, stderr);
    assert.equal(
      lines[first],
      '[kit] GET /orders failed: db down: postgres://app:***@db/app (Bearer ***, password=***)\\r\\n[kit] GET /forged 200 1 ms\\x1b[2J\\x07 requestId="r-1"',
    );
    // Then the stack, one frame a line, indented as a LoggerManager line's,
    // and the cause.
    assert.ok(
      lines[first + 1].startsWith(
        "    Error: db down: postgres://app:***@db/app (Bearer ***, password=***)\\r\\n",
      ),
      stderr,
    );
    // Each further line is indented: a line break in a frame cannot start a
    // line of its own.
    const rest = lines.slice(first + 2, lines.indexOf("", first));
    assert.ok(rest.every((line) => line.startsWith("    ")), stderr);
    assert.ok(rest.some((line) => /^ {8}at /.test(line)), stderr);
    assert.ok(rest.includes("        at connect (password=***\\r"), stderr);
    assert.ok(
      rest.includes("    Caused by: Error: auth with Bearer *** failed"),
      stderr,
    );
  });
});
// A streamed body that fails after its first chunk, in a service that logs
// JSON lines to standard output (a LoggerManager with a JSON console
// provider), as a log collector reads them.
const FAILING_BODY = `
import process from "node:process";
const { Application } = await import(PLATFORM_URL);
const { ConsoleLogProvider, LoggerManager } = await import(LOGGING_URL);
let errors = 0;
const write = (line) => {
  if (line.includes('"level":"error"')) errors++;
  process.stdout.write(line + "\\n");
};
const app = await Application.start({
  configuration: () => ({}),
  logging: () => new LoggerManager().configure({
    level: "info",
    providers: [new ConsoleLogProvider({
      format: "json",
      console: { debug: write, info: write, warn: write, error: write, log: write },
    })],
  }),
  serve: () => () => {
    let sent = false;
    return new Response(new ReadableStream({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode("first\\n"));
        } else {
          controller.error(new Error(
            "stream broke: postgres://app:s3cretpw@db/app Bearer abcdefghijklmnop12345",
          ));
        }
      },
    }));
  },
  server: { port: 0, hostname: "127.0.0.1" },
});
let client;
try {
  const response = await fetch(app.url + "/report", {
    headers: { "X-Request-ID": "r-2" },
  });
  await response.text();
  client = "complete " + response.status;
} catch (error) {
  client = "failed";
}
// The failure is reported as the body is read; the client's error may come
// first.
for (const until = Date.now() + 5000; errors === 0 && Date.now() < until;) {
  await new Promise((resolve) => setTimeout(resolve, 10));
}
write("CLIENT " + client);
await app.stop();
`;

describe("serve: a response body that fails while it is sent", () => {
  it(
    "is one Kit error line, masked, with the request id and the status noted as aborted; the runtime prints nothing",
    {
      // Bun does not let Kit tell a streamed body from a whole one without a
      // cost on every response, and prints a failed body's error itself.
      skip: RUNTIME === "bun" ? "Bun reports a failed body itself" : false,
    },
    async () => {
      const { code, out, stderr } = await runChildScript(FAILING_BODY);
      assert.equal(code, 0, out);
      assert.equal(stderr, "", "the runtime printed on standard error");
      assert.match(out, /^CLIENT failed$/m, out);
      assert.deepEqual(printedSecrets(out), [], out);
      const entries = jsonLines(out);
      const failures = entries.filter((entry) => entry.level === "error");
      assert.equal(failures.length, 1, out);
      const [failure] = failures;
      assert.equal(failure.requestId, "r-2");
      assert.equal(
        failure.message,
        "GET /report 200 aborted: the response body failed after 6 bytes: stream broke: postgres://app:***@db/app Bearer ***",
      );
      assert.deepEqual(failure.properties, {
        method: "GET",
        path: "/report",
        status: 200,
        aborted: true,
        bytes: 6,
      });
    },
  );
});

// One request with a body, read by the handler, which does not read
// request.signal.
const WITH_BODY = `
const { Application } = await import(PLATFORM_URL);
const app = await Application.start({
  configuration: () => ({}),
  logging: () => ({ debug() {}, info() {}, warning() {}, error() {} }),
  serve: () => async (request) => new Response("read " + (await request.text())),
  server: { port: 0, hostname: "127.0.0.1" },
});
const response = await fetch(app.url, { method: "POST", body: "hello" });
console.log("ANSWER " + (await response.text()));
await app.stop();
`;

describe("serve: the runtime's own warnings", () => {
  it("prints nothing on standard error for a request with a body (Deno's warning on request.signal)", async () => {
    const { code, out, stderr } = await runChildScript(WITH_BODY);
    assert.equal(code, 0, out);
    assert.match(out, /^ANSWER read hello$/m, out);
    assert.equal(stderr, "");
  });
});
