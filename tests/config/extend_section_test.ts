// extendSection(): an application adds keys to one of Kit's sections
// (optional `localization`, required `database`) without reaching into
// valibot's wrappers. The section stays optional or required as Kit made
// it, Kit's keys keep their rules, the added keys get the same coercion,
// defaults and messages. `deno check` of this file is the type half: the
// added keys are typed through getValue and bind, and a key that would
// change the type Kit's modules read, or a section it cannot rebuild, does
// not compile (each `@ts-expect-error` below must be needed).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  type AppConfig,
  appConfigSchema,
  type ConfigurationManager,
  ConfigurationValidationError,
  createConfiguration,
  extendSection,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function assertType<T extends true>(_proof?: T): void {}

const schema = v.object({
  ...appConfigSchema.entries,
  localization: extendSection(appConfigSchema.entries.localization, {
    cookieName: v.optional(v.string(), "culture"),
    bundle: v.string(),
    // Narrowed: still a string, as the localization module reads it.
    defaultCulture: v.optional(v.picklist(["en", "fr"])),
  }),
  database: extendSection(appConfigSchema.entries.database, {
    schemaName: v.optional(v.string(), "public"),
  }),
});

type App = v.InferOutput<typeof schema>;
type Localization = NonNullable<App["localization"]>;

const KIT = {
  database: { connectionString: "postgres://db/app" },
  api: { baseUrl: "https://api.example.com" },
  logging: { providers: [{ type: "console" }] },
};

// Only type-checked: never called.
function typedUse(config: ConfigurationManager<App>) {
  const cookie: string = config.getValue("localization:cookieName");
  const bundle: string = config.getValue("localization:bundle");
  const culture: "en" | "fr" = config.getValue("localization:defaultCulture");
  const timeout: number = config.getValue("localization:timeout");
  const maxSize: number = config.getValue("localization:cache:maxSize");
  const schemaName: string = config.getValue("database:schemaName");
  const connection: string = config.getValue("database:connectionString");
  // @ts-expect-error the section is still optional
  const unchecked: string = config.bind(schema).localization.bundle;
  // @ts-expect-error a key neither Kit nor the application declared
  config.getValue("localization:cookeName");

  extendSection(appConfigSchema.entries.localization, {
    // @ts-expect-error Kit's localization module reads a string here
    defaultCulture: v.number(),
  });
  extendSection(appConfigSchema.entries.database, {
    // @ts-expect-error the database module needs the connection string
    connectionString: v.optional(v.string()),
  });
  // @ts-expect-error a key is a valibot schema, not a value
  extendSection(appConfigSchema.entries.localization, { cookieName: "lang" });
  // @ts-expect-error not a section
  extendSection(v.string(), { name: v.string() });
  // @ts-expect-error a piped object's checks would be lost
  extendSection(v.pipe(v.object({}), v.check(() => true)), { a: v.string() });
  // @ts-expect-error nor would a fallback
  extendSection(v.fallback(v.object({}), {}), { a: v.string() });
  // @ts-expect-error an optional section with a default
  extendSection(v.optional(v.object({}), {}), { a: v.string() });
  // @ts-expect-error a strict object is written anew
  extendSection(v.strictObject({}), { a: v.string() });
  return [
    cookie,
    bundle,
    culture,
    timeout,
    maxSize,
    schemaName,
    connection,
    unchecked,
  ];
}

test("extendSection() types the section as Kit's keys plus the added ones, optional or required as Kit made it", () => {
  assertType<Same<Localization["cookieName"], string>>();
  assertType<Same<Localization["bundle"], string>>();
  assertType<Same<Localization["defaultCulture"], "en" | "fr" | undefined>>();
  assertType<
    Same<
      Omit<Localization, "cookieName" | "bundle" | "defaultCulture">,
      Omit<NonNullable<AppConfig["localization"]>, "defaultCulture">
    >
  >();
  assertType<Same<undefined extends App["localization"] ? true : false, true>>(
    true,
  );
  assertType<
    Same<App["database"], AppConfig["database"] & { schemaName: string }>
  >();
  assertType<Same<undefined extends App["database"] ? true : false, false>>(
    true,
  );
  assert.equal(typeof typedUse, "function");
});

