// The size limit of a translation resource (maxResourceSize): an endless or
// oversized body over real loopback HTTP, declared or chunked, an error
// answer's body, and oversized files for the JSON file loader.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerResponse } from "node:http";
import {
  HttpLocalizationLoader,
  JsonFileLocalizationLoader,
  type LocalizationHttpClient,
  LocalizationLoadError,
} from "../../localization/mod.ts";
import { HttpClient } from "../../http/mod.ts";
import { startTestServer, type TestServer } from "../_support/http_server.ts";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const MiB = 1024 * 1024;

// Writes a JSON object that never ends, 64 KiB at a time, without a
// Content-Length (so chunked), honouring backpressure until the client goes.
function streamEndless(response: ServerResponse, status = 200): void {
  response.writeHead(status, { "content-type": "application/json" });
  const chunk = `"k": "${"x".repeat(64 * 1024)}",`;
  let closed = false;
  response.on("close", () => {
    closed = true;
  });
  response.write("{");
  const next = (): void => {
    while (!closed) {
      if (!response.write(chunk)) {
        response.once("drain", next);
        return;
      }
    }
  };
  next();
}

function templateOf(server: TestServer): string {
  return `${server.url}/i18n/{culture}.json`;
}

test("HttpLocalizationLoader: maxResourceSize defaults to 10 MiB and is checked", () => {
  assert.equal(
    new HttpLocalizationLoader("/{culture}").maxResourceSize,
    10 * MiB,
  );
  assert.equal(
    new HttpLocalizationLoader("/{culture}", { maxResourceSize: 0 })
      .maxResourceSize,
    0,
  );
  assert.throws(
    () => new HttpLocalizationLoader("/{culture}", { maxResourceSize: -1 }),
    {
      name: "RangeError",
      message:
        "HttpLocalizationLoader: maxResourceSize must be a whole number of bytes >= 0, got -1",
    },
  );
  assert.equal(
    new JsonFileLocalizationLoader("{culture}.json").maxResourceSize,
    10 * MiB,
  );
  assert.throws(
    () =>
      new JsonFileLocalizationLoader("{culture}.json", {
        maxResourceSize: 1.5,
      }),
    RangeError,
  );
});

test("HttpLocalizationLoader stops an endless chunked body at the limit, naming the culture, the address and the limit (RSS in a child)", async () => {
  await using server = await startTestServer((_request, response) =>
    streamEndless(response)
  );
  const result = await runChildScript(
    `
import process from "node:process";
import { HttpLocalizationLoader } from LOCALIZATION_URL;
const before = process.memoryUsage().rss;
// The peak, sampled while the load runs: a refused body is freed afterwards.
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
// The timeout only keeps the child from running away on a loader without a
// size limit; the limit must end the load long before it.
const loader = new HttpLocalizationLoader(process.env.KIT_TEST_TEMPLATE, { timeout: 4000 });
let outcome;
try {
  await loader.load("fr-FR");
  outcome = { name: "none" };
} catch (error) {
  outcome = { name: error.name, message: error.message, culture: error.culture, address: error.address };
}
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
const grownMb = Math.round((peak - before) / 1048576);
console.log(JSON.stringify({ ...outcome, grownMb }));
process.exit(0);
`,
    { env: { KIT_TEST_TEMPLATE: templateOf(server) } },
  );
  assert.equal(result.code, 0, result.out);
  const outcome = lastJson(result);
  console.log(`endless body: child RSS grew by ${outcome.grownMb} MB`);
  const address = `${server.url}/i18n/fr-FR.json`;
  assert.equal(outcome.name, "LocalizationLoadError", result.out);
  assert.equal(outcome.culture, "fr-FR");
  assert.equal(outcome.address, address);
  assert.equal(
    outcome.message,
    `Failed to load translations for culture "fr-FR" from ${address}: ` +
      "the resource is larger than the limit of 10485760 bytes " +
      "(maxResourceSize): more than 10485760 bytes arrived; make the " +
      "resource smaller or raise the loader's maxResourceSize option",
  );
  // The refused body costs at most the limit and the runtime's buffers.
  assert.ok(
    (outcome.grownMb as number) < 120,
    `RSS grew by ${outcome.grownMb} MB`,
  );
});

