// LoggerManager.fromConfiguration against a small IConfiguration object (see
// _helpers.ts): the real ConfigurationManager implements the same read
// interface.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  ConsoleLogProvider,
  FileLogProvider,
  LoggerManager,
  LoggingConfigurationError,
  LogLevel,
  RemoteLogProvider,
} from "../../logging/mod.ts";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { startCollector } from "../_support/http_server.ts";
import { memoryConfig, tempDir } from "./_helpers.ts";
import { withVariables } from "../_support/variables.ts";

function failure(run: () => unknown): LoggingConfigurationError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof LoggingConfigurationError, String(error));
    return error;
  }
  assert.fail("expected a LoggingConfigurationError");
}

test("LoggerManager.fromConfiguration() reads logging:level and builds each provider type", async () => {
  const manager = new LoggerManager().fromConfiguration(memoryConfig({
    "logging:level": "warning",
    "logging:providers": [
      { type: "console", options: { colorize: false, format: "simple" } },
      { type: "file", options: { filename: "unused/app.log", maxFiles: 2 } },
      {
        type: "remote",
        options: { endpoint: "http://127.0.0.1:9/logs", batchSize: 10 },
      },
    ],
  }));
  assert.equal(manager.level, LogLevel.Warning);
  const [console, file, remote] = manager.providers;
  assert.ok(console instanceof ConsoleLogProvider);
  assert.ok(file instanceof FileLogProvider);
  assert.equal(file.filename, "unused/app.log");
  assert.ok(remote instanceof RemoteLogProvider);
  await manager.dispose(); // nothing was logged: no file, no request
});

test("LoggerManager.fromConfiguration() fills filename, endpoint and apiKey from logging:filePath, logging:remoteEndpoint, logging:apiKey", async () => {
  const { dir, cleanup } = await tempDir();
  const server = await startCollector();
  try {
    const filePath = join(dir, "logs", "app.log");
    const manager = new LoggerManager().fromConfiguration(memoryConfig({
      "logging:level": "info",
      "logging:providers": [{ type: "file", options: {} }, { type: "remote" }],
      "logging:filePath": filePath,
      "logging:remoteEndpoint": `${server.url}/ingest`,
      "logging:apiKey": "from-config",
    }));
    manager.getLogger("startup").info("configured", { step: 2 });
    await manager.dispose();
    const line = JSON.parse((await readFile(filePath, "utf8")).trim());
    assert.equal(line.message, "configured");
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].url, "/ingest");
    assert.equal(server.requests[0].headers["x-api-key"], "from-config");
  } finally {
    await server.close();
    await cleanup();
  }
});

test("LoggerManager.fromConfiguration() prefers options given in the provider entry", () => {
  const manager = new LoggerManager().fromConfiguration(memoryConfig({
    "logging:providers": [{ type: "file", options: { filename: "own.log" } }],
    "logging:filePath": "shared.log",
  }));
  assert.equal((manager.providers[0] as FileLogProvider).filename, "own.log");
});

test("LoggerManager.fromConfiguration() converts numbers and booleans given as strings", async () => {
  const manager = new LoggerManager().fromConfiguration(memoryConfig({
    "logging:level": "Debug",
    "logging:providers": {
      "0": {
        type: "console",
        options: { colorize: "false", timestamp: "true" },
      },
      "1": {
        type: "file",
        options: { filename: "x.log", maxFileSize: "10485760", maxFiles: "5" },
      },
    },
  }));
  assert.equal(manager.level, LogLevel.Debug);
  assert.equal(manager.providers.length, 2);
  await manager.dispose();
});

test("LoggerManager.fromConfiguration() defaults to level info and one console provider", async () => {
  const manager = new LoggerManager().fromConfiguration(memoryConfig({}));
  assert.equal(manager.level, LogLevel.Info);
  assert.equal(manager.providers.length, 1);
  assert.ok(manager.providers[0] instanceof ConsoleLogProvider);
  await manager.dispose();
});

