// What the host logs once logging is set up (after start-up step 2): the
// configuration's near-miss variable names, as warnings naming the variable
// that is set and the name that would work.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Application, type ApplicationLogger } from "../../platform/mod.ts";
import { runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

interface Line {
  level: string;
  message: string;
  properties?: Record<string, unknown>;
}

function recordingLogger(): ApplicationLogger & { lines: Line[] } {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (message: string, properties?: Record<string, unknown>): void => {
      lines.push({ level, message, properties });
    };
  return {
    lines,
    debug: at("debug"),
    info: at("info"),
    warning: at("warning"),
    error: at("error"),
  };
}

test("the host logs a near-miss variable at warning level after step 2, naming both names", async () => {
  const dir = await mkdtemp(join(tmpdir(), "kit-startup-findings-"));
  try {
    await writeFile(
      join(dir, "appsettings.json"),
      JSON.stringify({
        database: { connectionString: "postgres://db/app" },
        api: { baseUrl: "https://api.example.com" },
        logging: { level: "info", providers: [{ type: "console" }] },
      }),
    );
    const script = `
      import process from "node:process";
      import { Application } from PLATFORM_URL;
      import { createConfiguration } from CONFIG_URL;
      import { LoggerManager } from LOGGING_URL;
      for (const name of ["REDIS_PORT", "RUNTIME_ENV", "NODE_ENV", "APP_ENV", "KIT_CONFIG_PATH"]) {
        delete process.env[name];
      }
      const entries = [];
      const recorder = {
        log(entry) {
          entries.push({
            level: entry.level,
            category: entry.category,
            message: entry.message,
            properties: { ...entry.properties },
          });
          return Promise.resolve();
        },
        isEnabled: () => true,
      };
      let configured = false;
      const app = await Application.start({
        configuration: () => createConfiguration({ basePath: ${
      JSON.stringify(dir)
    } }),
        logging: () => {
          configured = true;
          return new LoggerManager().configure({ level: "debug", providers: [recorder] });
        },
        services: () => {
          // Step 3/4 runs after the warning was written.
          entries.push({ marker: "services" });
        },
      });
      await app.stop();
      console.log(JSON.stringify({ configured, entries }));
      // Without a logging step the warning goes to the console.
      const bare = await Application.start({
        configuration: () => createConfiguration({ basePath: ${
      JSON.stringify(dir)
    } }),
      });
      await bare.stop();
    `;
    const { code, out } = await runChildScript(script, {
      env: { APP_CACHE__REDIS_PORT: "6380" },
    });
    assert.equal(code, 0, out);
    const lines = out.trim().split("\n");
    const json = lines.find((line) => line.startsWith('{"configured"'));
    assert.ok(json !== undefined, out);
    const { configured, entries } = JSON.parse(json) as {
      configured: boolean;
      entries: {
        level?: number;
        marker?: string;
        message?: string;
        properties?: Record<string, unknown>;
      }[];
    };
    assert.equal(configured, true);
    const warnings = entries.filter((entry) => entry.level === 2);
    assert.equal(warnings.length, 1, JSON.stringify(entries));
    const [warning] = warnings;
    assert.match(warning.message!, /APP_CACHE__REDIS_PORT\b/);
    assert.match(warning.message!, /did you mean APP_CACHE__REDIS__PORT\b/);
    assert.deepEqual(
      {
        code: warning.properties?.code,
        variable: warning.properties?.variable,
        suggestion: warning.properties?.suggestion,
      },
      {
        code: "single-underscore",
        variable: "APP_CACHE__REDIS_PORT",
        suggestion: "APP_CACHE__REDIS__PORT",
      },
    );
    // Written before the application's own steps ran.
    assert.ok(
      entries.indexOf(warning) <
        entries.findIndex((entry) => entry.marker === "services"),
      JSON.stringify(entries),
    );
    // The console logger of a host without a logging step.
    assert.match(
      out,
      /\[kit\] APP_CACHE__REDIS_PORT .*did you mean APP_CACHE__REDIS__PORT/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the host logs only near-miss findings, takes any configuration with diagnose(), and survives one that throws", async () => {
  const nearMiss = {
    code: "single-underscore",
    variable: "SVC_SERVER_PORT",
    suggestion: "SVC_SERVER__PORT",
    key: "server:port",
    message: "SVC_SERVER_PORT maps to nothing; did you mean SVC_SERVER__PORT?",
  };
  const configurations: [string, unknown, number][] = [
    ["findings", {
      diagnose: () => [nearMiss, {
        code: "missing-optional-file",
        message: "appsettings.test.json does not exist",
      }],
    }, 1],
    ["no diagnose()", { port: 1 }, 0],
    ["a diagnose() that throws", {
      diagnose: () => {
        throw new Error("boom");
      },
    }, 0],
    ["a diagnose() that returns no array", { diagnose: () => "nothing" }, 0],
  ];
  for (const [name, configuration, expected] of configurations) {
    const logger = recordingLogger();
    const app = await Application.start({
      configuration: () => configuration,
      logging: () => logger,
    });
    await app.stop();
    const warnings = logger.lines.filter((line) => line.level === "warning");
    assert.equal(
      warnings.length,
      expected,
      `${name}: ${JSON.stringify(logger.lines)}`,
    );
    if (expected === 1) {
      assert.equal(warnings[0].message, nearMiss.message);
      assert.deepEqual(warnings[0].properties, {
        code: "single-underscore",
        variable: "SVC_SERVER_PORT",
        suggestion: "SVC_SERVER__PORT",
        key: "server:port",
      });
    }
  }
});
