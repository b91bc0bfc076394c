// What reading a compressed response costs in memory: a child process (so the
// figure is its own, not the test runner's) reads a gzip bomb (a small body
// on the wire that inflates to many times maxResponseSize) and a compressed
// body within the limit, and reports how far its resident memory rose above
// where it stood before the calls. Runtimes' decoders hand the body over in
// small views of larger buffers; keeping those views would keep every buffer
// alive, several times the bytes actually read.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { gzipSync } from "node:zlib";
import { HttpClient, ResponseTooLargeError } from "../../http/mod.ts";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { startTestServer, type TestServer } from "../_support/http_server.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const MiB = 1024 * 1024;
// Bun's fetch unpacks a compressed body ahead of the reader: there plain
// fetch itself, reading as much of the same bombs and cancelling them, rises
// by many times the limit, so the bound would measure the runtime, not the
// client.
const BUN_UNPACKS_AHEAD =
  (process.versions as Record<string, string | undefined>).bun !== undefined &&
  "Bun's fetch unpacks a compressed body ahead of the reader";
/** maxResponseSize of the client in the child. */
const LIMIT_MIB = 16;
/** What a runtime with its HTTP machinery warmed up may add on top. */
const CONSTANT_MIB = 48;

// Built once: 256 MiB of zeros (16 times the limit) pack into ~250 KB, and a
// JSON body of half the limit that is read whole.
const bomb = gzipSync(new Uint8Array(256 * MiB), { level: 9 });
const fitting = gzipSync(
  new TextEncoder().encode(
    JSON.stringify({ data: "0".repeat((LIMIT_MIB / 2) * MiB) }),
  ),
);

function serve(): Promise<TestServer> {
  return startTestServer((request, response) => {
    const body = request.url === "/small"
      ? gzipSync(new TextEncoder().encode('{"ok":true}'))
      : request.url === "/bomb"
      ? bomb
      : fitting;
    response.writeHead(200, {
      "content-type": "application/json",
      "content-encoding": "gzip",
      "content-length": String(body.length),
    });
    response.end(body);
  });
}

// The child warms the client up with a small call, then resets the kernel's
// peak-RSS mark (Linux) and samples RSS while `calls` calls run at once; the
// peak is the larger of the two readings.
const CHILD = `import process from "node:process";
import { readFileSync, writeFileSync } from "node:fs";
import { HttpClient } from HTTP_URL;
const MiB = 1024 * 1024;
function kernelPeak() {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const match = /VmHWM:\\s+(\\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
const client = new HttpClient(process.env.KIT_SERVER, {
  retryAttempts: 0,
  maxResponseSize: Number(process.env.KIT_LIMIT) * MiB,
  timeout: 20_000,
  totalTimeout: 25_000,
});
await client.get("/small");
globalThis.gc?.();
await new Promise((resolve) => setTimeout(resolve, 50));
const base = process.memoryUsage().rss;
try {
  writeFileSync("/proc/self/clear_refs", "5");
} catch {
  // Not Linux: the samples alone.
}
let peak = base;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 1);
const calls = Array.from(
  { length: Number(process.env.KIT_CALLS) },
  () => client.get(process.env.KIT_PATH),
);
const outcomes = (await Promise.allSettled(calls)).map((result) =>
  result.status === "fulfilled"
    ? "read " + result.value.data.length
    : result.reason?.name ?? String(result.reason)
);
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss, kernelPeak());
console.log(JSON.stringify({ grown: (peak - base) / MiB, outcomes }));
`;

async function measure(
  server: TestServer,
  path: string,
  calls: number,
): Promise<{ grown: number; outcomes: string[] }> {
  const result = await runChildScript(CHILD, {
    env: {
      KIT_SERVER: server.url,
      KIT_LIMIT: String(LIMIT_MIB),
      KIT_PATH: path,
      KIT_CALLS: String(calls),
    },
  });
  assert.equal(result.code, 0, result.out);
  return lastJson(result) as { grown: number; outcomes: string[] };
}

test(
  "HttpClient refuses a gzip bomb at maxResponseSize holding at most about twice the limit",
  { skip: BUN_UNPACKS_AHEAD },
  async () => {
    await using server = await serve();
    const { grown, outcomes } = await measure(server, "/bomb", 1);
    assert.deepEqual(outcomes, ["ResponseTooLargeError"]);
    const bound = 2 * LIMIT_MIB + CONSTANT_MIB;
    assert.ok(
      grown < bound,
      `RSS rose by ${grown.toFixed(1)} MiB reading a bomb against a ` +
        `${LIMIT_MIB} MiB limit (bound ${bound} MiB)`,
    );
  },
);

test(
  "HttpClient: four gzip bombs at once hold at most about twice the limit each",
  { skip: BUN_UNPACKS_AHEAD },
  async () => {
    await using server = await serve();
    const { grown, outcomes } = await measure(server, "/bomb", 4);
    assert.deepEqual(outcomes, Array(4).fill("ResponseTooLargeError"));
    const bound = 4 * 2 * LIMIT_MIB + CONSTANT_MIB;
    assert.ok(
      grown < bound,
      `RSS rose by ${grown.toFixed(1)} MiB reading four bombs against a ` +
        `${LIMIT_MIB} MiB limit (bound ${bound} MiB)`,
    );
  },
);

test("HttpClient reads a compressed body within the limit holding about twice its size", async () => {
  await using server = await serve();
  const { grown, outcomes } = await measure(server, "/fitting", 1);
  assert.deepEqual(outcomes, [`read ${(LIMIT_MIB / 2) * MiB}`]);
  // The bytes, the text and the parsed string of half the limit each.
  const bound = 3 * (LIMIT_MIB / 2) + CONSTANT_MIB;
  assert.ok(
    grown < bound,
    `RSS rose by ${grown.toFixed(1)} MiB reading ${LIMIT_MIB / 2} MiB ` +
      `(bound ${bound} MiB)`,
  );
});

test("HttpClient reads and limits a body that is not a byte stream (a fetch that wraps the body)", async () => {
  // Chunked, with a character of three bytes split across two chunks.
  await using server = await startTestServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    const bytes = new TextEncoder().encode(
      JSON.stringify({ text: "€".repeat(30_000) }),
    );
    for (let i = 0; i < bytes.length; i += 1_000) {
      response.write(bytes.subarray(i, i + 1_000));
    }
    response.end();
  });
  const client = new HttpClient(server.url, {
    retryAttempts: 0,
    // Passes the body through a TransformStream: a default stream, which
    // has no reader that fills the client's own buffer.
    fetch: async (request, init) => {
      const response = await fetch(request, init);
      return new Response(response.body!.pipeThrough(new TransformStream()), {
        status: response.status,
        headers: response.headers,
      });
    },
  });
  const body = await client.get<{ text: string }>("/euro");
  assert.equal(body.text, "€".repeat(30_000));
  await assert.rejects(
    client.get("/euro", { maxResponseSize: 50_000 }),
    (error: unknown) => {
      assert.ok(error instanceof ResponseTooLargeError);
      assert.equal(error.limit, 50_000);
      assert.ok(error.size > 50_000);
      return true;
    },
  );
});
