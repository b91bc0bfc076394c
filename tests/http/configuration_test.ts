// HttpClient.fromConfiguration with real configuration objects
// (ConfigurationManager + MemoryProvider, the API_* standard variables) and a
// loopback server. The rule: an option passed in code wins over the
// configuration.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { SettingError } from "../../core/mod.ts";
import { HttpClient, HttpConfigurationError } from "../../http/mod.ts";
import { sendJson, startTestServer } from "../_support/http_server.ts";
import { withVariables } from "../_support/variables.ts";

async function configOf(
  values: Record<string, string>,
): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider(values));
  await config.loadConfiguration();
  return config;
}

test("HttpClient.fromConfiguration reads api:baseUrl, api:timeout, api:retryAttempts and calls the API", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { path: request.url })
  );
  const config = await configOf({
    "api:baseUrl": `${server.url}/v1`,
    "api:timeout": "5000",
    "api:retryAttempts": "2",
  });
  const client = HttpClient.fromConfiguration(config);
  assert.equal(client.baseUrl, `${server.url}/v1`);
  assert.equal(client.options.timeout, 5_000);
  assert.equal(client.options.retryAttempts, 2);
  assert.equal(client.options.totalTimeout, 30_000);
  assert.deepEqual(await client.get("/users"), { path: "/v1/users" });
});

test("HttpClient.fromConfiguration: options in code win, configuration fills the rest", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { path: request.url })
  );
  const config = await configOf({
    "api:baseUrl": "http://127.0.0.1:1/unused",
    "api:timeout": "5000",
    "api:retryAttempts": "not checked: the code sets it",
  });
  const client = HttpClient.fromConfiguration(config, {
    baseUrl: server.url,
    retryAttempts: 0,
    maxResponseSize: 1_000,
  });
  assert.equal(client.baseUrl, server.url);
  assert.equal(client.options.retryAttempts, 0);
  assert.equal(client.options.timeout, 5_000);
  assert.equal(client.options.maxResponseSize, 1_000);
  assert.deepEqual(await client.get("/x"), { path: "/x" });
  // Nothing configured: the client's own defaults.
  const bare = HttpClient.fromConfiguration(await configOf({}), {
    baseUrl: server.url,
  });
  assert.equal(bare.options.timeout, 10_000);
  assert.equal(bare.options.retryAttempts, 3);
});

test("HttpClient.fromConfiguration reads the API_* variables through addStandardVariables", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { path: request.url })
  );
  await withVariables({
    API_BASE_URL: `${server.url}/api`,
    API_TIMEOUT: "2500",
    API_RETRY_ATTEMPTS: "1",
  }, async () => {
    const config = new ConfigurationManager();
    config.addStandardVariables();
    await config.loadConfiguration();
    const client = HttpClient.fromConfiguration(config);
    assert.equal(client.baseUrl, `${server.url}/api`);
    assert.equal(client.options.timeout, 2_500);
    assert.equal(client.options.retryAttempts, 1);
    assert.deepEqual(await client.get("ping"), { path: "/api/ping" });
  });
});

test("HttpClient.fromConfiguration: a bad value from a variable is a SettingError naming the variable as its source", async () => {
  await withVariables({
    API_BASE_URL: "https://api.example.com",
    API_TIMEOUT: "5s",
  }, async () => {
    const config = new ConfigurationManager();
    config.addStandardVariables();
    await config.loadConfiguration();
    const error = (() => {
      try {
        HttpClient.fromConfiguration(config);
      } catch (error) {
        return error;
      }
      assert.fail("expected an HttpConfigurationError");
    })();
    assert.ok(error instanceof HttpConfigurationError);
    assert.ok(error instanceof SettingError);
    assert.equal(error.key, "api:timeout");
    assert.equal(error.source, "API_TIMEOUT");
    assert.equal(
      error.message,
      'api:timeout must be a whole number of milliseconds from 1000 to 60000: "5s"',
    );
  });
});

test("HttpClient.fromConfiguration: a missing setting has no source", async () => {
  const config = await configOf({ "api:timeout": "5000" });
  assert.throws(
    () => HttpClient.fromConfiguration(config),
    (error: unknown) =>
      error instanceof SettingError && error.key === "api:baseUrl" &&
      error.source === undefined,
  );
});

test("HttpClient.fromConfiguration: a missing base address names the key and the variable", async () => {
  const config = await configOf({ "api:timeout": "5000" });
  assert.throws(() => HttpClient.fromConfiguration(config), {
    name: "HttpConfigurationError",
    message: "api:baseUrl is not set: set it in the configuration (or the " +
      "API_BASE_URL environment variable, read by addStandardVariables()), " +
      "or pass options.baseUrl to HttpClient.fromConfiguration",
  });
});

