// Reading one of Kit's settings from a configuration without the
// configuration package: a ConfigurationManager by its methods or a plain
// object by the colon path, the source named (a variable by its name), a
// value read from a `_FILE` variable kept secret, and the strings of
// environment variables read as whole numbers and switches.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  booleanOf,
  findDeclared,
  findSetting,
  quoteSetting,
  readSetting,
  type SettingProblem,
  wholeNumberOf,
} from "../../internal/settings/setting.ts";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";

test("findSetting() walks a plain object and takes the first key that holds a value", () => {
  const config = { database: { poolSize: 5 }, DB_TIMEOUT: "2000" };
  assert.deepEqual(findSetting(config, ["database:poolSize"]), {
    key: "database:poolSize",
    value: 5,
    source: "the configuration",
  });
  assert.deepEqual(findSetting(config, ["database:timeout", "DB_TIMEOUT"]), {
    key: "DB_TIMEOUT",
    value: "2000",
    source: "the configuration",
  });
  assert.equal(findSetting(config, ["database:missing"]), undefined);
  assert.equal(findSetting(null, ["database:poolSize"]), undefined);
});

test("findSetting() asks a ConfigurationManager and names a variable's source by the variable", async () => {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider({ "database:poolSize": "7" }));
  await config.loadConfiguration();
  const found = findSetting(config, ["database:poolSize"]);
  assert.equal(found?.value, "7");
  assert.equal(found?.source, "memory");
  assert.equal(found?.fromFile, false);
  const fromEnv = findSetting({
    getValue: () => "9",
    getSource: () => "env APP_DATABASE__POOL_SIZE_FILE",
  }, ["database:poolSize"]);
  assert.equal(fromEnv?.source, "APP_DATABASE__POOL_SIZE_FILE");
  assert.equal(fromEnv?.fromFile, true);
});

test("quoteSetting() hides a value read from a file or under a secret key, and masks the rest", () => {
  assert.equal(
    quoteSetting({
      key: "x",
      value: "s3cret",
      source: "X_FILE",
      fromFile: true,
    }, "server:port"),
    "***",
  );
  assert.equal(
    quoteSetting(
      { key: "x", value: "hunter22", source: "memory" },
      "database:password",
    ),
    "***",
  );
  assert.equal(
    quoteSetting(
      { key: "x", value: "redis://app:pw@cache/0", source: "memory" },
      "cache:url",
    ),
    '"redis://app:***@cache/0"',
  );
});

test("wholeNumberOf() and booleanOf() read numbers and strings, nothing else", () => {
  assert.equal(wholeNumberOf(12), 12);
  assert.equal(wholeNumberOf(" 25 "), 25);
  for (
    const bad of ["1e999", "Infinity", "12.5", "ten", "", 1.5, Infinity, NaN]
  ) {
    assert.equal(wholeNumberOf(bad), undefined, String(bad));
  }
  assert.equal(booleanOf(true), true);
  assert.equal(booleanOf(" FALSE "), false);
  assert.equal(booleanOf("yes"), undefined);
  assert.equal(booleanOf(1), undefined);
});

/** What readSetting() handed the error factory, for the assertions. */
class Refused extends Error {
  constructor(readonly problem: SettingProblem) {
    super(`refused ${problem.key}`);
  }
}

const refuse = (problem: SettingProblem): Error => new Refused(problem);

test("readSetting() parses, bounds, defaults and refuses through the caller's error", () => {
  const config = {
    api: { timeout: "2500", retries: "11", cache: "1", name: " kit " },
  };
  const timeout = { type: "whole number", min: 1000, max: 60000 } as const;
  assert.equal(
    readSetting<number>(config, { keys: ["api:timeout"], ...timeout }, refuse),
    2500,
  );
  assert.equal(
    readSetting<number>(config, { keys: ["api:none"], ...timeout }, refuse),
    undefined,
  );
  assert.equal(
    readSetting<number>(
      config,
      { keys: ["api:none"], ...timeout, default: 30000 },
      refuse,
    ),
    30000,
  );
  assert.throws(
    () =>
      readSetting<number>(
        config,
        { keys: ["api:retries"], type: "whole number", min: 0, max: 10 },
        refuse,
      ),
    (error: unknown) =>
      error instanceof Refused && error.problem.key === "api:retries" &&
      error.problem.quoted === '"11"' &&
      error.problem.found?.source === "the configuration",
  );
  assert.equal(
    readSetting<boolean>(
      config,
      { keys: ["api:cache"], type: "boolean", oneOrZero: true },
      refuse,
    ),
    true,
  );
  assert.throws(() =>
    readSetting<boolean>(
      config,
      { keys: ["api:cache"], type: "boolean" },
      refuse,
    ), Refused);
  assert.equal(
    readSetting<string>(config, { keys: ["api:name"], type: "string" }, refuse),
    "kit",
  );
  assert.throws(
    () =>
      readSetting<number>(
        config,
        { keys: ["api:none", "API_NONE"], ...timeout },
        refuse,
        (problem) => new Refused(problem),
      ),
    (error: unknown) =>
      error instanceof Refused && error.problem.key === "api:none" &&
      error.problem.found === undefined,
  );
});

test("readSetting() quotes a secret setting as *** and names a variable as its source", async () => {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider({ "cache:redis:port": "s3cret-pass" }));
  await config.loadConfiguration();
  assert.throws(
    () =>
      readSetting<number>(
        config,
        { keys: ["cache:redis:port"], type: "whole number", secret: true },
        refuse,
      ),
    (error: unknown) =>
      error instanceof Refused && error.problem.quoted === "***" &&
      error.problem.found?.source === "memory",
  );
});

test("findDeclared() skips an empty string when told to", () => {
  const config = { api: { baseUrl: "" }, API_BASE_URL: "https://x.test" };
  assert.equal(
    findDeclared(config, { keys: ["api:baseUrl", "API_BASE_URL"] })?.key,
    "api:baseUrl",
  );
  assert.equal(
    findDeclared(config, {
      keys: ["api:baseUrl", "API_BASE_URL"],
      emptyIsUnset: true,
    })?.key,
    "API_BASE_URL",
  );
});

test("readSetting() reads any finite number when declared as one", () => {
  const config = { redis: { a: "2.5", b: " 1e3 ", c: "abc", d: " ", e: "" } };
  const number = (key: string): number | undefined =>
    readSetting<number>(
      config,
      { keys: [key], type: "number", emptyIsUnset: true },
      refuse,
    );
  assert.equal(number("redis:a"), 2.5);
  assert.equal(number("redis:b"), 1000);
  assert.equal(number("redis:e"), undefined);
  assert.throws(() => number("redis:c"), Refused);
  assert.throws(() => number("redis:d"), Refused);
  assert.throws(
    () =>
      readSetting<number>(
        config,
        { keys: ["redis:a"], type: "number", max: 2 },
        refuse,
      ),
    Refused,
  );
});
