import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import * as v from "valibot";
import {
  appConfigSchema,
  type ConfigurationChange,
  ConfigurationManager,
  ConfigurationValidationError,
  defaultSecretKeys,
  MemoryProvider,
  validateConfiguration,
} from "../../config/mod.ts";
import { SECRET_TABLE } from "../core/_secret_table.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

const SECRETS = {
  password: "pw-Secret-0001",
  apiKey: "api-Secret-0002",
  jwt: "jwt-Secret-0003",
  token: "tok-Secret-0004",
  connection: "postgres://user:conn-Secret-0005@db/app",
  listed: "list-Secret-0006",
  pin: "pin-Secret-0007",
  salt: "salt-Secret-0008",
};

function assertNoSecret(text: string, where: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) {
    assert.ok(!text.includes(secret), `${where} shows the ${name} secret`);
  }
  assert.ok(!text.includes("Secret-00"), `${where} shows part of a secret`);
}

test("No secret value appears in explain(), toString(), toJSON(), change events or any error message", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", {
      database: { connectionString: SECRETS.connection },
      cache: { redis: { host: "localhost", password: SECRETS.password } },
      logging: {
        providers: [{ type: "remote", options: { apiKey: SECRETS.apiKey } }],
      },
      auth: { apiKeys: [SECRETS.listed] },
    });
    await withEnv({ [`${p}_AUTH__JWT_SECRET`]: SECRETS.jwt }, async () => {
      const events: (readonly ConfigurationChange[])[] = [];
      const config = new ConfigurationManager({
        secretKeys: ["pin", /^salt$/i],
      });
      config.changed.add((changes) => {
        events.push(changes);
      });
      await config.addJsonFile(file);
      config.addEnvironmentVariables(p);
      const memory = new Map([
        ["auth:refreshToken", SECRETS.token],
        ["device:pin", SECRETS.pin],
        ["crypto:salt", SECRETS.salt],
      ]);
      config.addProvider(new MemoryProvider(memory));
      await config.loadConfiguration();

      // Reading still returns the real values.
      assert.equal(config.getValue("cache:redis:password"), SECRETS.password);
      assert.equal(config.getValue("auth:jwtSecret"), SECRETS.jwt);

      const shown = [
        JSON.stringify(config.explain()),
        config.toString(),
        JSON.stringify(config.toJSON()),
        JSON.stringify(config),
        String(config),
        `${config}`,
      ];
      for (const [i, text] of shown.entries()) {
        assertNoSecret(text, `view ${i}`);
      }
      assert.ok(config.toString().includes("cache:redis:password = ***"));
      assert.ok(config.toString().includes('cache:redis:host = "localhost"'));
      assert.deepEqual(config.toJSON().auth, {
        apiKeys: "***",
        jwtSecret: "***",
        refreshToken: "***",
      });

      // Validation failures about secret keys do not echo the value.
      const errors: string[] = [];
      const collect = (fn: () => unknown) => {
        try {
          fn();
        } catch (error) {
          errors.push(String(error), (error as Error).message);
        }
      };
      collect(() =>
        config.bind(
          v.object({ password: v.number(), host: v.string() }),
          "cache:redis",
        )
      );
      collect(() =>
        config.bind(
          v.object({ jwtSecret: v.pipe(v.string(), v.email()) }),
          "auth",
        )
      );
      collect(() =>
        config.bind(
          v.object({ connectionString: v.pipe(v.string(), v.url()) }),
          "database",
        )
      );
      collect(() =>
        config.bind(v.object({ pin: v.picklist(["1234"]) }), "device")
      );
      collect(() => config.bind(appConfigSchema));
      collect(() => config.getValue("no:such:key"));
      assert.ok(errors.length >= 10);
      for (const [i, text] of errors.entries()) {
        assertNoSecret(text, `error ${i}`);
      }
      assert.ok(
        errors.some((text) =>
          text.includes("cache:redis:password: must be a number, got ***")
        ),
      );

      // Change events mask old and new secret values.
      memory.set("auth:refreshToken", "tok-Secret-0009");
      memory.set("device:pin", "changed pin Secret-00");
      const changes = await config.reload();
      assert.deepEqual(
        changes.map((change) => [change.key, change.oldValue, change.newValue]),
        [
          ["auth:refreshToken", "***", "***"],
          ["device:pin", "***", "***"],
        ],
      );
      assertNoSecret(JSON.stringify(events), "change events");

      // A JSON syntax error next to a secret does not quote the file.
      await writeFile(
        file,
        `{ "cache": { "redis": { "password": "${SECRETS.password}" oops } } }`,
      );
      await assert.rejects(config.reload(), (error: unknown) => {
        assertNoSecret(String(error), "syntax error");
        assertNoSecret(String((error as Error).stack), "syntax error stack");
        return true;
      });
      assertNoSecret(
        JSON.stringify(events.at(-1)?.map((c) => String(c.error))),
        "failure event",
      );
      await config.close();
    });
  });
});

