import { test } from "node:test";
import assert from "node:assert/strict";
import { cultureChain } from "../../internal/culture_chain.ts";

test("cultureChain() lists the culture, its shorter forms, then the fallback's, once each", () => {
  assert.deepEqual(cultureChain("zh-Hant-TW", "en-GB"), [
    "zh-Hant-TW",
    "zh-Hant",
    "zh",
    "en-GB",
    "en",
  ]);
  assert.deepEqual(cultureChain("en-US", "en"), ["en-US", "en"]);
  assert.deepEqual(cultureChain("fr", undefined), ["fr"]);
});