test("HttpClient.fromConfiguration: out-of-range values name the key and the value", async () => {
  const base = { "api:baseUrl": "https://api.example.com" };
  const cases: [Record<string, string>, string, string][] = [
    [
      { "api:timeout": "999" },
      "api:timeout",
      'api:timeout must be a whole number of milliseconds from 1000 to 60000: "999"',
    ],
    [
      { "api:timeout": "60001" },
      "api:timeout",
      'api:timeout must be a whole number of milliseconds from 1000 to 60000: "60001"',
    ],
    [
      { "api:timeout": "5s" },
      "api:timeout",
      'api:timeout must be a whole number of milliseconds from 1000 to 60000: "5s"',
    ],
    [
      { "api:retryAttempts": "11" },
      "api:retryAttempts",
      'api:retryAttempts must be a whole number from 0 to 10: "11"',
    ],
    [
      { "api:retryAttempts": "-1" },
      "api:retryAttempts",
      'api:retryAttempts must be a whole number from 0 to 10: "-1"',
    ],
    // A value with a password is masked, a long one cut.
    [
      { "api:timeout": "redis://app:hunter2@cache:6379/0" },
      "api:timeout",
      'api:timeout must be a whole number of milliseconds from 1000 to 60000: "redis://app:***@cache:6379/0"',
    ],
    [
      { "api:enableCaching": "postgres://app:hunter2@db/app" },
      "api:enableCaching",
      'api:enableCaching must be true or false (or 1 or 0): "postgres://app:***@db/app"',
    ],
    [
      { "api:retryAttempts": "9".repeat(1000) },
      "api:retryAttempts",
      `api:retryAttempts must be a whole number from 0 to 10: "${
        "9".repeat(57)
      }..."`,
    ],
  ];
  for (const [values, key, message] of cases) {
    const config = await configOf({ ...base, ...values });
    assert.throws(
      () => HttpClient.fromConfiguration(config),
      (error: unknown) => {
        assert.ok(error instanceof HttpConfigurationError);
        assert.equal(error.key, key);
        assert.equal(error.message, message);
        return true;
      },
    );
  }
  // Bounds 1000 and 60000, 0 and 10 are accepted.
  const edge = HttpClient.fromConfiguration(
    await configOf({
      ...base,
      "api:timeout": "60000",
      "api:retryAttempts": "0",
    }),
  );
  assert.equal(edge.options.timeout, 60_000);
  assert.equal(edge.options.totalTimeout, 60_000);
  assert.equal(edge.options.retryAttempts, 0);
});

test("HttpClient.fromConfiguration: an invalid base address is reported without its secrets", async () => {
  const config = await configOf({
    "api:baseUrl": "ftp://user:hunter2@files.example.com/x?key=abc",
  });
  assert.throws(
    () => HttpClient.fromConfiguration(config),
    (error: unknown) => {
      assert.ok(error instanceof HttpConfigurationError);
      assert.equal(error.key, "api:baseUrl");
      assert.equal(
        error.message,
        'api:baseUrl must be an absolute http(s) URL or a path starting with "/", ' +
          'without query or fragment: "ftp://files.example.com/x?…" ' +
          "(the scheme must be http or https, not ftp:)",
      );
      return true;
    },
  );
});

test("HttpClient.fromConfiguration: a base address without a scheme is suggested without its query", async () => {
  const config = await configOf({
    "api:baseUrl": "localhost:4010/v1?apiKey=s3cret",
  });
  assert.throws(
    () => HttpClient.fromConfiguration(config),
    (error: unknown) => {
      assert.ok(error instanceof HttpConfigurationError);
      assert.ok(!error.message.includes("s3cret"), error.message);
      assert.ok(
        error.message.endsWith(
          '(the scheme must be http or https, not localhost:; did you mean "http://localhost:4010/v1?…"?)',
        ),
        error.message,
      );
      return true;
    },
  );
});

test("HttpClient.fromConfiguration: the reason stays whole when the value holds a semicolon", async () => {
  const config = await configOf({ "api:baseUrl": "a; b" });
  assert.throws(
    () => HttpClient.fromConfiguration(config),
    (error: unknown) => {
      assert.ok(error instanceof HttpConfigurationError);
      assert.equal(
        error.message,
        'api:baseUrl must be an absolute http(s) URL or a path starting with "/", ' +
          'without query or fragment: "a; b" ' +
          '(expected an absolute http(s) URL or a path starting with "/")',
      );
      return true;
    },
  );
});
