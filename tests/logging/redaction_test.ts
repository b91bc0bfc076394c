import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { inspect } from "node:util";
import {
  ConsoleLogProvider,
  DEFAULT_REDACTED_KEYS,
  FileLogProvider,
  type ILogProvider,
  LoggerManager,
  LoggingConfigurationError,
  LogLevel,
  LogProviderOptionError,
  REDACTED_VALUE,
  redactProperties,
  RemoteLogProvider,
} from "../../logging/mod.ts";
import { secretKeyWords, secretValueKeyWords } from "../../core/mod.ts";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import { captureConsole, memoryConfig, tempDir } from "./_helpers.ts";

// Every secret value is unique, so finding any of them in the output means a leak.
const SECRETS = {
  password: "S1-pass",
  secret: "S2-secret",
  apiKey: "S3-apikey",
  token: "S4-token",
  authorization: "Bearer S5-auth",
  connectionString: "postgres://u:S6-conn@db/app",
  PASSWORD: "S7-upper",
  dbPassword: "S8-contained",
  "X-Api-Key": "S9-header",
  DB_CONNECTION_STRING: "S10-env",
  nested: { accessToken: "S11-nested", list: [{ client_secret: "S12-array" }] },
  pin: "S13-extra",
  sessionCookie: "S14-regexp",
};
const VISIBLE = { user: "ann", orderId: 42 };
const LEAKS = [
  "S1-pass",
  "S2-secret",
  "S3-apikey",
  "S4-token",
  "S5-auth",
  "S6-conn",
  "S7-upper",
  "S8-contained",
  "S9-header",
  "S10-env",
  "S11-nested",
  "S12-array",
  "S13-extra",
  "S14-regexp",
];
const EXTRA = ["pin", /cookie/i];

function log(providers: ILogProvider[]): LoggerManager {
  const manager = new LoggerManager().configure({ level: "debug", providers });
  manager.getLogger("auth")
    .with({ authorization: "Bearer S5-auth" })
    .warning("Login", { ...VISIBLE, ...SECRETS });
  return manager;
}

function assertRedacted(output: string): void {
  for (const leak of LEAKS) {
    assert.ok(!output.includes(leak), `${leak} leaked: ${output}`);
  }
  assert.ok(output.includes('"user":"ann"'));
  assert.ok(output.includes('"orderId":42'));
  assert.ok(output.includes('"password":"***"'));
  assert.ok(output.includes('"accessToken":"***"'));
  assert.ok(output.includes('"client_secret":"***"'));
}

test("ConsoleLogProvider writes secret properties as *** (simple and json)", async () => {
  const output = captureConsole();
  const manager = log([
    new ConsoleLogProvider({
      console: output,
      format: "simple",
      redactKeys: EXTRA,
    }),
    new ConsoleLogProvider({
      console: output,
      format: "json",
      redactKeys: EXTRA,
    }),
  ]);
  await manager.dispose();
  assert.equal(output.calls.length, 2);
  for (const call of output.calls) assertRedacted(call.text);
});

test("FileLogProvider writes secret properties as *** (json and simple)", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const json = join(dir, "app.log");
    const simple = join(dir, "app.txt");
    const manager = log([
      new FileLogProvider({ filename: json, redactKeys: EXTRA }),
      new FileLogProvider({
        filename: simple,
        format: "simple",
        redactKeys: EXTRA,
      }),
    ]);
    await manager.dispose();
    assertRedacted(await readFile(json, "utf8"));
    assertRedacted(await readFile(simple, "utf8"));
  } finally {
    await cleanup();
  }
});

test("RemoteLogProvider sends secret properties as ***", async () => {
  const server = await startCollector();
  try {
    const manager = log([
      new RemoteLogProvider({
        endpoint: `${server.url}/logs`,
        apiKey: "header-key",
        redactKeys: EXTRA,
      }),
    ]);
    await manager.dispose();
    assert.equal(server.requests.length, 1);
    assertRedacted(server.requests[0].body);
  } finally {
    await server.close();
  }
});

