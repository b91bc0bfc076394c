// Tests that set fixed-name variables (standard variables, RUNTIME_ENV,
// NODE_ENV, APP_ENV, KIT_CONFIG_PATH) live in this one file so they never run concurrently with
// each other.
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { join } from "node:path";
import {
  type AppConfig,
  appConfigSchema,
  ConfigurationManager,
  ConfigurationValidationError,
  createConfiguration,
  standardVariables,
} from "../../config/mod.ts";
import { withEnv, withTempDir } from "./_helpers.ts";

const CLEAN: Record<string, undefined> = Object.fromEntries(
  [
    ...Object.keys(standardVariables),
    "KIT_CONFIG_PATH",
    "NODE_ENV",
    "APP_ENV",
  ].map((name) => [
    name,
    undefined,
  ]),
);

const VALID_BASE = {
  database: { connectionString: "postgres://base/app" },
  api: { baseUrl: "https://api.example.com" },
  logging: { level: "info", providers: [{ type: "console" }] },
};

test("addStandardVariables() maps every standard variable to its key", async () => {
  const expected: Record<string, string> = {
    DB_CONNECTION_STRING: "database:connectionString",
    DB_TIMEOUT: "database:timeout",
    DB_POOL_SIZE: "database:poolSize",
    API_BASE_URL: "api:baseUrl",
    API_TIMEOUT: "api:timeout",
    API_RETRY_ATTEMPTS: "api:retryAttempts",
    LOG_LEVEL: "logging:level",
    LOG_FILE_PATH: "logging:filePath",
    LOG_REMOTE_ENDPOINT: "logging:remoteEndpoint",
    LOGGING_API_KEY: "logging:apiKey",
    REDIS_HOST: "cache:redis:host",
    REDIS_PORT: "cache:redis:port",
    REDIS_PASSWORD: "cache:redis:password",
    REDIS_CLUSTER_NODES: "cache:redis:cluster:nodes",
    REDIS_SENTINELS: "cache:redis:sentinel:nodes",
    REDIS_SENTINEL_NAME: "cache:redis:sentinel:name",
    REDIS_SENTINEL_PASSWORD: "cache:redis:sentinel:password",
    JWT_SECRET: "auth:jwtSecret",
    AUTH_TOKEN_EXPIRY: "auth:tokenExpiry",
    FEATURE_ANALYTICS: "features:enableAnalytics",
    FEATURE_INTERNATIONALIZATION: "features:enableInternationalization",
    FEATURE_CACHING: "api:enableCaching",
    GOOGLE_ANALYTICS_ID: "analytics:trackingId",
    ANALYTICS_API_KEY: "analytics:apiKey",
    OPENAI_API_KEY: "openai:apiKey",
    APP_ENV: "app:environment",
    RUNTIME_ENV: "app:runtimeEnvironment",
  };
  assert.deepEqual({ ...standardVariables }, expected);
  const values = Object.fromEntries(
    Object.keys(expected).map((name) => [name, `value of ${name}`]),
  );
  await withEnv({ ...CLEAN, ...values }, async () => {
    const config = new ConfigurationManager();
    config.addStandardVariables();
    await config.loadConfiguration();
    for (const [name, key] of Object.entries(expected)) {
      assert.equal(config.getValue(key), `value of ${name}`, name);
      assert.equal(config.getSource(key), `env ${name}`, name);
    }
  });
});

test("ConfigurationManager: relative paths resolve against KIT_CONFIG_PATH when set", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", { root: "kit-config-path" });
    await withEnv({ ...CLEAN, KIT_CONFIG_PATH: dir.path }, async () => {
      const config = new ConfigurationManager();
      await config.addJsonFile("appsettings.json");
      await config.loadConfiguration();
      assert.equal(config.getValue("root"), "kit-config-path");
    });
  });
});

test("ConfigurationManager: the basePath option wins over KIT_CONFIG_PATH", async () => {
  await withTempDir(async (dir) => {
    await dir.write("a/appsettings.json", { root: "a" });
    await dir.write("b/appsettings.json", { root: "b" });
    await withEnv(
      { ...CLEAN, KIT_CONFIG_PATH: join(dir.path, "a") },
      async () => {
        const config = new ConfigurationManager({
          basePath: join(dir.path, "b"),
        });
        await config.addJsonFile("appsettings.json");
        await config.loadConfiguration();
        assert.equal(config.getValue("root"), "b");
      },
    );
  });
});

