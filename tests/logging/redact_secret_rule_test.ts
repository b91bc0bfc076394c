// Logging redaction follows core's secret rule, the one the configuration
// uses: the 30-row table of secrets once printed in clear (tests/core/
// _secret_table.ts) gives the same result in a log entry as in config.explain().
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ConsoleLogProvider,
  DEFAULT_REDACTED_KEYS,
  LoggerManager,
  redactProperties,
} from "../../logging/mod.ts";
import { secretKeyWords, secretValueKeyWords } from "../../core/mod.ts";
import { SECRET_TABLE } from "../core/_secret_table.ts";
import { captureConsole } from "./_helpers.ts";

test("redactProperties() masks the 23 secrets of the 30-row table and keeps the 7 plain values", () => {
  const input = Object.fromEntries(
    SECRET_TABLE.map((row) => [row.key, row.value]),
  );
  const output = redactProperties(input);
  let masked = 0;
  for (const row of SECRET_TABLE) {
    assert.deepEqual(output[row.key], row.shown, row.key);
    if (output[row.key] !== row.value) masked++;
  }
  assert.equal(masked, 23);
  assert.ok(!JSON.stringify(output).includes("LEAK"));
});

test("DEFAULT_REDACTED_KEYS are core's secret words", () => {
  assert.deepEqual(DEFAULT_REDACTED_KEYS, [
    ...secretKeyWords,
    ...secretValueKeyWords,
  ]);
});

test("A session object is walked key by key; a session value, a flag and an error's URL are handled by the rule", () => {
  const output = redactProperties({
    session: { id: "s-1", timeout: 30, token: "LEAK-1" },
    cookie: "sid=LEAK-2",
    isPrivate: false,
    failure: new Error("connect postgres://app:LEAK-3@db/app refused"),
    tokenExpiry: 3600,
  });
  assert.deepEqual(output.session, { id: "s-1", timeout: 30, token: "***" });
  assert.equal(output.cookie, "***");
  assert.equal(output.isPrivate, false);
  assert.equal(output.tokenExpiry, 3600);
  const failure = output.failure as { message: string; stack: string };
  assert.equal(failure.message, "connect postgres://app:***@db/app refused");
  assert.ok(!failure.stack.includes("LEAK"), failure.stack);
});

test("A provider writes URL passwords and Bearer tokens in string properties masked", async () => {
  const output = captureConsole();
  const manager = new LoggerManager().configure({
    providers: [new ConsoleLogProvider({ console: output, format: "json" })],
  });
  manager.getLogger("db").info("connected", {
    target: "postgres://app:LEAK-4@db:5432/app",
    header: "Bearer LEAK-5.abc",
    smtp_pass: "LEAK-6",
  });
  await manager.dispose();
  const { properties } = JSON.parse(output.calls[0].text);
  assert.deepEqual(properties, {
    target: "postgres://app:***@db:5432/app",
    header: "Bearer ***",
    smtp_pass: "***",
  });
});