test("HttpLocalizationLoader refuses a Content-Length above the limit before reading", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": String(200 * MiB),
    });
    response.write("{"); // and never more: reading would wait for ever
  });
  // The timeout only ends a load that waits for the body.
  const loader = new HttpLocalizationLoader(templateOf(server), {
    timeout: 5_000,
  });
  const error = await loader.load("de").then(
    () => assert.fail("loaded"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof LocalizationLoadError);
  assert.equal(error.culture, "de");
  assert.equal(error.limit, 10 * MiB);
  assert.equal(
    error.message,
    `Failed to load translations for culture "de" from ${server.url}/i18n/de.json: ` +
      "the resource is larger than the limit of 10485760 bytes " +
      "(maxResourceSize): its Content-Length is 209715200 bytes; make the " +
      "resource smaller or raise the loader's maxResourceSize option",
  );
});

test("HttpLocalizationLoader: a smaller maxResourceSize refuses a chunked body that passes without it", async () => {
  const resource = JSON.stringify({ home: { title: "y".repeat(4_000) } });
  await using server = await startTestServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    // Two writes: chunked, no Content-Length to check up front.
    response.write(resource.slice(0, 100));
    response.end(resource.slice(100));
  });
  const small = new HttpLocalizationLoader(templateOf(server), {
    maxResourceSize: 1_000,
  });
  await assert.rejects(small.load("en"), (error: unknown) => {
    assert.ok(error instanceof LocalizationLoadError);
    assert.equal(error.limit, 1_000);
    assert.match(
      error.message,
      /larger than the limit of 1000 bytes \(maxResourceSize\): more than 1000 bytes arrived/,
    );
    return true;
  });
  const unlimited = new HttpLocalizationLoader(templateOf(server), {
    maxResourceSize: 0,
  });
  assert.deepEqual(await unlimited.load("en"), JSON.parse(resource));
  const exact = new HttpLocalizationLoader(templateOf(server), {
    maxResourceSize: new TextEncoder().encode(resource).length,
  });
  assert.deepEqual(await exact.load("en"), JSON.parse(resource));
});

test("HttpLocalizationLoader: an error answer with an endless body fails at once with its status", async () => {
  await using server = await startTestServer((_request, response) =>
    streamEndless(response, 503)
  );
  const loader = new HttpLocalizationLoader(templateOf(server), {
    timeout: 0,
  });
  await assert.rejects(loader.load("it"), (error: unknown) => {
    assert.ok(error instanceof LocalizationLoadError);
    assert.equal(error.status, 503);
    assert.match(error.message, /from .*\/i18n\/it\.json: HTTP 503/);
    return true;
  });
});

test("HttpLocalizationLoader with Kit's HttpClient: the client reads at most maxResourceSize", async () => {
  await using server = await startTestServer((_request, response) =>
    streamEndless(response)
  );
  const client: LocalizationHttpClient = new HttpClient(server.url, {
    retryAttempts: 0,
  });
  const loader = new HttpLocalizationLoader("/i18n/{culture}.json", {
    client,
    maxResourceSize: 64 * 1024,
  });
  await assert.rejects(loader.load("pt"), (error: unknown) => {
    assert.ok(error instanceof LocalizationLoadError);
    assert.equal(error.culture, "pt");
    assert.equal(error.limit, 64 * 1024);
    assert.match(
      error.message,
      /^Failed to load translations for culture "pt" from http:\/\/127\.0\.0\.1:\d+\/i18n\/pt\.json: the resource is larger than the limit of 65536 bytes \(maxResourceSize\)/,
    );
    return true;
  });
});

test("JsonFileLocalizationLoader refuses a file above maxResourceSize, naming the culture, the path and the limit", async () => {
  const dir = await mkdtemp(join(tmpdir(), "kit-localization-size-"));
  try {
    const path = join(dir, "fr.json");
    await writeFile(path, JSON.stringify({ big: "z".repeat(11 * MiB) }));
    const loader = new JsonFileLocalizationLoader(join(dir, "{culture}.json"));
    await assert.rejects(loader.load("fr"), (error: unknown) => {
      assert.ok(error instanceof LocalizationLoadError);
      assert.equal(error.culture, "fr");
      assert.equal(error.address, path);
      assert.equal(error.limit, 10 * MiB);
      assert.equal(
        error.message,
        `Failed to load translations for culture "fr" from ${path}: the ` +
          "resource is larger than the limit of 10485760 bytes " +
          `(maxResourceSize): the file has ${
            11 * MiB + 10
          } bytes; make the resource smaller or raise the loader's ` +
          "maxResourceSize option",
      );
      return true;
    });
    const roomy = new JsonFileLocalizationLoader(join(dir, "{culture}.json"), {
      maxResourceSize: 12 * MiB,
    });
    assert.equal(
      ((await roomy.load("fr")) as { big: string }).big.length,
      11 * MiB,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
