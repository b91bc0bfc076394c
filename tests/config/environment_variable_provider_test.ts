import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { join } from "node:path";
import { toCamelCase } from "../../core/mod.ts";
import {
  ConfigurationManager,
  ConfigurationSourceError,
  DotEnvProvider,
  EnvironmentVariableProvider,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

test("EnvironmentVariableProvider maps <PREFIX>_<SECTION>__<SUB>__<PROPERTY> to camelCase colon keys", async () => {
  const p = uniquePrefix();
  await withEnv({
    [`${p}_DATABASE__CONNECTION_STRING`]: "postgres://env",
    [`${p}_API__BASE_URL`]: "https://env",
    [`${p}_LOGGING__LEVEL`]: "debug",
    [`${p}_DATABASE__URL`]: "db-url",
    [`${p}_CACHE__REDIS__KEY_PREFIX`]: "kit:",
    [`${p}_FEATURES__ENABLE_ANALYTICS`]: "true",
  }, async () => {
    const config = new ConfigurationManager();
    config.addEnvironmentVariables(p);
    await config.loadConfiguration();
    assert.equal(
      config.getValue("database:connectionString"),
      "postgres://env",
    );
    assert.equal(config.getValue("api:baseUrl"), "https://env");
    assert.equal(config.getValue("logging:level"), "debug");
    // Nested keys join with a double underscore after the prefix: a lookup
    // of database:url reads <PREFIX>_DATABASE__URL.
    assert.equal(config.getValue("database:url"), "db-url");
    assert.equal(config.getValue("cache:redis:keyPrefix"), "kit:");
    assert.equal(config.getValue("features:enableAnalytics"), "true");
    assert.equal(
      config.getSource("database:connectionString"),
      `env ${p}_DATABASE__CONNECTION_STRING`,
    );
  });
});

test("EnvironmentVariableProvider ignores variables without the prefix and matches the prefix ignoring case", async () => {
  const p = uniquePrefix();
  const other = uniquePrefix();
  await withEnv({
    [`${p}_A__B`]: "mine",
    [`${p.toLowerCase()}_A__C`]: "lower-case prefix",
    [`${other}_A__D`]: "someone else's",
    [`${p}A__E`]: "no underscore after the prefix",
  }, async () => {
    const config = new ConfigurationManager();
    config.addProvider(new EnvironmentVariableProvider(`${p}_`));
    await config.loadConfiguration();
    assert.deepEqual(config.getSection("a"), {
      b: "mine",
      c: "lower-case prefix",
    });
  });
});

test("EnvironmentVariableProvider without a prefix reads every variable with the same mapping", async () => {
  const p = uniquePrefix();
  await withEnv({ [`${p}_SECTION__SOME_VALUE`]: "x" }, async () => {
    const config = new ConfigurationManager();
    config.addEnvironmentVariables();
    await config.loadConfiguration();
    assert.equal(
      config.getValue(`${toCamelCase(`${p}_SECTION`)}:someValue`),
      "x",
    );
    assert.equal(
      new EnvironmentVariableProvider().name,
      "env",
    );
  });
});

test("EnvironmentVariableProvider skips names with an empty level and keeps values verbatim", async () => {
  const p = uniquePrefix();
  await withEnv({
    [`${p}_A____B`]: "empty level",
    [`${p}_SPACES`]: "  keep my spaces  ",
    [`${p}_EMPTY`]: "",
  }, async () => {
    const config = new ConfigurationManager();
    config.addEnvironmentVariables(p);
    await config.loadConfiguration();
    assert.equal(config.hasValue("a"), false);
    assert.equal(config.getValue("spaces"), "  keep my spaces  ");
    assert.equal(config.getValue("empty"), "");
  });
});

test("EnvironmentVariableProvider.prefix and name describe the prefix", () => {
  const provider = new EnvironmentVariableProvider("app_");
  assert.equal(provider.prefix, "APP");
  assert.equal(provider.name, "env APP_*");
  assert.equal(new EnvironmentVariableProvider().prefix, "");
});

test("DotEnvProvider maps standard, prefixed and colon-path names without touching the process environment", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const file = await dir.write(
      ".env",
      [
        "# a comment",
        `${p}_DATABASE__POOL_SIZE=7`,
        `export ${p}_API__BASE_URL="https://dotenv"`,
        "feature:beta=true",
        `${p}_MULTI="line one`,
        "not:a-key=inside the quoted value",
        'line three"',
        `${p}_QUOTED='a # not a comment'`,
        `UNRELATED_${p}=ignored`,
      ].join("\n"),
    );
    const config = new ConfigurationManager();
    await config.addProvider(new DotEnvProvider(file, { prefix: p }));
    await config.loadConfiguration();
    assert.equal(config.getValue("database:poolSize"), "7");
    assert.equal(config.getValue("api:baseUrl"), "https://dotenv");
    assert.equal(config.getValue("feature:beta"), "true");
    assert.equal(
      config.getValue("multi"),
      "line one\nnot:a-key=inside the quoted value\nline three",
    );
    assert.equal(config.getValue("quoted"), "a # not a comment");
    assert.equal(config.hasValue("not"), false);
    assert.equal(config.hasValue(toCamelCase(`UNRELATED_${p}`)), false);
    assert.equal(
      config.getSource("database:poolSize"),
      `${file} ${p}_DATABASE__POOL_SIZE`,
    );
    // Never written to the process environment.
    assert.equal(process.env[`${p}_DATABASE__POOL_SIZE`], undefined);
    assert.equal(process.env[`${p}_API__BASE_URL`], undefined);
    assert.equal(process.env["feature:beta"], undefined);
  });
});

test("DotEnvProvider maps standard variable names unless told not to", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write(".env", "DB_TIMEOUT=4000\nLOG_LEVEL=debug\n");
    const config = new ConfigurationManager();
    await config.addProvider(new DotEnvProvider(file, { prefix: "NOPE" }));
    await config.loadConfiguration();
    assert.equal(config.getValue("database:timeout"), "4000");
    assert.equal(config.getValue("logging:level"), "debug");
    assert.equal(config.getSource("logging:level"), `${file} LOG_LEVEL`);

    const plain = new ConfigurationManager();
    await plain.addProvider(
      new DotEnvProvider(file, { standardVariables: false }),
    );
    await plain.loadConfiguration();
    assert.equal(plain.hasValue("database:timeout"), false);
    assert.equal(plain.getValue("dbTimeout"), "4000");
  });
});

test("DotEnvProvider: a missing required file fails, an optional one is skipped", async () => {
  await withTempDir(async (dir) => {
    const config = new ConfigurationManager();
    const provider = new DotEnvProvider(".env", { basePath: dir.path });
    await assert.rejects(
      async () => await config.addProvider(provider),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationSourceError);
        assert.equal(
          error.message,
          `Configuration file not found: ${join(dir.path, ".env")}`,
        );
        return true;
      },
    );
    const optional = new DotEnvProvider(".env", {
      basePath: dir.path,
      optional: true,
    });
    await config.addProvider(optional);
    await config.loadConfiguration();
    assert.equal(optional.missing, true);
    assert.equal(optional.resolvedPath, join(dir.path, ".env"));
    assert.deepEqual(config.explain(), []);
  });
});
