import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type ConfigurationEntry,
  ConfigurationManager,
  type ConfigurationProvider,
  ConfigurationValueNotFoundError,
  DotEnvProvider,
  type IConfiguration,
  MemoryProvider,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

async function fromMemory(
  values: Record<string, string>,
): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider(new Map(Object.entries(values))));
  await config.loadConfiguration();
  return config;
}

test("ConfigurationManager implements IConfiguration", async () => {
  const config: IConfiguration = await fromMemory({ "a:b": "1" });
  assert.equal(config.hasValue("a:b"), true);
  assert.equal(config.getValue<string>("a:b"), "1");
});

test("ConfigurationManager.getValue() throws exactly 'Configuration value not found: <key>' for a missing key", async () => {
  const config = await fromMemory({ "database:timeout": "5000" });
  assert.throws(
    () => config.getValue("database:connectionString"),
    (error: unknown) => {
      assert.ok(error instanceof ConfigurationValueNotFoundError);
      assert.ok(error instanceof Error);
      assert.equal(
        error.message,
        "Configuration value not found: database:connectionString",
      );
      assert.equal(error.key, "database:connectionString");
      return true;
    },
  );
});

test("ConfigurationManager.getValue() returns the default for a missing key, even an undefined one", async () => {
  const config = await fromMemory({ "a:b": "1" });
  assert.equal(config.getValue("a:missing", 42), 42);
  assert.equal(config.getValue("a:missing", undefined), undefined);
  assert.equal(config.getValue("a:missing", null), null);
  assert.equal(config.getValue("a:b", "default"), "1");
});

test("ConfigurationManager.getValue() without a schema returns what the source holds", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("settings.json", {
      n: 5,
      flag: false,
      nothing: null,
      list: [1, "two"],
    });
    const config = new ConfigurationManager();
    await config.addJsonFile(file);
    config.addProvider(new MemoryProvider({ "m:n": "5000" }));
    await config.loadConfiguration();
    assert.equal(config.getValue("n"), 5);
    assert.equal(config.getValue("flag"), false);
    assert.equal(config.getValue("nothing"), null);
    assert.equal(config.hasValue("nothing"), true);
    assert.deepEqual(config.getValue("list"), [1, "two"]);
    assert.equal(config.getValue("m:n"), "5000");
  });
});

test("ConfigurationManager lookups ignore letter case per segment", async () => {
  const config = await fromMemory({ "Database:ConnectionString": "x" });
  for (
    const key of [
      "database:connectionString",
      "DATABASE:CONNECTIONSTRING",
      "Database:ConnectionString",
      "database:connectionstring",
    ]
  ) {
    assert.equal(config.getValue(key), "x", key);
    assert.equal(config.hasValue(key), true, key);
  }
  // Repeated reads of the same odd spelling keep working.
  assert.equal(config.getValue("dAtAbAsE:cOnNeCtIoNsTrInG"), "x");
  assert.equal(config.getValue("dAtAbAsE:cOnNeCtIoNsTrInG"), "x");
  assert.equal(config.hasValue("database:other"), false);
});

test("ConfigurationManager.getSection() and explain() keep the spelling of the source that won", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", {
      Database: { ConnectionString: "base", Timeout: 1000 },
    });
    const config = new ConfigurationManager();
    await config.addJsonFile(file);
    config.addProvider(new MemoryProvider({ "database:timeout": "2000" }));
    await config.loadConfiguration();
    // `database` and `timeout` come from memory (the winner), the rest keeps
    // the file's spelling.
    assert.deepEqual(config.getSection("DATABASE"), {
      ConnectionString: "base",
      timeout: "2000",
    });
    assert.deepEqual(
      config.explain().map((entry) => entry.key),
      ["database:ConnectionString", "database:timeout"],
    );
    assert.deepEqual(config.getSection(""), {
      database: { ConnectionString: "base", timeout: "2000" },
    });
  });
});

