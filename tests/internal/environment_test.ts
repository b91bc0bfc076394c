import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { readEnvironmentVariable } from "../../internal/settings/environment.ts";

test("readEnvironmentVariable() reads a variable, and undefined when unset", () => {
  process.env.KIT_TEST_VARIABLE = "value-1";
  try {
    assert.equal(readEnvironmentVariable("KIT_TEST_VARIABLE"), "value-1");
  } finally {
    delete process.env.KIT_TEST_VARIABLE;
  }
  assert.equal(readEnvironmentVariable("KIT_TEST_VARIABLE"), undefined);
});