test("ConfigurationManager: without KIT_CONFIG_PATH relative paths resolve against the working directory", async () => {
  await withEnv(CLEAN, async () => {
    const config = new ConfigurationManager();
    const name = `kit-missing-${Date.now()}.json`;
    await assert.rejects(config.addJsonFile(name), {
      message: `Configuration file not found: ${join(process.cwd(), name)}`,
    });
  });
});

test("createConfiguration() stacks appsettings.json, the environment file, .env, standard and prefixed variables in that order", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      ...VALID_BASE,
      order: {
        json: "json",
        environment: "json",
        dotenv: "json",
        standard: "json",
        prefixed: "json",
      },
    });
    await dir.write("appsettings.staging.json", {
      order: { environment: "staging", dotenv: "staging", prefixed: "staging" },
    });
    await dir.write(
      ".env",
      "APP_ORDER__DOTENV=dotenv\nAPP_ORDER__PREFIXED=dotenv\nLOG_LEVEL=warning\n",
    );
    await withEnv({
      ...CLEAN,
      RUNTIME_ENV: "staging",
      LOG_LEVEL: "debug",
      APP_LOGGING__LEVEL: "error",
      APP_ORDER__PREFIXED: "prefixed",
    }, async () => {
      const config = await createConfiguration({ basePath: dir.path });
      try {
        assert.equal(config.environment, "staging");
        assert.deepEqual(config.getSection("order"), {
          json: "json",
          environment: "staging",
          dotenv: "dotenv",
          standard: "json",
          prefixed: "prefixed",
        });
        // .env < standard variable < prefixed variable.
        assert.equal(config.getValue("logging:level"), "error");
        assert.equal(
          config.getSource("logging:level"),
          "env APP_LOGGING__LEVEL",
        );
        assert.equal(process.env.APP_ORDER__DOTENV, undefined);
      } finally {
        await config.close();
      }
    });
  });
});

test("createConfiguration() takes the environment from the option first, and uses the development file when no variable is set", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", { ...VALID_BASE, which: "base" });
    await dir.write("appsettings.production.json", { which: "production" });
    await dir.write("appsettings.development.json", { which: "development" });
    await withEnv({ ...CLEAN, RUNTIME_ENV: "development" }, async () => {
      const fromOption = await createConfiguration({
        basePath: dir.path,
        environment: "production",
      });
      assert.equal(fromOption.getValue("which"), "production");
      const fromVariable = await createConfiguration({ basePath: dir.path });
      assert.equal(fromVariable.getValue("which"), "development");
    });
    await withEnv({
      ...CLEAN,
      RUNTIME_ENV: undefined,
      NODE_ENV: undefined,
      APP_ENV: undefined,
    }, async () => {
      const none = await createConfiguration({ basePath: dir.path });
      assert.equal(none.environment, "development");
      assert.equal(none.environmentSource, "the default");
      assert.equal(none.getValue("which"), "development");
    });
  });
});

test("createConfiguration() uses the prefix APP by default and envPrefix when given", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", VALID_BASE);
    await withEnv({
      ...CLEAN,
      APP_KIT_CREATE_TEST__VALUE: "app",
      MYAPP_KIT_CREATE_TEST__VALUE: "myapp",
    }, async () => {
      const byDefault = await createConfiguration({ basePath: dir.path });
      assert.equal(byDefault.getValue("kitCreateTest:value"), "app");
      const custom = await createConfiguration({
        basePath: dir.path,
        envPrefix: "MYAPP",
      });
      assert.equal(custom.getValue("kitCreateTest:value"), "myapp");
    });
  });
});

test("createConfiguration() requires appsettings.json", async () => {
  await withTempDir(async (dir) => {
    await withEnv(CLEAN, async () => {
      await assert.rejects(createConfiguration({ basePath: dir.path }), {
        name: "ConfigurationSourceError",
        message: `Configuration file not found: ${
          join(dir.path, "appsettings.json")
        }`,
      });
    });
  });
});