test("Built-in providers mask the default keys even without redactKeys", async () => {
  const output = captureConsole();
  const manager = new LoggerManager().configure({
    providers: [new ConsoleLogProvider({ console: output, format: "json" })],
  });
  manager.getLogger("x").info("m", { pin: "1234", token: "t-1" });
  await manager.dispose();
  const { properties } = JSON.parse(output.calls[0].text);
  assert.deepEqual(
    properties,
    { pin: "1234", token: "***" },
    "pin is only masked when added",
  );
});

test("redactProperties() masks matching keys case-insensitively, deeply, without changing the input", () => {
  const input = {
    Password: "p",
    profile: { apiKey: "k", name: "n" },
    tags: ["a"],
    ok: 1,
  };
  const output = redactProperties(input);
  assert.deepEqual(output, {
    Password: "***",
    profile: { apiKey: "***", name: "n" },
    tags: ["a"],
    ok: 1,
  });
  assert.equal(input.Password, "p");
  assert.equal(input.profile.apiKey, "k");
  assert.equal(
    output.tags,
    input.tags,
    "untouched parts are shared, not copied",
  );
});

test("redactProperties() returns the same object when nothing is secret", () => {
  const input = { user: "ann", nested: { count: 2 } };
  assert.equal(redactProperties(input), input);
});

test("redactProperties() takes extra keys and regular expressions", () => {
  assert.deepEqual(
    redactProperties({ pin: 1, ssn: 2, other: 3 }, { keys: ["PIN", /^ssn$/] }),
    { pin: REDACTED_VALUE, ssn: REDACTED_VALUE, other: 3 },
  );
});

test("redactProperties() turns errors and bigints into JSON-safe values", () => {
  const output = redactProperties({ failure: new Error("x"), big: 10n });
  assert.equal((output.failure as { message: string }).message, "x");
  assert.equal(output.big, "10");
});

test("DEFAULT_REDACTED_KEYS is the kit's secret rule: the configuration's secret keys and the common names core adds", () => {
  // The kit has one secret rule (core/secrets.ts, shared with configuration);
  // logging's defaults are its words.
  assert.deepEqual([...DEFAULT_REDACTED_KEYS], [
    ...secretKeyWords,
    ...secretValueKeyWords,
  ]);
  for (
    const key of [
      "password",
      "secret",
      "apiKey",
      "token",
      "authorization",
      "connectionString",
    ]
  ) {
    assert.ok(DEFAULT_REDACTED_KEYS.includes(key), key);
  }
});

test("RemoteLogProvider's delivery errors never carry the API key, even fully inspected", async () => {
  const apiKey = "S15-delivery-key";
  let status = 401;
  const server = await startTestServer((_request, response) =>
    sendJson(response, status, { message: "no" })
  );
  try {
    const errors: Error[] = [];
    const remote = new RemoteLogProvider({
      endpoint: `${server.url}/ingest`,
      apiKey,
      maxRetries: 1,
      retryDelay: 1,
      timeout: 5000,
      onError: (error) => errors.push(error),
    });
    const entry = {
      timestamp: new Date(),
      level: LogLevel.Info,
      category: "c",
      message: "m",
      properties: {},
    };
    // A 401 (not retried), then a 500 until retries run out.
    await remote.log(entry);
    await remote.flush();
    status = 500;
    await remote.log(entry);
    await remote.flush();
    await remote.dispose();
    assert.equal(server.requests.length, 3);
    assert.equal(server.requests[0].headers["x-api-key"], apiKey);
    // The 401, the 500 after its retry, and the dispose() notice that the
    // two lost entries could not be announced to the endpoint.
    assert.equal(errors.length, 3);
    assert.equal((errors[0] as { status?: number }).status, 401);
    assert.equal((errors[1] as { status?: number }).status, 500);
    assert.match(errors[2].message, /2 dropped entries could not be announced/);
    for (const error of errors) {
      // What the default onError (console.error) prints in Node, Deno, Bun.
      const shown = inspect(error, { depth: Infinity, showHidden: true });
      assert.ok(!shown.includes(apiKey), `the error shows the key: ${shown}`);
    }
    for (const error of errors.slice(0, 2)) {
      assert.ok(error.cause instanceof Error, "the cause is kept");
      assert.match((error.cause as Error).message, /status code (401|500)/);
    }
  } finally {
    await server.close();
  }
});

