// The test kit under Bun's own test runner (bun:test), against the built
// packages; scripts/test_npm.ts copies it in as a .test.mjs file.
import { expect, test } from "bun:test";
import { expected, scenario } from "./_scenario.mjs";

test("createTestApplication under bun:test", async () => {
  expect(await scenario()).toEqual(expected);
});