test("LoggerManager.fromConfiguration() names the provider index for an unknown type", () => {
  const error = failure(() =>
    new LoggerManager().fromConfiguration(memoryConfig({
      "logging:providers": [{ type: "console" }, { type: "console" }, {
        type: "syslog",
      }],
    }))
  );
  assert.equal(
    error.message,
    `Invalid logging configuration: logging:providers[2].type must be one of console, file, remote (got "syslog")`,
  );
  assert.equal(error.key, "logging:providers");
  assert.equal(error.providerIndex, 2);
  assert.equal(error.option, "type");
});

test("LoggerManager.fromConfiguration() names the provider index and option for a bad option", () => {
  const error = failure(() =>
    new LoggerManager().fromConfiguration(memoryConfig({
      "logging:providers": [
        { type: "console" },
        { type: "file", options: { filename: "a.log", maxFileSize: "big" } },
      ],
    }))
  );
  assert.equal(
    error.message,
    `Invalid logging configuration: logging:providers[1].options.maxFileSize must be a positive integer (got "big")`,
  );
  assert.equal(error.providerIndex, 1);
  assert.equal(error.option, "maxFileSize");

  const unknown = failure(() =>
    new LoggerManager().fromConfiguration(memoryConfig({
      "logging:providers": [{
        type: "remote",
        options: { endpoint: "https://x.test", batchsize: 5 },
      }],
    }))
  );
  assert.match(
    unknown.message,
    /logging:providers\[0\]\.options\.batchsize is not an option \(allowed: endpoint, apiKey, batchSize/,
  );
  assert.equal(unknown.option, "batchsize");
});

test("LoggerManager.fromConfiguration() reports a missing filename or endpoint with the keys that can supply it", () => {
  const file = failure(() =>
    new LoggerManager().fromConfiguration(
      memoryConfig({ "logging:providers": [{ type: "file" }] }),
    )
  );
  assert.equal(
    file.message,
    "Invalid logging configuration: logging:providers[0].options.filename is required (or set logging:filePath / LOG_FILE_PATH)",
  );
  const remote = failure(() =>
    new LoggerManager().fromConfiguration(memoryConfig({
      "logging:providers": [{ type: "console" }, {
        type: "remote",
        options: { batchSize: 5 },
      }],
    }))
  );
  assert.equal(remote.providerIndex, 1);
  assert.equal(remote.option, "endpoint");
});

test("LoggerManager.fromConfiguration() rejects a bad level, an empty or malformed provider list", () => {
  const level = failure(() =>
    new LoggerManager().fromConfiguration(
      memoryConfig({ "logging:level": "verbose" }),
    )
  );
  assert.equal(
    level.message,
    `Invalid logging configuration: Invalid log level: verbose (allowed: debug, info, warning, error; from logging:level)`,
  );
  assert.equal(level.key, "logging:level");
  const empty = failure(() =>
    new LoggerManager().fromConfiguration(
      memoryConfig({ "logging:providers": [] }),
    )
  );
  assert.equal(
    empty.message,
    "Invalid logging configuration: logging:providers must list at least one provider",
  );
  const notObject = failure(() =>
    new LoggerManager().fromConfiguration(
      memoryConfig({ "logging:providers": ["console"] }),
    )
  );
  assert.equal(notObject.providerIndex, 0);
  const extraKey = failure(() =>
    new LoggerManager().fromConfiguration(memoryConfig({
      "logging:providers": [{ type: "console", level: "debug" }],
    }))
  );
  assert.equal(extraKey.option, "level");
});

test("LoggerManager.fromConfiguration() leaves the manager unchanged when the configuration is invalid", () => {
  const manager = new LoggerManager().configure({
    level: "error",
    providers: [],
  });
  assert.throws(() =>
    manager.fromConfiguration(
      memoryConfig({ "logging:providers": [{ type: "nope" }] }),
    )
  );
  assert.equal(manager.level, LogLevel.Error);
});

test("LoggerManager.fromConfiguration() as a static configures the default manager", async () => {
  LoggerManager.reset();
  try {
    const manager = LoggerManager.fromConfiguration(memoryConfig({
      "logging:level": "error",
      "logging:providers": [{ type: "console", options: { format: "json" } }],
    }));
    assert.equal(manager, LoggerManager.default);
    assert.equal(LoggerManager.default.level, LogLevel.Error);
  } finally {
    await LoggerManager.dispose();
    LoggerManager.reset();
  }
});

test("LoggerManager.fromConfiguration(): a relative log file name resolves against the configuration's basePath, like its JSON files", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await writeFile(
      join(dir, "appsettings.json"),
      JSON.stringify({
        logging: {
          level: "WARN",
          providers: [{ type: "file", options: { filename: "logs/app.log" } }],
        },
      }),
    );
    const config = new ConfigurationManager({ basePath: dir });
    await config.addJsonFile("appsettings.json");
    await config.loadConfiguration();
    const manager = new LoggerManager().fromConfiguration(config);
    try {
      assert.equal(manager.level, LogLevel.Warning);
      const file = manager.providers[0] as FileLogProvider;
      assert.equal(file.filename, join(dir, "logs", "app.log"));
      manager.getLogger("test").warning("written beside the configuration");
      await manager.flush();
      assert.match(
        await readFile(join(dir, "logs", "app.log"), "utf8"),
        /written beside the configuration/,
      );
    } finally {
      await manager.dispose();
    }
  } finally {
    await cleanup();
  }
});