test("defaultSecretKeys lists the common secret words and matching ignores case, separators and plurals", async () => {
  for (
    const word of ["password", "secret", "apiKey", "token", "connectionString"]
  ) {
    assert.ok(defaultSecretKeys.includes(word), word);
  }
  const config = new ConfigurationManager();
  config.addProvider(
    new MemoryProvider({
      "a:PASSWORD": "1",
      "a:db_password": "2",
      "a:client-secret": "3",
      "a:API_KEY": "4",
      "a:tokens:0": "5",
      "a:tokenExpiry": "3600",
      "a:host": "h",
    }),
  );
  await config.loadConfiguration();
  assert.deepEqual(config.toJSON(), {
    a: {
      PASSWORD: "***",
      db_password: "***",
      "client-secret": "***",
      API_KEY: "***",
      tokens: "***",
      tokenExpiry: "3600",
      host: "h",
    },
  });
});

test("The 30-row table: explain(), toString(), toJSON() and change events mask the 23 secrets and show the 7 plain values", async () => {
  const values = new Map<string, string | number | boolean>(
    SECRET_TABLE.map((row) => [row.key, row.value]),
  );
  const config = new ConfigurationManager();
  config.addProvider({
    name: "table",
    load: () => [...values].map(([key, value]) => ({ key, value })),
  });
  await config.loadConfiguration();
  const explained = new Map(
    config.explain().map((item) => [item.key, item.value]),
  );
  let masked = 0;
  for (const row of SECRET_TABLE) {
    assert.deepEqual(explained.get(row.key), row.shown, row.key);
    if (explained.get(row.key) !== row.value) masked++;
    // Reading still returns the real value.
    assert.equal(config.getValue(row.key), row.value);
  }
  assert.equal(masked, 23);
  for (const text of [config.toString(), JSON.stringify(config)]) {
    assert.ok(!text.includes("LEAK"), text);
  }
  const json = config.toJSON() as Record<string, Record<string, unknown>>;
  assert.equal(json.database.url, "postgres://app:***@db:5432/app");
  assert.deepEqual(json.session, { timeout: 3600 });
  assert.deepEqual(json.cookie, { maxAge: 86400 });
  assert.ok(
    config.toString().includes(
      'cache:redis:url = "redis://:***@cache:6379/0" (table)',
    ),
  );

  const events: (readonly ConfigurationChange[])[] = [];
  config.changed.add((changes) => {
    events.push(changes);
  });
  values.set("database:url", "postgres://app:LEAK99@db2/app");
  values.set("smtp:pass", "LEAK98");
  await config.reload();
  assert.deepEqual(
    events[0].map((change) => [change.key, change.oldValue, change.newValue]),
    [
      [
        "database:url",
        "postgres://app:***@db:5432/app",
        "postgres://app:***@db2/app",
      ],
      ["smtp:pass", "***", "***"],
    ],
  );
});

test("Validation errors mask a URL's password and known secret values whatever the key", async () => {
  const config = new ConfigurationManager();
  config.addProvider(
    new MemoryProvider({
      "database:password": "LEAK-known-value",
      "api:baseUrl": "http://user:PASSWORD-LEAK@api.example.com:99999/v1",
      "api:note": "copied LEAK-known-value here",
      "logging:level": "http://user:PASSWORD-LEAK@x",
      "api:timeout": "http://user:PASSWORD-LEAK@x",
    }),
  );
  await config.loadConfiguration();
  const messages: string[] = [];
  for (
    const run of [
      () =>
        config.bind(
          v.object({ baseUrl: v.pipe(v.string(), v.url()) }),
          "api",
        ),
      () =>
        config.bind(
          v.object({ baseUrl: v.pipe(v.string(), v.maxLength(5)) }),
          "api",
        ),
      () => config.bind(v.object({ note: v.picklist(["a", "b"]) }), "api"),
      () =>
        config.bind(
          v.object({ note: v.pipe(v.string(), v.regex(/^x/)) }),
          "api",
        ),
      () => validateConfiguration(config),
    ]
  ) {
    assert.throws(run, (error: unknown) => {
      assert.ok(error instanceof ConfigurationValidationError);
      messages.push(error.message);
      return true;
    });
  }
  for (const message of messages) {
    assert.ok(!message.includes("LEAK"), message);
  }
  assert.ok(
    messages[0].includes("http://user:***@api.example.com:99999/v1"),
    messages[0],
  );
  assert.ok(messages[4].includes("Invalid log level: http://user:***@x"));
});
