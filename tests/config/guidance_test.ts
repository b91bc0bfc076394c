// Errors and findings that say what to do, so a user can fix the setup
// without reading Kit's source: the near-miss variable
// and the replaced array on the failing line, the one log level rule, a
// source added after loading, and the --allow-env warning.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  appConfigSchema,
  ConfigurationManager,
  ConfigurationValidationError,
  invalidLogLevelMessage,
  MemoryProvider,
  normalizeLogLevel,
  validateConfiguration,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

interface DenoCommandApi {
  execPath(): string;
  Command: new (
    command: string,
    options: { args: string[]; env: Record<string, string> },
  ) => {
    outputSync(): { code: number; stdout: Uint8Array; stderr: Uint8Array };
  };
}

function failuresOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigurationValidationError);
    return [...error.failures];
  }
  assert.fail("expected a ConfigurationValidationError");
}

test("a schema failure line names the single-underscore variable that was meant for its key", async () => {
  const p = uniquePrefix();
  await withEnv(
    { [`${p}_DATABASE_CONNECTION_STRING`]: "postgres://db/app" },
    async () => {
      const config = new ConfigurationManager();
      config.addProvider(
        new MemoryProvider({
          "api:baseUrl": "https://api.example.com",
          "logging:providers:0:type": "console",
        }),
      );
      config.addEnvironmentVariables(p);
      await config.loadConfiguration();
      // The section is missing: its required key is named, with the hint.
      assert.deepEqual(failuresOf(() => config.bind(appConfigSchema)), [
        `database:connectionString: is required (not set by any source; set ${p}_DATABASE__CONNECTION_STRING); ${p}_DATABASE_CONNECTION_STRING is set; did you mean ${p}_DATABASE__CONNECTION_STRING?`,
      ]);
      // With the object present, the line is the same.
      config.addProvider(new MemoryProvider({ "database:poolSize": "5" }));
      await config.loadConfiguration();
      assert.deepEqual(failuresOf(() => config.bind(appConfigSchema)), [
        `database:connectionString: is required (not set by any source; set ${p}_DATABASE__CONNECTION_STRING); ${p}_DATABASE_CONNECTION_STRING is set; did you mean ${p}_DATABASE__CONNECTION_STRING?`,
      ]);
    },
  );
});

test("a variable that replaces a whole array is named on the validation line of the item it emptied", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", {
      database: { connectionString: "postgres://db/app" },
      api: { baseUrl: "https://api.example.com" },
      logging: { providers: [{ type: "console" }, { type: "file" }] },
    });
    const p = uniquePrefix();
    const variable = `${p}_LOGGING__PROVIDERS__0__OPTIONS__FORMAT`;
    await withEnv({ [variable]: "json" }, async () => {
      const config = new ConfigurationManager({ schema: appConfigSchema });
      await config.addJsonFile(file);
      config.addEnvironmentVariables(p);
      await assert.rejects(config.loadConfiguration(), (error: unknown) => {
        assert.ok(error instanceof ConfigurationValidationError);
        assert.deepEqual(error.failures, [
          `logging:providers:0:type: is required (not set by any source); env ${variable} replaced the whole array logging:providers from ${file} (arrays are replaced, not merged: set every item's values in one source)`,
        ]);
        return true;
      });
    });
  });
});

test("log levels follow one rule: any letter case, warn means warning, one message with the allowed values and the source", async () => {
  assert.equal(normalizeLogLevel("WARN"), "warning");
  assert.equal(normalizeLogLevel(" Warning "), "warning");
  assert.equal(normalizeLogLevel("DEBUG"), "debug");
  assert.equal(normalizeLogLevel("verbose"), undefined);
  assert.equal(normalizeLogLevel(2), undefined);

  const base = {
    "database:connectionString": "postgres://db/app",
    "api:baseUrl": "https://api.example.com",
    "logging:providers:0:type": "console",
  };
  for (const level of ["WARN", "warn", "Info", " error "]) {
    const config = new ConfigurationManager();
    config.addProvider(new MemoryProvider({ ...base, "logging:level": level }));
    await config.loadConfiguration();
    validateConfiguration(config);
    assert.equal(
      config.bind(appConfigSchema).logging.level,
      normalizeLogLevel(level),
    );
  }

  const expected =
    "Invalid log level: verbose (allowed: debug, info, warning, error; from memory)";
  assert.equal(invalidLogLevelMessage("verbose", "memory"), expected);
  const config = new ConfigurationManager();
  config.addProvider(
    new MemoryProvider({ ...base, "logging:level": "verbose" }),
  );
  await config.loadConfiguration();
  assert.deepEqual(failuresOf(() => validateConfiguration(config)), [expected]);
  assert.deepEqual(failuresOf(() => config.bind(appConfigSchema)), [expected]);
});

test("diagnose() reports a source added after loadConfiguration() until the next load", async () => {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider({ "a:b": "1" }));
  await config.loadConfiguration();
  assert.deepEqual(
    config.diagnose().filter((f) => f.code === "added-after-load"),
    [],
  );
  config.addProvider(new MemoryProvider({ "c:d": "2" }));
  assert.equal(config.hasValue("c:d"), false);
  assert.deepEqual(
    config.diagnose().filter((f) => f.code === "added-after-load"),
    [{
      code: "added-after-load",
      message:
        "Source memory was added after loadConfiguration() and is not in effect yet; call config.loadConfiguration() (or config.reload()) again",
    }],
  );
  await config.loadConfiguration();
  assert.equal(config.getValue("c:d"), "2");
  assert.deepEqual(
    config.diagnose().filter((f) => f.code === "added-after-load"),
    [],
  );
});

test(
  "Deno without --allow-env: asking for environment variables warns once on stderr, naming the flag",
  {
    skip: typeof (globalThis as { Deno?: unknown }).Deno === "undefined"
      ? "runs a Deno child process without --allow-env"
      : false,
  },
  async () => {
    await withTempDir((dir) => {
      const script = join(dir.path, "no_env.ts");
      const mod = new URL("../../config/mod.ts", import.meta.url).href;
      writeFileSync(
        script,
        [
          `import { ConfigurationManager } from "${mod}";`,
          `for (let i = 0; i < 2; i++) {`,
          `  const config = new ConfigurationManager();`,
          `  config.addEnvironmentVariables("APP");`,
          `  config.addStandardVariables();`,
          `  await config.loadConfiguration();`,
          `}`,
          `console.log("loaded");`,
          ``,
        ].join("\n"),
      );
      const config = new URL("../../deno.dev.json", import.meta.url).pathname;
      // Deno.Command, not node:child_process: Deno's child_process grants the
      // child its parent's permissions.
      const deno = (globalThis as unknown as { Deno: DenoCommandApi }).Deno;
      const output = new deno.Command(deno.execPath(), {
        args: ["run", "--quiet", "--no-prompt", "--config", config, script],
        env: { NO_COLOR: "1" },
      }).outputSync();
      const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      const result = {
        status: output.code,
        stdout: decode(output.stdout),
        stderr: decode(output.stderr),
      };
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim(), "loaded");
      const warnings = result.stderr.split("\n").filter((line) =>
        line.includes("environment variables could not be read")
      );
      assert.equal(warnings.length, 1, result.stderr);
      assert.match(warnings[0], /--allow-env/);
      assert.match(warnings[0], /^Kit configuration: /);
    });
  },
);
