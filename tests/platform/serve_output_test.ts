// What the host's server writes to standard output and error, seen from a
// child process (the runtime's own output included): an application without
// a logging step prints through the host's console fallback, masked and
// escaped as a LoggerManager line; a request with a body makes the runtime
// print nothing of its own.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runChildScript } from "../_support/child_script.ts";

// Three secrets of three shapes, none of which may be printed.
const SECRETS = ["s3cretpw", "abcdefghijklmnop12345", "hunter2222"];

function printedSecrets(text: string): string[] {
  return SECRETS.filter((secret) => text.includes(secret));
}

// A handler whose error carries a secret in its message, its stack and its
// cause, and control characters that would forge an access line.
const THROWING = `
import process from "node:process";
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
    // no line break comes from the error's text: no forged access line.
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