test("ConfigurationManager.getSection() returns a deep copy", async () => {
  const config = await fromMemory({
    "logging:providers:0:type": "console",
    "logging:level": "info",
  });
  const section = config.getSection<{
    level: string;
    providers: { type: string }[];
  }>("logging");
  section.level = "changed";
  section.providers[0].type = "changed";
  assert.equal(config.getValue("logging:level"), "info");
  assert.equal(config.getValue("logging:providers:0:type"), "console");
  const viaGetValue = config.getValue<{ level: string }>("logging");
  viaGetValue.level = "changed";
  assert.equal(config.getValue("logging:level"), "info");
});

test("ConfigurationManager.getSection() throws for a missing key unless given a default", async () => {
  const config = await fromMemory({ "a:b": "1" });
  assert.throws(
    () => config.getSection("nope"),
    { message: "Configuration value not found: nope" },
  );
  assert.deepEqual(config.getSection("nope", {}), {});
});

test("ConfigurationManager: nothing is readable before loadConfiguration()", async () => {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider({ "a:b": "1" }));
  assert.equal(config.loaded, false);
  assert.equal(config.hasValue("a:b"), false);
  assert.throws(() => config.getValue("a:b"), {
    message:
      "Configuration value not found: a:b\nIt was read before loadConfiguration() finished; await config.loadConfiguration() before reading values.",
  });
  await config.loadConfiguration();
  assert.equal(config.loaded, true);
  assert.equal(config.getValue("a:b"), "1");
});

test("ConfigurationManager: later sources override earlier ones only for the keys they contain, nested objects merge", async () => {
  await withTempDir(async (dir) => {
    const base = await dir.write("appsettings.json", {
      database: { connectionString: "base", timeout: 1000, poolSize: 5 },
      api: { baseUrl: "https://base" },
    });
    const override = await dir.write("appsettings.production.json", {
      database: { timeout: 2000 },
    });
    const config = new ConfigurationManager();
    await config.addJsonFile(base);
    await config.addJsonFile(override);
    await config.loadConfiguration();
    assert.deepEqual(config.getSection("database"), {
      connectionString: "base",
      timeout: 2000,
      poolSize: 5,
    });
    assert.equal(config.getValue("api:baseUrl"), "https://base");
    assert.equal(config.getSource("database:timeout"), override);
    assert.equal(config.getSource("database:poolSize"), base);
  });
});

test("ConfigurationManager: arrays are replaced whole, never merged by index", async () => {
  await withTempDir(async (dir) => {
    const base = await dir.write("appsettings.json", {
      logging: {
        providers: [
          { type: "console", options: { colorize: true } },
          { type: "file", options: { filename: "app.log" } },
        ],
      },
    });
    const override = await dir.write("appsettings.production.json", {
      logging: { providers: [{ type: "remote" }] },
    });
    const config = new ConfigurationManager();
    await config.addJsonFile(base);
    await config.addJsonFile(override);
    await config.loadConfiguration();
    assert.deepEqual(config.getValue("logging:providers"), [{
      type: "remote",
    }]);
    assert.equal(config.hasValue("logging:providers:1"), false);
    assert.equal(config.hasValue("logging:providers:0:options"), false);
  });
});

test("ConfigurationManager: numeric segments of a flat source build an array that replaces the lower array whole", async () => {
  const prefix = uniquePrefix();
  await withTempDir(async (dir) => {
    const base = await dir.write("appsettings.json", {
      logging: {
        providers: [
          { type: "console", options: { colorize: true } },
          { type: "file" },
        ],
      },
    });
    await withEnv({
      [`${prefix}_LOGGING__PROVIDERS__0__TYPE`]: "remote",
      [`${prefix}_LOGGING__PROVIDERS__0__OPTIONS__BATCH_SIZE`]: "100",
    }, async () => {
      const config = new ConfigurationManager();
      await config.addJsonFile(base);
      config.addEnvironmentVariables(prefix);
      await config.loadConfiguration();
      const providers = config.getValue("logging:providers");
      assert.ok(Array.isArray(providers));
      assert.deepEqual(providers, [
        { type: "remote", options: { batchSize: "100" } },
      ]);
      assert.equal(
        config.getSource("logging:providers:0:type"),
        `env ${prefix}_LOGGING__PROVIDERS__0__TYPE`,
      );
    });
  });
});