test("LoggerManager.fromConfiguration(): an invalid level gives the one log level message, naming its source", async () => {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider({ "logging:level": "verbose" }));
  await config.loadConfiguration();
  const error = failure(() => new LoggerManager().fromConfiguration(config));
  assert.equal(
    error.message,
    "Invalid logging configuration: Invalid log level: verbose (allowed: debug, info, warning, error; from memory)",
  );
});

/** A ConfigurationManager over these variables (standard and APP_*). */
async function configWith(
  values: Record<string, string>,
): Promise<ConfigurationManager> {
  return await withVariables(values, async () => {
    const config = new ConfigurationManager();
    config.addStandardVariables();
    config.addEnvironmentVariables("APP");
    await config.loadConfiguration();
    return config;
  });
}

test("LoggerManager.fromConfiguration(): a bad value names the variable it came from as its source", async () => {
  const byLevel = await configWith({ LOG_LEVEL: "verbose" });
  const byEndpoint = await configWith({
    LOG_REMOTE_ENDPOINT: "not an address",
    APP_LOGGING__PROVIDERS__0__TYPE: "remote",
  });
  const byType = await configWith({
    APP_LOGGING__PROVIDERS__0__TYPE: "syslog",
  });
  const level = failure(() => new LoggerManager().fromConfiguration(byLevel));
  assert.equal(level.key, "logging:level");
  assert.equal(level.source, "LOG_LEVEL");
  // An option filled from another key names that key's variable.
  const endpoint = failure(() =>
    new LoggerManager().fromConfiguration(byEndpoint)
  );
  assert.equal(endpoint.providerIndex, 0);
  assert.equal(endpoint.option, "endpoint");
  assert.equal(endpoint.source, "LOG_REMOTE_ENDPOINT");
  // An entry's own value names its variable.
  const type = failure(() => new LoggerManager().fromConfiguration(byType));
  assert.equal(type.providerIndex, 0);
  assert.equal(type.option, "type");
  assert.equal(type.source, "APP_LOGGING__PROVIDERS__0__TYPE");
});

test("LoggerManager.fromConfiguration(): a required option that is missing has no source", () => {
  const error = failure(() =>
    new LoggerManager().fromConfiguration(
      memoryConfig({ "logging:providers": [{ type: "file" }] }),
    )
  );
  assert.equal(error.option, "filename");
  assert.equal(error.source, undefined);
});
