// KIT_LOG_LEVEL=debug turns on Kit's own diagnostic lines for the Redis
// connections, so a user can see why a connection fails: one `[kit] ` line on standard error per reconnect
// attempt and per connect or handshake outcome, never the password; without
// it, nothing. A child process (the same runtime: Deno on the sources,
// Node.js or Bun on the built package) uses a real redis-server that the test
// kills and restarts.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test as nodeTest } from "node:test";
import { fileURLToPath } from "node:url";
import { moduleUrl } from "../_support/module_url.ts";
import {
  redisSkip,
  type RedisTestServer,
  startRedisServer,
  waitFor,
} from "./_redis_server.ts";
import { activeResources, assertNothingLeft } from "./_support.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const baseline = activeResources();
const skip = redisSkip;
const PASSWORD = "kit-diag-s3cret-pw";

const isDeno =
  typeof (process.versions as Record<string, string | undefined>).deno ===
    "string";

function program(port: number): string {
  const mod = moduleUrl("caching").replace("/script/mod.js", "/esm/mod.js");
  return `import { RemoteStoreCacheProvider } from ${JSON.stringify(mod)};
// The provider's timers never keep a process alive; this one does until the end.
const keepAlive = setInterval(() => {}, 1000);
const provider = new RemoteStoreCacheProvider({
  host: "127.0.0.1",
  port: ${port},
  password: ${JSON.stringify(PASSWORD)},
  reconnectDelay: 20,
  maxReconnectDelay: 100,
  connectTimeout: 2000,
  onError(error) {
    if (error.name === "CacheStoreUnavailableError") console.log("down");
    if (error.name === "CacheStoreRecovered") {
      console.log("recovered");
      provider.dispose().then(() => {
        clearInterval(keepAlive);
        console.log("done");
      });
    }
  },
});
if (!(await provider.connect())) throw new Error("no connection");
await provider.set("k", { value: 1, storedAt: Date.now() });
console.log("up");
`;
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the child against `server` with `KIT_LOG_LEVEL` set to `level` (or
 * unset), kills the server once the child is up, restarts it once the child
 * saw the outage (and, with `waitForLine`, once that line is on standard
 * error), and returns what the child printed.
 */
async function run(
  server: RedisTestServer,
  level: string | undefined,
  waitForLine?: RegExp,
): Promise<Outcome> {
  const dir = await mkdtemp(join(tmpdir(), "kit-redis-diag-"));
  try {
    const script = join(dir, isDeno ? "child.ts" : "child.mjs");
    await writeFile(script, program(server.port));
    const args = isDeno
      ? [
        "run",
        "-A",
        "--no-check",
        "--quiet",
        "--config",
        fileURLToPath(new URL("../../deno.dev.json", import.meta.url)),
        script,
      ]
      : [script];
    const env: Record<string, string | undefined> = {
      ...process.env,
      NO_COLOR: "1",
    };
    delete env.KIT_LOG_LEVEL;
    if (level !== undefined) env.KIT_LOG_LEVEL = level;
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let stdout = "";
    let stderr = "";
    const decoder = new TextDecoder();
    child.stdout.on(
      "data",
      (chunk: Uint8Array) => (stdout += decoder.decode(chunk)),
    );
    child.stderr.on(
      "data",
      (chunk: Uint8Array) => (stderr += decoder.decode(chunk)),
    );
    const exited = new Promise<number | null>((resolve) =>
      child.once("close", (code) => resolve(code))
    );
    let ended = false;
    void exited.then(() => (ended = true));
    const printed = (line: string) => (): boolean => {
      if (ended && !stdout.split("\n").includes(line)) {
        throw new Error(`the child ended early:\n${stdout}\n${stderr}`);
      }
      return stdout.split("\n").includes(line);
    };
    try {
      await waitFor(printed("up"), "the child to connect", 30_000);
      await server.stop();
      await waitFor(printed("down"), "the child to see the outage");
      if (waitForLine !== undefined) {
        await waitFor(() => waitForLine.test(stderr), `${waitForLine}`);
      } else {
        // Time for several reconnect attempts (at most 100 ms apart).
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await server.start();
      await waitFor(printed("done"), "the child to recover and finish");
      return { code: await exited, stdout, stderr };
    } catch (error) {
      child.kill("SIGKILL");
      await exited;
      throw new Error(`${error}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(
  "KIT_LOG_LEVEL=debug (any case): [kit] lines on stderr for each reconnect attempt and the connection outcomes, never the password",
  { skip },
  async () => {
    await using server = await startRedisServer({ password: PASSWORD });
    const address = `127\\.0\\.0\\.1:${server.port}`;
    const reconnecting = new RegExp(
      `^\\[kit\\] cache: reconnecting to ${address} \\(attempt \\d+, next in \\d+ ms\\)$`,
      "m",
    );
    const { code, stdout, stderr } = await run(server, "Debug", reconnecting);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /recovered/);
    const lines = stderr.split("\n").filter((line) => line !== "");
    assert.deepEqual(
      lines.filter((line) => !line.startsWith("[kit] cache: ")),
      [],
      "only Kit's cache lines on stderr",
    );
    assert.equal(
      lines[0],
      `[kit] cache: connecting to 127.0.0.1:${server.port}`,
    );
    assert.equal(
      lines[1],
      `[kit] cache: connected to 127.0.0.1:${server.port}`,
    );
    assert.match(
      stderr,
      new RegExp(`^\\[kit\\] cache: connection to ${address} lost: .+$`, "m"),
    );
    const attempts = lines.filter((line) => reconnecting.test(line));
    assert.ok(attempts.length >= 2, stderr);
    assert.match(attempts[0], /\(attempt 1, /);
    // The restart ends with a connection (handshake with AUTH included).
    assert.equal(
      lines.at(-1),
      `[kit] cache: connected to 127.0.0.1:${server.port}`,
    );
    assert.ok(!stderr.includes(PASSWORD), "the password never appears");
  },
);

test(
  "without KIT_LOG_LEVEL=debug the same outage and reconnect print nothing",
  { skip },
  async () => {
    for (const level of [undefined, "info"]) {
      await using server = await startRedisServer({ password: PASSWORD });
      const { code, stdout, stderr } = await run(server, level);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /recovered/);
      assert.ok(!stderr.includes("[kit]"), `KIT_LOG_LEVEL=${level}: ${stderr}`);
    }
  },
);

// Without a limit of its own: a limit is a timer, which this check counts
// (it is bounded by assertNothingLeft's deadline).
nodeTest(
  "no socket, ref'd timer or child process outlives the tests of this file",
  async () => {
    await assertNothingLeft(baseline);
  },
);