test("MemoryProvider: numeric segments build arrays ordered by index, gaps closed", async () => {
  const config = await fromMemory({
    "list:10": "c",
    "list:2": "b",
    "list:0": "a",
    "mixed:0": "x",
    "mixed:name": "y",
  });
  assert.deepEqual(config.getValue("list"), ["a", "b", "c"]);
  assert.deepEqual(config.getValue("mixed"), { 0: "x", name: "y" });
});

test("DotEnvProvider: a colon-path key with numeric segments builds an array", async () => {
  await withTempDir(async (dir) => {
    const env = await dir.write(
      ".env",
      "logging:providers:0:type=console\nlogging:providers:1:type=file\n",
    );
    const config = new ConfigurationManager();
    await config.addProvider(new DotEnvProvider(env));
    await config.loadConfiguration();
    assert.deepEqual(config.getValue("logging:providers"), [
      { type: "console" },
      { type: "file" },
    ]);
  });
});

test("ConfigurationManager: precedence with every kind of source at once", async () => {
  const prefix = uniquePrefix();
  await withTempDir(async (dir) => {
    const base = await dir.write("appsettings.json", {
      k: {
        base: "json",
        override: "json",
        dotenv: "json",
        env: "json",
        memory: "json",
      },
    });
    const override = await dir.write("appsettings.production.json", {
      k: {
        override: "override",
        dotenv: "override",
        env: "override",
        memory: "override",
      },
    });
    const dotenv = await dir.write(
      ".env",
      [
        `${prefix}_K__DOTENV=dotenv`,
        `${prefix}_K__ENV=dotenv`,
        `${prefix}_K__MEMORY=dotenv`,
      ].join("\n"),
    );
    await withEnv({
      [`${prefix}_K__ENV`]: "env",
      [`${prefix}_K__MEMORY`]: "env",
    }, async () => {
      const config = new ConfigurationManager();
      // Memory is added FIRST and still wins.
      config.addProvider(new MemoryProvider({ "k:memory": "memory" }));
      await config.addJsonFile(base);
      await config.addJsonFile(override);
      await config.addProvider(new DotEnvProvider(dotenv, { prefix }));
      config.addEnvironmentVariables(prefix);
      await config.loadConfiguration();
      assert.deepEqual(config.getSection("k"), {
        base: "json",
        override: "override",
        dotenv: "dotenv",
        env: "env",
        memory: "memory",
      });
      assert.equal(config.getSource("k:base"), base);
      assert.equal(config.getSource("k:override"), override);
      assert.equal(
        config.getSource("k:dotenv"),
        `${dotenv} ${prefix}_K__DOTENV`,
      );
      assert.equal(config.getSource("k:env"), `env ${prefix}_K__ENV`);
      assert.equal(config.getSource("k:memory"), "memory");
    });
  });
});

test("MemoryProvider: between memory sources the one added later wins", async () => {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider({ a: "first", b: "first" }));
  config.addProvider(new MemoryProvider({ a: "second" }));
  await config.loadConfiguration();
  assert.equal(config.getValue("a"), "second");
  assert.equal(config.getValue("b"), "first");
});

test("ConfigurationManager.addProvider() accepts a custom provider and honours its priority", async () => {
  const low: ConfigurationProvider = {
    name: "low",
    priority: -1,
    load: (): ConfigurationEntry[] => [{ key: "x", value: "low" }],
  };
  const asyncProvider: ConfigurationProvider = {
    name: "async",
    load: (): Promise<ConfigurationEntry[]> =>
      Promise.resolve([{ key: "y:z", value: { deep: [1, 2] } }]),
  };
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider({ y: "ignored-by-later-object?" }));
  await config.addProvider(asyncProvider);
  config.addProvider(low);
  config.addProvider({
    name: "normal",
    load: () => [{ key: "x", value: "normal" }],
  });
  await config.loadConfiguration();
  assert.equal(config.getValue("x"), "normal");
  assert.equal(config.getSource("x"), "normal");
  // Memory (highest priority) replaces the async provider's object with a string.
  assert.equal(config.getValue("y"), "ignored-by-later-object?");
  assert.throws(
    () => config.addProvider({} as ConfigurationProvider),
    TypeError,
  );
});

