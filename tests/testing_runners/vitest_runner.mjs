// The test kit under Vitest, against the built packages;
// scripts/test_npm.ts copies it in as a .test.mjs file.
import { expect, test } from "vitest";
import { expected, scenario } from "./_scenario.mjs";

test("createTestApplication under Vitest", async () => {
  expect(await scenario()).toEqual(expected);
});
