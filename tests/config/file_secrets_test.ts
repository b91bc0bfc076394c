// `<NAME>_FILE` variables read the value of `<NAME>` from a file (Docker and
// Kubernetes secrets): real files, real environment variables (a child
// process for the standard variables, which other tests also set).
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import * as v from "valibot";
import {
  appConfigSchema,
  type ConfigurationChange,
  ConfigurationManager,
  ConfigurationValidationError,
  createConfiguration,
  EnvironmentVariableProvider,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";
import { runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const BASE = {
  api: { baseUrl: "https://api.example.com" },
  logging: { providers: [{ type: "console" }] },
};

test("APP_<NAME>_FILE sets the key from the file, names the variable as the source and masks the value", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", BASE);
    const secret = await dir.write("db", "postgres://user:hunter2@db/app\n");
    const url = await dir.write("url", "https://upstream.example.com\n\n");
    await withEnv({
      [`${p}_DATABASE__CONNECTION_STRING_FILE`]: secret,
      [`${p}_UPSTREAM__URL_FILE`]: url,
    }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema: appConfigSchema,
      });
      try {
        assert.equal(
          config.getValue("database:connectionString"),
          "postgres://user:hunter2@db/app",
        );
        // One trailing newline only.
        assert.equal(
          config.getValue<string>("upstream:url"),
          "https://upstream.example.com\n",
        );
        assert.equal(config.hasValue("database:connectionStringFile"), false);
        assert.equal(config.hasValue("upstream:urlFile"), false);
        const explained = config.explain();
        const db = explained.find((e) => e.key === "database:connectionString");
        assert.deepEqual(db, {
          key: "database:connectionString",
          value: "***",
          source: `env ${p}_DATABASE__CONNECTION_STRING_FILE`,
        });
        const upstream = explained.find((e) => e.key === "upstream:url");
        assert.deepEqual(upstream?.value, "***");
        assert.equal(upstream?.source, `env ${p}_UPSTREAM__URL_FILE`);
        assert.doesNotMatch(config.toString(), /hunter2|upstream\.example/);
        assert.doesNotMatch(
          JSON.stringify(config),
          /hunter2|upstream\.example/,
        );
        const unknown = config.diagnose().filter((d) =>
          d.variable?.startsWith(p)
        );
        assert.deepEqual(unknown.map((d) => d.variable), [
          `${p}_UPSTREAM__URL_FILE`,
        ]);
        assert.match(unknown[0].message, /"upstream:url"/);
      } finally {
        await config.close();
      }
    });
  });
});

test("a variable ending in a lower-case _file is read from the file and masked too", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", BASE);
    const url = await dir.write("url", "https://upstream.example.com/abc\n");
    await withEnv({ [`${p}_UPSTREAM__URL_file`]: url }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        validate: false,
      });
      try {
        assert.equal(
          config.getValue<string>("upstream:url"),
          "https://upstream.example.com/abc",
        );
        const upstream = config.explain().find((e) => e.key === "upstream:url");
        assert.equal(upstream?.value, "***");
        assert.doesNotMatch(config.toString(), /upstream\.example/);
      } finally {
        await config.close();
      }
    });
  });
});

test("a missing file and a variable set twice fail start-up in one error naming each variable and path, never the content", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", BASE);
    const missing = `${dir.path}/nope/secret`;
    const token = await dir.write("token", "t0ps3cret");
    await withEnv({
      [`${p}_DATABASE__CONNECTION_STRING_FILE`]: missing,
      [`${p}_AUTH__TOKEN`]: "inline-s3cret",
      [`${p}_AUTH__TOKEN_FILE`]: token,
    }, async () => {
      const error = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema: appConfigSchema,
      }).then(() => undefined, (error: unknown) => error);
      assert.ok(error instanceof ConfigurationValidationError);
      assert.match(error.message, /^Configuration validation failed:/);
      assert.deepEqual(error.failures, [
        `${p}_AUTH__TOKEN and ${p}_AUTH__TOKEN_FILE are both set; set only one: unset ${p}_AUTH__TOKEN to read the value from the file ${p}_AUTH__TOKEN_FILE names, or unset ${p}_AUTH__TOKEN_FILE to use ${p}_AUTH__TOKEN as it is`,
        `${p}_DATABASE__CONNECTION_STRING_FILE names the file ${missing}, which does not exist; mount the file there or correct the path`,
      ]);
      assert.doesNotMatch(error.message, /s3cret/);
    });
  });
});

