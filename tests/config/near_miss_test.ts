// Near-miss variable names (one underscore short of a level) and what a
// missing required key says about where to set it. Each case runs in a child
// process with real environment variables and a real appsettings.json.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const VALID = {
  database: { connectionString: "postgres://db/app" },
  api: { baseUrl: "https://api.example.com" },
  logging: { level: "info", providers: [{ type: "console" }] },
};

// The standard variables and the environment choosers, unset in the child
// so that the parent's environment cannot change the outcome.
const UNSET = [
  "DB_CONNECTION_STRING",
  "API_BASE_URL",
  "LOG_LEVEL",
  "REDIS_PORT",
  "RUNTIME_ENV",
  "NODE_ENV",
  "APP_ENV",
  "KIT_CONFIG_PATH",
];

// Runs `body` (an async function body with `config`, `base` and `result`
// in scope) in a child whose environment has `env`; returns what it
// printed as JSON on its last line.
async function inChild(
  settings: unknown,
  env: Record<string, string>,
  body: string,
): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), "kit-near-miss-"));
  try {
    await writeFile(join(dir, "appsettings.json"), JSON.stringify(settings));
    const script = `
      import process from "node:process";
      import * as config from CONFIG_URL;
      for (const name of ${JSON.stringify(UNSET)}) delete process.env[name];
      const base = ${JSON.stringify(dir)};
      const outcome = await (async () => { ${body} })();
      console.log(JSON.stringify(outcome));
    `;
    const { code, out } = await runChildScript(script, { env });
    assert.equal(code, 0, out);
    return JSON.parse(out.trim().split("\n").at(-1)!);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("diagnose() reports near-misses of optional keys Kit reads, with the right name", async () => {
  const outcome = await inChild(
    VALID,
    {
      APP_CACHE__REDIS_PORT: "6380",
      APP_CACHE__REDIS_DATABASE: "2",
      APP_SERVER_PORT: "8080",
      APP_HOST_SHUTDOWN_TIMEOUT: "5000",
      APP_LOCALIZATION__DEFAULT_CULTURE: "fr-FR",
    },
    `
    const manager = await config.createConfiguration({ basePath: base });
    const found = manager.diagnose()
      .filter((finding) => finding.code === "single-underscore")
      .map(({ variable, suggestion, key }) => ({ variable, suggestion, key }))
      .sort((a, b) => a.variable.localeCompare(b.variable));
    await manager.close();
    return found;
  `,
  );
  assert.deepEqual(outcome, [
    {
      variable: "APP_CACHE__REDIS_DATABASE",
      suggestion: "APP_CACHE__REDIS__DATABASE",
      key: "cache:redis:database",
    },
    {
      variable: "APP_CACHE__REDIS_PORT",
      suggestion: "APP_CACHE__REDIS__PORT",
      key: "cache:redis:port",
    },
    {
      variable: "APP_HOST_SHUTDOWN_TIMEOUT",
      suggestion: "APP_HOST__SHUTDOWN_TIMEOUT",
      key: "host:shutdownTimeout",
    },
    {
      variable: "APP_SERVER_PORT",
      suggestion: "APP_SERVER__PORT",
      key: "server:port",
    },
  ]);
});

test("createConfiguration({ strict: true }) fails on a near-miss, a line naming the variable and the right name", async () => {
  const outcome = await inChild(
    VALID,
    { APP_CACHE__REDIS_PORT: "6380" },
    `
    const lenient = await config.createConfiguration({ basePath: base });
    const port = lenient.hasValue("cache:redis:port");
    await lenient.close();
    const error = await config.createConfiguration({ basePath: base, strict: true })
      .then(() => undefined, (e) => e);
    return { port, name: error?.name, message: error?.message, failures: error?.failures };
  `,
  );
  assert.deepEqual(outcome, {
    port: false,
    name: "ConfigurationValidationError",
    message: "Configuration validation failed:\n" +
      'APP_CACHE__REDIS_PORT maps to "cache:redisPort", which no source or schema knows; did you mean APP_CACHE__REDIS__PORT (cache:redis:port)? A double underscore marks each level',
    failures: [
      'APP_CACHE__REDIS_PORT maps to "cache:redisPort", which no source or schema knows; did you mean APP_CACHE__REDIS__PORT (cache:redis:port)? A double underscore marks each level',
    ],
  });
});

test("createConfiguration({ strict: true }): near-misses join the other failures in the one error", async () => {
  const outcome = await inChild(
    { ...VALID, api: {} },
    { SVC_SERVER_PORT: "8080" },
    `
    const error = await config.createConfiguration({
      basePath: base,
      envPrefix: "SVC",
      strict: true,
      schema: config.appConfigSchema,
    }).then(() => undefined, (e) => e);
    return { name: error?.name, failures: error?.failures };
  `,
  ) as { name: string; failures: string[] };
  assert.equal(outcome.name, "ConfigurationValidationError");
  assert.equal(outcome.failures.length, 2, outcome.failures.join("\n"));
  assert.match(outcome.failures[0], /^api:baseUrl: /);
  assert.match(
    outcome.failures[1],
    /^SVC_SERVER_PORT maps to "serverPort".*did you mean SVC_SERVER__PORT \(server:port\)\?/,
  );
});

test("a missing required key names the variables that would set it and the file", async () => {
  const outcome = await inChild(
    { api: VALID.api, logging: VALID.logging },
    {},
    `
    const failuresOf = (options) => config.createConfiguration({ basePath: base, ...options })
      .then(() => [], (e) => e.failures);
    return {
      app: await failuresOf({}),
      svc: await failuresOf({ envPrefix: "SVC_" }),
    };
  `,
  );
  assert.deepEqual(outcome, {
    app: [
      'Missing required configuration: database:connectionString (set DB_CONNECTION_STRING or APP_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json)',
    ],
    svc: [
      'Missing required configuration: database:connectionString (set DB_CONNECTION_STRING or SVC_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json)',
    ],
  });
});

test("with a schema, a missing required value names the variables and the file too, and so does a missing section, key by key", async () => {
  const outcome = await inChild(
    { database: {}, api: VALID.api, logging: VALID.logging },
    {},
    `
    const failuresOf = () => config.createConfiguration({
      basePath: base,
      schema: config.appConfigSchema,
    }).then(() => [], (e) => e.failures);
    return await failuresOf();
  `,
  );
  assert.deepEqual(outcome, [
    'database:connectionString: is required (not set by any source; set DB_CONNECTION_STRING or APP_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json)',
  ]);
  const section = await inChild(
    { api: VALID.api, logging: VALID.logging },
    {},
    `
    return await config.createConfiguration({ basePath: base, schema: config.appConfigSchema })
      .then(() => [], (e) => e.failures);
  `,
  );
  assert.deepEqual(section, [
    'database:connectionString: is required (not set by any source; set DB_CONNECTION_STRING or APP_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json)',
  ]);
});