test("ConfigurationManager.addProvider() returns a promise for asynchronous providers and rejects without registering a failing one", async () => {
  const config = new ConfigurationManager();
  const result = config.addProvider({
    name: "broken",
    load: () => Promise.reject(new Error("down")),
  });
  assert.ok(result instanceof Promise);
  await assert.rejects(result, { message: "down" });
  config.addProvider(new MemoryProvider({ a: "1" }));
  await config.loadConfiguration();
  assert.equal(config.getValue("a"), "1");
  assert.equal(
    config.addProvider(new MemoryProvider({ b: "2" })),
    undefined,
  );
});

test("ConfigurationManager.loadConfiguration() awaits a file provider whose promise was not awaited yet", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("a.json", { a: 1 });
    const config = new ConfigurationManager();
    const pending = config.addJsonFile(file);
    await config.loadConfiguration();
    await pending;
    assert.equal(config.getValue("a"), 1);
  });
});

test("ConfigurationManager.loadConfiguration() re-reads synchronous sources such as the environment", async () => {
  const prefix = uniquePrefix();
  const config = new ConfigurationManager();
  config.addEnvironmentVariables(prefix);
  await withEnv({ [`${prefix}_LATE`]: "set after add" }, async () => {
    await config.loadConfiguration();
    assert.equal(config.getValue("late"), "set after add");
  });
});

test("ConfigurationManager.explain() lists every effective leaf with its value and winning source", async () => {
  const prefix = uniquePrefix();
  await withTempDir(async (dir) => {
    const base = await dir.write("appsettings.json", {
      database: { timeout: 1000, tags: [] },
      empty: {},
    });
    const production = await dir.write("appsettings.production.json", {
      database: { poolSize: 5 },
    });
    await withEnv({ [`${prefix}_DATABASE__TIMEOUT`]: "3000" }, async () => {
      const config = new ConfigurationManager();
      await config.addJsonFile(base);
      await config.addJsonFile(production);
      config.addEnvironmentVariables(prefix);
      config.addProvider(new MemoryProvider({ "feature:beta": "true" }));
      await config.loadConfiguration();
      assert.deepEqual(config.explain(), [
        {
          key: "database:timeout",
          value: "3000",
          source: `env ${prefix}_DATABASE__TIMEOUT`,
        },
        { key: "database:tags", value: [], source: base },
        { key: "database:poolSize", value: 5, source: production },
        { key: "empty", value: {}, source: base },
        { key: "feature:beta", value: "true", source: "memory" },
      ]);
      assert.equal(config.getSource("feature:beta"), "memory");
      assert.equal(config.getSource("FEATURE:BETA"), "memory");
      // A subtree reports the highest-precedence source that supplied part of it.
      assert.equal(
        config.getSource("database"),
        `env ${prefix}_DATABASE__TIMEOUT`,
      );
      assert.equal(config.getSource("nope"), undefined);
      assert.equal(
        config.toString(),
        [
          `database:timeout = "3000" (env ${prefix}_DATABASE__TIMEOUT)`,
          `database:tags = [] (${base})`,
          `database:poolSize = 5 (${production})`,
          `empty = {} (${base})`,
          `feature:beta = "true" (memory)`,
        ].join("\n"),
      );
    });
  });
});

test("ConfigurationManager.toString() of an empty configuration says so", async () => {
  const config = new ConfigurationManager();
  await config.loadConfiguration();
  assert.equal(config.toString(), "(no configuration values)");
  assert.deepEqual(config.toJSON(), {});
});