test("Option errors of providers and fromConfiguration() never echo a secret value", () => {
  const secret = "S16-option-secret";
  const shown = (error: unknown): string =>
    `${String(error)} ${inspect(error, { depth: Infinity })}`;
  // A secret option with a bad value.
  assert.throws(
    () =>
      new RemoteLogProvider({
        endpoint: "https://logs.example.com",
        apiKey: ["S16", secret] as unknown as string,
      }),
    (error: unknown) => {
      assert.ok(error instanceof LogProviderOptionError);
      assert.equal(
        error.message,
        "RemoteLogProvider: option 'apiKey' must be a non-empty string (got ***)",
      );
      assert.ok(!shown(error).includes("S16"), shown(error));
      return true;
    },
  );
  // The same through configuration.
  assert.throws(
    () =>
      new LoggerManager().fromConfiguration(
        memoryConfig({
          "logging:providers": [{
            type: "remote",
            options: { endpoint: "https://logs.example.com", apiKey: 12345 },
          }],
        }),
      ),
    (error: unknown) => {
      assert.ok(error instanceof LoggingConfigurationError);
      assert.equal(error.option, "apiKey");
      assert.match(
        error.message,
        /providers\[0\]\.options\.apiKey must be a non-empty string \(got \*\*\*\)$/,
      );
      assert.ok(!shown(error).includes("12345"), shown(error));
      return true;
    },
  );
  // A provider entry written as an object instead of a list.
  assert.throws(
    () =>
      new LoggerManager().fromConfiguration(
        memoryConfig({
          "logging:providers": {
            type: "remote",
            options: { apiKey: secret, password: secret },
          },
        }),
      ),
    (error: unknown) => {
      assert.ok(error instanceof LoggingConfigurationError);
      assert.match(error.message, /must be a list of \{ type, options \}/);
      assert.match(error.message, /"apiKey":"\*\*\*"/);
      assert.ok(!shown(error).includes("S16"), shown(error));
      return true;
    },
  );
});

test("redactProperties() masks secrets at any depth and writes a cycle as [Circular]", () => {
  // Twelve levels of nesting with a secret at the bottom.
  let deep: Record<string, unknown> = { password: "S17-deep", kept: 1 };
  for (let i = 0; i < 12; i++) deep = { level: deep };
  const output = redactProperties({ deep });
  assert.ok(!JSON.stringify(output).includes("S17-deep"));
  let node = output.deep as Record<string, unknown>;
  for (let i = 0; i < 12; i++) node = node.level as Record<string, unknown>;
  assert.deepEqual(node, { password: "***", kept: 1 });

  // A cycle below the usual depth, with a secret beside it.
  const ring: Record<string, unknown> = { token: "S18-ring" };
  ring.self = ring;
  const cyclic = redactProperties({ ring });
  const text = JSON.stringify(cyclic);
  assert.ok(!text.includes("S18-ring"), text);
  assert.ok(text.includes('"[Circular]"'), text);
  assert.equal((ring.self as Record<string, unknown>).token, "S18-ring");

  // The same value twice (not a cycle) is written twice.
  const shared = { name: "n" };
  let twice: Record<string, unknown> = { a: shared, b: shared };
  for (let i = 0; i < 10; i++) twice = { level: twice };
  assert.ok(!JSON.stringify(redactProperties({ twice })).includes("Circular"));
});