test("extendSection() leaves Kit's section as it was", () => {
  const parsed = v.parse(appConfigSchema, {
    ...KIT,
    localization: { cookieName: "lang", defaultCulture: "de" },
  });
  // Kit's schema knows no cookieName (dropped) and allows any culture.
  assert.deepEqual(parsed.localization, { defaultCulture: "de" });
  assert.equal(
    v.parse(schema, {
      ...KIT,
      localization: { cookieName: "lang", bundle: "app" },
    }).localization?.cookieName,
    "lang",
  );
});

test("an extended optional section that no source sets is undefined, and nothing in it is checked", async () => {
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
      const app = config.bind(schema);
      assert.equal(app.localization, undefined);
      assert.equal(app.database.schemaName, "public");
      assert.equal(config.getSource("database:schemaName"), "schema default");
    } finally {
      await config.close();
    }
  });
});

test("an extended section keeps Kit's rules and checks the added keys, each failure with its source", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", KIT);
    await withEnv({
      [`${p}_LOCALIZATION__DEFAULT_CULTURE`]: "de",
      [`${p}_LOCALIZATION__TIMEOUT`]: "fast",
    }, async () => {
      const error = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema,
      }).then(() => undefined, (error: unknown) => error);
      assert.ok(error instanceof ConfigurationValidationError);
      assert.deepEqual(error.failures, [
        `localization:defaultCulture: must be one of "en", "fr", got "de" (from env ${p}_LOCALIZATION__DEFAULT_CULTURE)`,
        `localization:timeout: must be a number, got "fast" (from env ${p}_LOCALIZATION__TIMEOUT)`,
        `localization:bundle: is required (not set by any source; set ${p}_LOCALIZATION__BUNDLE, or "localization": { "bundle": … } in appsettings.json)`,
      ]);
    });
  });
});

test("an extended section set right gives Kit's keys and the added ones, coerced and defaulted", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      ...KIT,
      localization: { bundle: "app", cache: { maxSize: 50 } },
    });
    await withEnv({
      [`${p}_LOCALIZATION__DEFAULT_CULTURE`]: "fr",
      [`${p}_LOCALIZATION__TIMEOUT`]: "2500",
      [`${p}_DATABASE__SCHEMA_NAME`]: "tenant",
    }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema,
      });
      try {
        assert.deepEqual(config.bind(schema).localization, {
          defaultCulture: "fr",
          timeout: 2500,
          cache: { maxSize: 50 },
          cookieName: "culture",
          bundle: "app",
        });
        assert.equal(config.getValue("localization:timeout"), 2500);
        assert.equal(config.getValue("database:schemaName"), "tenant");
        assert.equal(config.getValue("database:poolSize"), 10);
      } finally {
        await config.close();
      }
    });
  });
});

test("an extended required section stays required: its required keys are named when it is missing", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const { database: _, ...withoutDatabase } = KIT;
    await dir.write("appsettings.json", withoutDatabase);
    const error = await createConfiguration({
      basePath: dir.path,
      envPrefix: p,
      environment: "test",
      schema,
    }).then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof ConfigurationValidationError);
    assert.deepEqual(error.failures, [
      `database:connectionString: is required (not set by any source; set DB_CONNECTION_STRING or ${p}_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in appsettings.json)`,
    ]);
  });
});

test("extendSection() refuses, with a TypeError that says what to do, a section it cannot rebuild whole", () => {
  const cases: [unknown, string][] = [
    [v.strictObject({}), "a strict_object schema"],
    [v.pipe(v.object({}), v.check(() => true)), "v.pipe() of an object schema"],
    [v.optional(v.object({}), {}), "v.optional() with a default"],
    [v.optional(v.string()), "v.optional() of a string schema"],
    [
      v.optional(v.pipe(v.object({}), v.check(() => true))),
      "v.optional() of v.pipe() of an object schema",
    ],
    [v.fallback(v.object({}), {}), "v.fallback()"],
  ];
  for (const [section, described] of cases) {
    assert.throws(
      () => extendSection(section as never, { a: v.string() }),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message ===
          `extendSection() takes a v.object() section or v.optional() of one without a default, got ${described}; write that section anew with v.object()`,
    );
  }
  assert.throws(
    () => extendSection(appConfigSchema.entries.localization, null as never),
    (error: unknown) =>
      error instanceof TypeError &&
      error.message ===
        "extendSection(): the keys to add must be an object of valibot schemas, such as { name: v.string() }",
  );
});