test("a file larger than 64 KiB is refused, naming the variable and the path", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const big = await dir.write("big", "x".repeat(64 * 1024 + 1));
    const exact = await dir.write("exact", "y".repeat(64 * 1024));
    await withEnv({ [`${p}_A__KEY_FILE`]: exact }, async () => {
      const config = new ConfigurationManager();
      config.addEnvironmentVariables(p);
      await config.loadConfiguration();
      assert.equal(config.getValue<string>("a:key").length, 64 * 1024);
    });
    await withEnv({ [`${p}_A__KEY_FILE`]: big }, async () => {
      const config = new ConfigurationManager();
      config.addEnvironmentVariables(p);
      await assert.rejects(config.loadConfiguration(), {
        name: "ConfigurationValidationError",
        message:
          `Configuration validation failed:\n${p}_A__KEY_FILE names the file ${big}, which is larger than the limit of 64 KiB for a value read from a file`,
      });
    });
  });
});

test("reload() reads the files again: a rotated secret reaches changed subscribers, masked", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const file = await dir.write("password", "first-pass\n");
    await withEnv({ [`${p}_CACHE__REDIS__PASSWORD_FILE`]: file }, async () => {
      const config = new ConfigurationManager();
      config.addEnvironmentVariables(p);
      await config.loadConfiguration();
      assert.equal(config.getValue("cache:redis:password"), "first-pass");
      const seen: (readonly ConfigurationChange[])[] = [];
      config.changed.add((changes) => {
        seen.push(changes);
      });
      await writeFile(file, "second-pass\n");
      await config.reload();
      assert.equal(config.getValue("cache:redis:password"), "second-pass");
      assert.deepEqual(seen, [[{
        key: "cache:redis:password",
        oldValue: "***",
        newValue: "***",
        source: `env ${p}_CACHE__REDIS__PASSWORD_FILE`,
      }]]);
      await config.close();
    });
  });
});

test("standard variables: DB_CONNECTION_STRING_FILE and REDIS_PASSWORD_FILE, and both set is an error (child process)", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      ...BASE,
      logging: { level: "info", providers: [{ type: "console" }] },
    });
    const db = await dir.write("db", "postgres://u:pw-in-file@db/app\n");
    const redis = await dir.write("redis", "r3dis\n");
    const script = `
      import { createConfiguration } from CONFIG_URL;
      const base = ${JSON.stringify(dir.path)};
      const config = await createConfiguration({ basePath: base, environment: "test" });
      console.log(JSON.stringify({
        db: config.getValue("database:connectionString"),
        redis: config.getValue("cache:redis:password"),
        sources: config.explain().filter((e) => e.source.endsWith("_FILE")),
        unknown: config.diagnose().filter((d) => d.code === "unknown-variable").length,
      }));
      await config.close();
      globalThis.process.env.DB_CONNECTION_STRING = "inline";
      const error = await createConfiguration({ basePath: base, environment: "test" }).catch((e) => e);
      console.log(JSON.stringify({ name: error.name, failures: error.failures }));
    `;
    const { code, out } = await runChildScript(
      script,
      {
        env: {
          DB_CONNECTION_STRING_FILE: db,
          REDIS_PASSWORD_FILE: redis,
          RUNTIME_ENV: "test",
        },
      },
    );
    assert.equal(code, 0, out);
    const [first, second] = out.trim().split("\n").slice(-2).map((line) =>
      JSON.parse(line)
    );
    assert.deepEqual(first, {
      db: "postgres://u:pw-in-file@db/app",
      redis: "r3dis",
      sources: [
        {
          key: "database:connectionString",
          value: "***",
          source: "env DB_CONNECTION_STRING_FILE",
        },
        {
          key: "cache:redis:password",
          value: "***",
          source: "env REDIS_PASSWORD_FILE",
        },
      ],
      unknown: 0,
    });
    assert.deepEqual(second, {
      name: "ConfigurationValidationError",
      failures: [
        "DB_CONNECTION_STRING and DB_CONNECTION_STRING_FILE are both set; set only one: unset DB_CONNECTION_STRING to read the value from the file DB_CONNECTION_STRING_FILE names, or unset DB_CONNECTION_STRING_FILE to use DB_CONNECTION_STRING as it is",
      ],
    });
  });
});

