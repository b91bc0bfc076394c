// An optional application section with required keys, written as valibot
// has it: `v.optional(v.object({ … }))`, no default. Absent, the
// application gets `undefined` and nothing in it is checked; once any
// source sets a key of it (or writes the section), its required keys are
// required and each missing one is named with the variable that sets it.
// `deno check` of this file is the type half: the `{}` default, which
// the required keys refuse, must not compile.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  appConfigSchema,
  type ConfigurationManager,
  ConfigurationValidationError,
  createConfiguration,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function assertType<T extends true>(_proof?: T): void {}

const schema = v.object({
  ...appConfigSchema.entries,
  upstream: v.optional(
    v.object({
      baseUrl: v.pipe(v.string(), v.url()),
      apiKey: v.string(),
      timeout: v.optional(v.number(), 2000),
      auth: v.object({
        token: v.string(),
        scheme: v.optional(v.string(), "Bearer"),
      }),
    }),
  ),
});

type App = v.InferOutput<typeof schema>;

const KIT = {
  database: { connectionString: "postgres://db/app" },
  api: { baseUrl: "https://api.example.com" },
  logging: { providers: [{ type: "console" }] },
};

// Only type-checked: never called.
function typedUse(config: ConfigurationManager<App>) {
  const app = config.bind(schema);
  // @ts-expect-error the section may be absent: check it first
  const unchecked: string = app.upstream.baseUrl;
  const checked: string | undefined = app.upstream?.baseUrl;
  // A key of it read by path has its type; absent, getValue throws.
  const url: string = config.getValue("upstream:baseUrl");
  const timeout: number = config.getValue("upstream:timeout", 1000);
  // A `{}` default is what the section's required keys refuse (TS2345):
  // the section would be "present" with no baseUrl.
  const refused = v.optional(
    v.object({ baseUrl: v.string() }),
    // @ts-expect-error {} lacks the required baseUrl
    {},
  );
  // With only optional keys, `{}` compiles: absent, the defaults apply.
  const defaulted = v.optional(
    v.object({ text: v.optional(v.string(), "Hello") }),
    {},
  );
  assertType<Same<v.InferOutput<typeof defaulted>, { text: string }>>();
  return [unchecked, checked, url, timeout, refused];
}

test("an optional section with required keys: typed as possibly undefined, the {} default refused at compile time", () => {
  assertType<
    Same<
      App["upstream"],
      | {
        baseUrl: string;
        apiKey: string;
        timeout: number;
        auth: { token: string; scheme: string };
      }
      | undefined
    >
  >();
  assert.equal(typeof typedUse, "function");
});

test("an optional section no source sets is undefined, and nothing in it is checked", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", KIT);
    const config = await createConfiguration({
      basePath: dir.path,
      envPrefix: p,
      environment: "test",
      schema,
    });
    try {
      assert.equal(config.bind(schema).upstream, undefined);
      assert.equal(config.hasValue("upstream"), false);
      assert.equal(config.hasValue("upstream:timeout"), false);
      assert.equal(config.getValue("upstream:timeout", 1000), 1000);
      assert.ok(
        config.explain().every(({ key }) => !key.startsWith("upstream")),
      );
    } finally {
      await config.close();
    }
  });
});

test("an optional section one key of which is set requires its required keys, each named with its variable", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", KIT);
    await withEnv({ [`${p}_UPSTREAM__TIMEOUT`]: "2500" }, async () => {
      const error = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema,
      }).then(() => undefined, (error: unknown) => error);
      assert.ok(error instanceof ConfigurationValidationError);
      assert.deepEqual(error.failures, [
        `upstream:baseUrl: is required (not set by any source; set ${p}_UPSTREAM__BASE_URL, or "upstream": { "baseUrl": … } in appsettings.json)`,
        `upstream:apiKey: is required (not set by any source; set ${p}_UPSTREAM__API_KEY, or "upstream": { "apiKey": … } in appsettings.json)`,
        `upstream:auth:token: is required (not set by any source; set ${p}_UPSTREAM__AUTH__TOKEN, or "upstream": { "auth": { "token": … } } in appsettings.json)`,
      ]);
    });
  });
});

test("an optional section written empty in a file counts as present", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", { ...KIT, upstream: {} });
    const error = await createConfiguration({
      basePath: dir.path,
      envPrefix: p,
      environment: "test",
      schema,
    }).then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof ConfigurationValidationError);
    assert.deepEqual(error.failures, [
      `upstream:baseUrl: is required (not set by any source; set ${p}_UPSTREAM__BASE_URL, or "upstream": { "baseUrl": … } in appsettings.json)`,
      `upstream:apiKey: is required (not set by any source; set ${p}_UPSTREAM__API_KEY, or "upstream": { "apiKey": … } in appsettings.json)`,
      `upstream:auth:token: is required (not set by any source; set ${p}_UPSTREAM__AUTH__TOKEN, or "upstream": { "auth": { "token": … } } in appsettings.json)`,
    ]);
  });
});

test("an optional section set whole is checked, coerced and defaulted like any other", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", KIT);
    await withEnv({
      [`${p}_UPSTREAM__BASE_URL`]: "https://up.example",
      [`${p}_UPSTREAM__API_KEY`]: "k3y",
      [`${p}_UPSTREAM__AUTH__TOKEN`]: "t0ken",
    }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema,
      });
      try {
        assert.deepEqual(config.bind(schema).upstream, {
          baseUrl: "https://up.example",
          apiKey: "k3y",
          timeout: 2000,
          auth: { token: "t0ken", scheme: "Bearer" },
        });
        assert.equal(config.getSource("upstream:timeout"), "schema default");
      } finally {
        await config.close();
      }
    });
    await withEnv({
      [`${p}_UPSTREAM__BASE_URL`]: "up.example",
      [`${p}_UPSTREAM__API_KEY`]: "k3y",
      [`${p}_UPSTREAM__AUTH__TOKEN`]: "t0ken",
    }, async () => {
      const error = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema,
      }).then(() => undefined, (error: unknown) => error);
      assert.ok(error instanceof ConfigurationValidationError);
      assert.deepEqual(error.failures, [
        `upstream:baseUrl: must be a URL, got "up.example" (from env ${p}_UPSTREAM__BASE_URL)`,
      ]);
    });
  });
});
