// negotiateCulture remembers its answers by what it reads of a header (the
// first 4,096 characters), in a memo bounded by bytes as well as entries:
// long distinct headers no longer pile up in memory.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { negotiateCulture } from "../../localization/mod.ts";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const isBun =
  (process.versions as Record<string, string | undefined>).bun !== undefined;

test("negotiateCulture: headers equal in their first 4,096 characters get the same answer", () => {
  const start = "de-AT, ".repeat(600); // 4,200 characters
  const offer = ["en", "de", "fr"];
  assert.equal(negotiateCulture(start + "fr", offer, "en"), "de");
  assert.equal(negotiateCulture(start + "en", offer, "en"), "de");
  // What lies past 4,096 characters is never read.
  assert.equal(
    negotiateCulture("x-aa, ".repeat(700) + "fr", offer, "en"),
    "en",
  );
});

test("negotiateCulture retains little memory for 1,000 distinct 60 kB headers (heap measured in a child)", async () => {
  const result = await runChildScript(
    `
import process from "node:process";
import { negotiateCulture } from LOCALIZATION_URL;
const gc = () => globalThis.gc ? globalThis.gc() : globalThis.Bun.gc(true);
const offer = ["en-US", "fr-FR", "de-DE"];
negotiateCulture("fr", offer, "en-US"); // loads the matcher
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < 1000; i++) {
  // Distinct from the start, and 60 kB long.
  const header = "x-" + i.toString(36) + ", fr-CH;q=0.9, " + "en;q=0.5, ".repeat(6_000);
  negotiateCulture(header, offer, "en-US");
}
gc();
const retainedMb = (process.memoryUsage().heapUsed - before) / 1048576;
console.log(JSON.stringify({ retainedMb: Math.round(retainedMb * 10) / 10 }));
`,
    {
      env: { DENO_V8_FLAGS: "--expose-gc" },
      runtimeArgs: isBun ? [] : ["--expose-gc"],
    },
  );
  assert.equal(result.code, 0, result.out);
  const { retainedMb } = lastJson(result) as { retainedMb: number };
  console.log(`1,000 distinct 60 kB headers: ${retainedMb} MB retained`);
  // The memo holds at most about 1 MiB of keys; the rest is margin.
  assert.ok(retainedMb < 6, `${retainedMb} MB retained`);
});