test("createConfiguration() runs the default startup validator when no schema is given", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      api: { timeout: 500 },
      logging: { level: "verbose" },
    });
    await withEnv(CLEAN, async () => {
      await assert.rejects(
        createConfiguration({ basePath: dir.path }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigurationValidationError);
          assert.deepEqual(error.failures, [
            'Missing required configuration: database:connectionString (set DB_CONNECTION_STRING or APP_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json)',
            'Missing required configuration: api:baseUrl (set API_BASE_URL or APP_API__BASE_URL, or "api": { "baseUrl": … } in appsettings.json)',
            "Invalid log level: verbose (allowed: debug, info, warning, error; from appsettings.json)",
            "API timeout must be between 1000 and 60000ms: 500",
          ]);
          return true;
        },
      );
      const unchecked = await createConfiguration({
        basePath: dir.path,
        validate: false,
      });
      assert.equal(unchecked.getValue("logging:level"), "verbose");
    });
  });
});

test("createConfiguration({ schema }) validates with the schema and returns typed, defaulted values", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", VALID_BASE);
    await withEnv({
      ...CLEAN,
      DB_POOL_SIZE: "25",
      FEATURE_ANALYTICS: "false",
      APP_API__TIMEOUT: " 8000 ",
    }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        schema: appConfigSchema,
      });
      assert.equal(config.getValue("database:poolSize"), 25);
      assert.equal(config.getValue("database:timeout"), 30000);
      assert.equal(config.getSource("database:timeout"), "schema default");
      assert.equal(config.getValue("features:enableAnalytics"), false);
      assert.equal(config.getValue("api:timeout"), 8000);
      assert.equal(config.getSource("api:timeout"), "env APP_API__TIMEOUT");
      assert.deepEqual(config.getValue("logging:providers"), [
        { type: "console", options: {} },
      ]);
      const typed: AppConfig = config.bind(appConfigSchema);
      assert.equal(typed.api.retryAttempts, 3);
    });
    await withEnv({ ...CLEAN, APP_API__TIMEOUT: "70000" }, async () => {
      await assert.rejects(
        createConfiguration({ basePath: dir.path, schema: appConfigSchema }),
        {
          message:
            "Configuration validation failed:\napi:timeout: must be at most 60000 (from env APP_API__TIMEOUT)",
        },
      );
    });
  });
});

test("ConfigurationManager.diagnose() reports a missing override file for the chosen environment", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", VALID_BASE);
    await withEnv(CLEAN, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        environment: "production",
      });
      const findings = config.diagnose().filter((finding) =>
        finding.code === "missing-environment-file"
      );
      assert.deepEqual(findings, [{
        code: "missing-environment-file",
        message:
          `No override file for environment "production" (chosen by the environment option): ${
            join(dir.path, "appsettings.production.json")
          } does not exist, so only the base settings apply`,
      }]);
      // The optional .env that is missing too is a milder finding.
      assert.ok(
        config.diagnose().some((finding) =>
          finding.code === "missing-optional-file" &&
          finding.message.includes(join(dir.path, ".env"))
        ),
      );
    });
  });
});

test("ConfigurationManager.diagnose() reports standard variables that are set while no standard source was added", async () => {
  await withEnv({ ...CLEAN, LOG_LEVEL: "debug" }, async () => {
    const config = new ConfigurationManager();
    await config.loadConfiguration();
    const finding = config.diagnose().find((item) =>
      item.variable === "LOG_LEVEL"
    );
    assert.ok(finding !== undefined);
    assert.equal(finding.code, "no-environment-source");
    assert.match(finding.message, /call config\.addStandardVariables\(\)/);
  });
});

