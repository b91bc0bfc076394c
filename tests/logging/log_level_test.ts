import { test } from "node:test";
import assert from "node:assert/strict";
import {
  InvalidLogLevelError,
  isLogLevel,
  LogLevel,
  logLevelToString,
  parseLogLevel,
} from "../../logging/mod.ts";

test("LogLevel has the members Debug < Info < Warning < Error", () => {
  assert.ok(LogLevel.Debug < LogLevel.Info);
  assert.ok(LogLevel.Info < LogLevel.Warning);
  assert.ok(LogLevel.Warning < LogLevel.Error);
});

test("logLevelToString() gives the string forms debug, info, warning, error", () => {
  assert.equal(logLevelToString(LogLevel.Debug), "debug");
  assert.equal(logLevelToString(LogLevel.Info), "info");
  assert.equal(logLevelToString(LogLevel.Warning), "warning");
  assert.equal(logLevelToString(LogLevel.Error), "error");
});

test("parseLogLevel() reads string forms and member names in any case, and members", () => {
  assert.equal(parseLogLevel("debug"), LogLevel.Debug);
  assert.equal(parseLogLevel("Info"), LogLevel.Info);
  assert.equal(parseLogLevel(" WARNING "), LogLevel.Warning);
  assert.equal(parseLogLevel("error"), LogLevel.Error);
  assert.equal(parseLogLevel(LogLevel.Warning), LogLevel.Warning);
  for (
    const level of [
      LogLevel.Debug,
      LogLevel.Info,
      LogLevel.Warning,
      LogLevel.Error,
    ]
  ) {
    assert.equal(parseLogLevel(logLevelToString(level)), level);
  }
});

test("parseLogLevel() rejects an unknown string naming the allowed values", () => {
  assert.throws(() => parseLogLevel("verbose"), (error: unknown) => {
    assert.ok(error instanceof InvalidLogLevelError);
    assert.ok(error instanceof RangeError);
    assert.equal(
      error.message,
      "Invalid log level: verbose (allowed: debug, info, warning, error)",
    );
    assert.equal(error.value, "verbose");
    assert.deepEqual(error.allowed, ["debug", "info", "warning", "error"]);
    return true;
  });
  assert.throws(() => parseLogLevel(7 as LogLevel), InvalidLogLevelError);
});

test("parseLogLevel() follows the configuration's one rule: warn is warning, in any case", () => {
  assert.equal(parseLogLevel("warn"), LogLevel.Warning);
  assert.equal(parseLogLevel(" WARN "), LogLevel.Warning);
  assert.equal(parseLogLevel("Error"), LogLevel.Error);
});

test("logLevelToString() rejects a number that is not a member", () => {
  assert.throws(() => logLevelToString(9 as LogLevel), InvalidLogLevelError);
});

test("isLogLevel() is true only for the members", () => {
  assert.equal(isLogLevel(LogLevel.Error), true);
  assert.equal(isLogLevel("error"), false);
  assert.equal(isLogLevel(4), false);
  assert.equal(isLogLevel(1.5), false);
});
