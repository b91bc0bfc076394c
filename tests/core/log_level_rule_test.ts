// The log level rule lives in core, shared by configuration and logging; the
// configuration module offers the same functions under its own name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { invalidLogLevelMessage, normalizeLogLevel } from "../../core/mod.ts";
import * as config from "../../config/mod.ts";

test("normalizeLogLevel() takes any letter case, blanks around, and warn for warning", () => {
  assert.equal(normalizeLogLevel("DEBUG"), "debug");
  assert.equal(normalizeLogLevel(" Info "), "info");
  assert.equal(normalizeLogLevel("warn"), "warning");
  assert.equal(normalizeLogLevel("error"), "error");
  assert.equal(normalizeLogLevel("verbose"), undefined);
  assert.equal(normalizeLogLevel(3), undefined);
});

test("invalidLogLevelMessage() names the value, the allowed levels and the source, secrets masked", () => {
  assert.equal(
    invalidLogLevelMessage("verbose", "env LOG_LEVEL"),
    "Invalid log level: verbose (allowed: debug, info, warning, error; from env LOG_LEVEL)",
  );
  assert.equal(
    invalidLogLevelMessage("x", "https://user:hunter22@example.com/cfg.json"),
    "Invalid log level: x (allowed: debug, info, warning, error; from https://user:***@example.com/cfg.json)",
  );
});

test("the configuration module exports the same functions", () => {
  assert.equal(config.normalizeLogLevel, normalizeLogLevel);
  assert.equal(config.invalidLogLevelMessage, invalidLogLevelMessage);
});