test("a bad value read from a file is reported with the variable, the value masked", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const file = await dir.write("port", "not-a-port-s3cret\n");
    await withEnv({ [`${p}_CACHE__REDIS__PORT_FILE`]: file }, async () => {
      const config = new ConfigurationManager();
      config.addEnvironmentVariables(p);
      await config.loadConfiguration();
      try {
        config.bind(v.object({ port: v.number() }), "cache:redis");
        assert.fail("expected a validation error");
      } catch (error) {
        assert.ok(error instanceof ConfigurationValidationError);
        assert.equal(error.failures.length, 1);
        assert.match(
          error.failures[0],
          new RegExp(
            `^cache:redis:port: .*\\(from env ${p}_CACHE__REDIS__PORT_FILE\\)`,
          ),
        );
        assert.doesNotMatch(error.message, /s3cret/);
      }
      await config.close();
    });
  });
});

test("addProvider(new EnvironmentVariableProvider()) stays synchronous with _FILE variables; loadConfiguration() reports the missing file", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const missing = `${dir.path}/absent`;
    await withEnv({ [`${p}_A__SECRET_FILE`]: missing }, async () => {
      const config = new ConfigurationManager();
      assert.equal(
        config.addProvider(new EnvironmentVariableProvider(p)),
        undefined,
      );
      await assert.rejects(config.loadConfiguration(), {
        name: "ConfigurationValidationError",
        message:
          `Configuration validation failed:\n${p}_A__SECRET_FILE names the file ${missing}, which does not exist; mount the file there or correct the path`,
      });
      await config.close();
    });
  });
});

test("diagnose() suggests the double-underscore spelling of a _FILE variable, keeping the suffix", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const file = await dir.write("db", "postgres://db/app");
    await withEnv(
      { [`${p}_DATABASE_CONNECTION_STRING_FILE`]: file },
      async () => {
        const config = new ConfigurationManager();
        config.addEnvironmentVariables(p);
        await config.loadConfiguration();
        const findings = config.diagnose().filter((d) =>
          d.variable?.startsWith(p)
        );
        assert.deepEqual(findings.map((d) => [d.code, d.suggestion]), [
          ["single-underscore", `${p}_DATABASE__CONNECTION_STRING_FILE`],
        ]);
        await config.close();
      },
    );
  });
});

test("createConfiguration({ watch: true }) polls the secret files: a rotated secret reaches changed subscribers without a reload() call", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      ...BASE,
      database: { connectionString: "postgres://db/app" },
    });
    const file = await dir.write("password", "first-pass\n");
    await withEnv({ [`${p}_CACHE__REDIS__PASSWORD_FILE`]: file }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema: appConfigSchema,
        watch: true,
      });
      try {
        const changed = new Promise<readonly ConfigurationChange[]>(
          (resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error("no change event within 10 s")),
              10_000,
            );
            config.changed.add((changes) => {
              if (changes.some((c) => c.key === "cache:redis:password")) {
                clearTimeout(timer);
                resolve(changes);
              }
            });
          },
        );
        await writeFile(file, "second-pass\n");
        const changes = await changed;
        assert.deepEqual(
          changes.find((c) => c.key === "cache:redis:password"),
          {
            key: "cache:redis:password",
            oldValue: "***",
            newValue: "***",
            source: `env ${p}_CACHE__REDIS__PASSWORD_FILE`,
          },
        );
        assert.equal(
          config.getValue<string>("cache:redis:password"),
          "second-pass",
        );
      } finally {
        await config.close();
      }
    });
  });
});
