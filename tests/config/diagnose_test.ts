import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  type ConfigurationDiagnostic,
  ConfigurationManager,
  MemoryProvider,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv } from "./_helpers.ts";

function about(
  findings: ConfigurationDiagnostic[],
  variable: string,
): ConfigurationDiagnostic | undefined {
  return findings.find((finding) => finding.variable === variable);
}

test("ConfigurationManager.diagnose() suggests __ for a single-underscore variable that would match a known key", async () => {
  const p = uniquePrefix();
  await withEnv({ [`${p}_DATABASE_CONNECTION_STRING`]: "x" }, async () => {
    const config = new ConfigurationManager();
    config.addEnvironmentVariables(p);
    await config.loadConfiguration();
    assert.deepEqual(
      about(config.diagnose(), `${p}_DATABASE_CONNECTION_STRING`),
      {
        code: "single-underscore",
        variable: `${p}_DATABASE_CONNECTION_STRING`,
        key: "database:connectionString",
        suggestion: `${p}_DATABASE__CONNECTION_STRING`,
        message:
          `${p}_DATABASE_CONNECTION_STRING maps to "databaseConnectionString", which no source or schema knows; did you mean ${p}_DATABASE__CONNECTION_STRING (database:connectionString)? A double underscore marks each level`,
      },
    );
  });
});

test("ConfigurationManager.diagnose() reports prefixed variables that map to no key the schema knows", async () => {
  const p = uniquePrefix();
  await withEnv({
    [`${p}_DATABSE__TIMEOUT`]: "typo in the section",
    [`${p}_API__TIMEOUT`]: "known to the schema",
    [`${p}_LOGGING__PROVIDERS__0__TYPE`]: "array item",
    [`${p}_LOGGING__PROVIDERS__0__OPTIONS__ANYTHING`]: "inside a record",
    [`${p}_CUSTOM__THING`]: "known from another source",
  }, async () => {
    const config = new ConfigurationManager();
    config.addProvider(new MemoryProvider({ "custom:thing": "memory" }));
    config.addEnvironmentVariables(p);
    await config.loadConfiguration();
    const findings = config.diagnose().filter((finding) =>
      finding.variable?.startsWith(`${p}_`)
    );
    assert.deepEqual(findings, [{
      code: "unknown-variable",
      variable: `${p}_DATABSE__TIMEOUT`,
      key: "databse:timeout",
      message:
        `${p}_DATABSE__TIMEOUT carries the prefix ${p} but maps to "databse:timeout", which no source or schema knows`,
    }]);
  });
});

test("ConfigurationManager.diagnose() uses the manager's own schema to know keys", async () => {
  const p = uniquePrefix();
  await withEnv({ [`${p}_CACHE__REDIS_HOST`]: "localhost" }, async () => {
    const config = new ConfigurationManager({
      schema: v.object({
        cache: v.optional(v.object({
          redis: v.optional(v.object({ host: v.optional(v.string()) })),
        })),
      }),
    });
    config.addEnvironmentVariables(p);
    await config.loadConfiguration();
    const finding = about(config.diagnose(), `${p}_CACHE__REDIS_HOST`);
    assert.equal(finding?.code, "single-underscore");
    assert.equal(finding?.suggestion, `${p}_CACHE__REDIS__HOST`);
    assert.equal(finding?.key, "cache:redis:host");
  });
});

test("ConfigurationManager.diagnose() reports keys read before loadConfiguration() finished", async () => {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider({ "database:timeout": "1" }));
  assert.equal(config.getValue("database:timeout", "fallback"), "fallback");
  assert.equal(config.hasValue("api:baseUrl"), false);
  await config.loadConfiguration();
  config.getValue("after:load", null); // not reported: loaded by then
  const findings = config.diagnose().filter((finding) =>
    finding.code === "read-before-load"
  );
  assert.deepEqual(findings, [
    {
      code: "read-before-load",
      key: "database:timeout",
      message:
        '"database:timeout" was read before loadConfiguration() finished; await config.loadConfiguration() before reading values',
    },
    {
      code: "read-before-load",
      key: "api:baseUrl",
      message:
        '"api:baseUrl" was read before loadConfiguration() finished; await config.loadConfiguration() before reading values',
    },
  ]);
});

test("ConfigurationManager.diagnose() reports configuration-like variables when no environment source was added", async () => {
  const p = uniquePrefix();
  await withEnv({ [`${p}_DATABASE__TIMEOUT`]: "1000" }, async () => {
    const config = new ConfigurationManager();
    await config.loadConfiguration();
    assert.deepEqual(about(config.diagnose(), `${p}_DATABASE__TIMEOUT`), {
      code: "no-environment-source",
      variable: `${p}_DATABASE__TIMEOUT`,
      message:
        `1 environment variable with the prefix ${p} look like configuration (${p}_DATABASE__TIMEOUT) but no environment source was added; call config.addEnvironmentVariables("${p}")`,
    });
    config.addEnvironmentVariables(p);
    await config.loadConfiguration();
    assert.equal(about(config.diagnose(), `${p}_DATABASE__TIMEOUT`), undefined);
  });
});