test("createConfiguration(): the environment is RUNTIME_ENV, then NODE_ENV, then APP_ENV, else development, and explain()/diagnose() name what chose it", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", { ...VALID_BASE, which: "base" });
    for (const name of ["production", "staging", "test", "development"]) {
      await dir.write(`appsettings.${name}.json`, { which: name });
    }
    const cases: [Record<string, string | undefined>, string, string][] = [
      [
        { RUNTIME_ENV: "staging", NODE_ENV: "production", APP_ENV: "test" },
        "staging",
        "RUNTIME_ENV",
      ],
      [{ NODE_ENV: "production", APP_ENV: "test" }, "production", "NODE_ENV"],
      [{ APP_ENV: "test" }, "test", "APP_ENV"],
      [{}, "development", "the default"],
    ];
    for (const [variables, expected, chooser] of cases) {
      await withEnv({ ...CLEAN, ...variables }, async () => {
        const config = await createConfiguration({ basePath: dir.path });
        try {
          assert.equal(config.environment, expected);
          assert.equal(config.environmentSource, chooser);
          assert.equal(config.getValue("which"), expected);
          const label = chooser === "the default"
            ? "default environment"
            : `environment from ${chooser}`;
          assert.deepEqual(
            config.explain().find((entry) => entry.key === "which"),
            {
              key: "which",
              value: expected,
              source: `appsettings.${expected}.json (${label})`,
            },
          );
        } finally {
          await config.close();
        }
      });
    }
  });
  // Without the file, diagnose() names the variable that chose the name.
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", VALID_BASE);
    await withEnv({ ...CLEAN, NODE_ENV: "production" }, async () => {
      const config = await createConfiguration({ basePath: dir.path });
      assert.equal(config.getValue("logging:level"), "info");
      assert.deepEqual(
        config.diagnose().filter((finding) =>
          finding.code === "missing-environment-file"
        ),
        [{
          code: "missing-environment-file",
          message:
            `No override file for environment "production" (chosen by NODE_ENV): ${
              join(dir.path, "appsettings.production.json")
            } does not exist, so only the base settings apply`,
        }],
      );
    });
  });
});

test("createConfiguration(): a failure of the default rules ends with how to opt out", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      api: { baseUrl: "https://api.example.com" },
      logging: { level: "info" },
    });
    await withEnv(CLEAN, async () => {
      await assert.rejects(
        createConfiguration({ basePath: dir.path }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigurationValidationError);
          assert.equal(
            error.message,
            "Configuration validation failed:\n" +
              'Missing required configuration: database:connectionString (set DB_CONNECTION_STRING or APP_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json)\n' +
              "These are createConfiguration()'s default rules; for a service without them pass { validate: false }, or { schema } with a schema of your own.",
          );
          assert.deepEqual(error.failures, [
            'Missing required configuration: database:connectionString (set DB_CONNECTION_STRING or APP_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json)',
          ]);
          return true;
        },
      );
      const config = await createConfiguration({
        basePath: dir.path,
        validate: false,
      });
      assert.equal(config.hasValue("database:connectionString"), false);
    });
  });
});

test("createConfiguration(): the default rules name the near-miss variable on the line of its key", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      api: { baseUrl: "https://api.example.com" },
      logging: { level: "info" },
    });
    await withEnv({
      ...CLEAN,
      APP_DATABASE_CONNECTION_STRING: "postgres://db/app",
    }, async () => {
      await assert.rejects(
        createConfiguration({ basePath: dir.path }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigurationValidationError);
          assert.deepEqual(error.failures, [
            'Missing required configuration: database:connectionString (set DB_CONNECTION_STRING or APP_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json); APP_DATABASE_CONNECTION_STRING is set; did you mean APP_DATABASE__CONNECTION_STRING?',
          ]);
          return true;
        },
      );
    });
  });
});

test("createConfiguration(): relative JSON and .env paths resolve against basePath, else KIT_CONFIG_PATH, which config.basePath reports", async () => {
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", VALID_BASE);
    await dir.write(".env", "APP_FROM__DOTENV=yes\n");
    await withEnv({ ...CLEAN, KIT_CONFIG_PATH: dir.path }, async () => {
      const config = await createConfiguration();
      assert.equal(config.basePath, dir.path);
      assert.equal(config.getValue("from:dotenv"), "yes");
      const explicit = await createConfiguration({ basePath: dir.path });
      assert.equal(explicit.basePath, dir.path);
    });
  });
});
