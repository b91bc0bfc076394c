// localization:supportedCultures is one of Kit's declared keys: a list of
// culture names that appConfigSchema reads from a JSON file's array, from one
// variable of names separated by commas, or from indexed variables (`__0`,
// `__1`), and refuses at start-up when an entry is not a culture name —
// naming the key, the entry's position, the file or variable that set it and
// the entry itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  appConfigSchema,
  ConfigurationValidationError,
  createConfiguration,
  kitConfigurationSections,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

const BASE = {
  database: { connectionString: "postgres://db/app" },
  api: { baseUrl: "https://api.example.com" },
  logging: { providers: [{ type: "console" }] },
};

type Schema = NonNullable<
  NonNullable<Parameters<typeof createConfiguration>[0]>["schema"]
>;

/** Loads a configuration from `settings` and `env`; the result or the failure. */
async function load(
  settings: unknown,
  env: (prefix: string) => Record<string, string>,
  schema: Schema = appConfigSchema,
): Promise<
  { prefix: string; cultures?: unknown; failures?: readonly string[] }
> {
  const prefix = uniquePrefix();
  return await withTempDir(async (dir) => {
    await dir.write("appsettings.json", settings);
    return await withEnv(env(prefix), async () => {
      try {
        const config = await createConfiguration({
          basePath: dir.path,
          envPrefix: prefix,
          environment: "test",
          schema,
        });
        try {
          return {
            prefix,
            cultures: config.getValue("localization:supportedCultures"),
          };
        } finally {
          await config.close();
        }
      } catch (error) {
        if (!(error instanceof ConfigurationValidationError)) throw error;
        return { prefix, failures: error.failures };
      }
    });
  });
}

test("localization:supportedCultures is declared as a list of culture names", () => {
  const declared = kitConfigurationSections.localization.supportedCultures;
  assert.equal(declared.type, "cultures");
});

test("a JSON file's array is the list", async () => {
  const result = await load({
    ...BASE,
    localization: { supportedCultures: ["en-US", "fr-FR", "de-DE"] },
  }, () => ({}));
  assert.deepEqual(result.cultures, ["en-US", "fr-FR", "de-DE"]);
});

test("APP_LOCALIZATION__SUPPORTED_CULTURES holds the names separated by commas", async () => {
  const result = await load(BASE, (p) => ({
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES`]: " en-US, fr-FR ,de-DE",
  }));
  assert.deepEqual(result.cultures, ["en-US", "fr-FR", "de-DE"]);
});

test("indexed variables and JSON text set the list too, and a variable replaces the file's list", async () => {
  const settings = {
    ...BASE,
    localization: { supportedCultures: ["it", "es"] },
  };
  const indexed = await load(settings, (p) => ({
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES__0`]: "en",
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES__1`]: "pt-BR",
  }));
  assert.deepEqual(indexed.cultures, ["en", "pt-BR"]);
  const json = await load(settings, (p) => ({
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES`]: '["en", "zh-Hant-TW"]',
  }));
  assert.deepEqual(json.cultures, ["en", "zh-Hant-TW"]);
});

test("a blank variable is an empty list (which the readers take as none)", async () => {
  const result = await load(BASE, (p) => ({
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES`]: "  ",
  }));
  assert.deepEqual(result.cultures, []);
});

test("a malformed name in a variable fails start-up naming the key, the position, the variable and the entry", async () => {
  const result = await load(BASE, (p) => ({
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES`]: "en-US,en_GB,fr",
  }));
  assert.deepEqual(result.failures, [
    `localization:supportedCultures:1: must be a BCP 47 culture name such as "en" or "fr-CA", got "en_GB" (from env ${result.prefix}_LOCALIZATION__SUPPORTED_CULTURES)`,
  ]);
});

test("a malformed name in a file or an indexed variable is named with that source", async () => {
  const file = await load({
    ...BASE,
    localization: { supportedCultures: ["en", "../etc"] },
  }, () => ({}));
  assert.equal(file.failures?.length, 1, String(file.failures));
  assert.match(
    file.failures![0],
    /^localization:supportedCultures:1: must be a BCP 47 culture name such as "en" or "fr-CA", got "\.\.\/etc" \(from .*appsettings\.json\)$/,
  );
  const indexed = await load(BASE, (p) => ({
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES__0`]: "en",
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES__1`]: "fr FR",
  }));
  assert.deepEqual(indexed.failures, [
    `localization:supportedCultures:1: must be a BCP 47 culture name such as "en" or "fr-CA", got "fr FR" (from env ${indexed.prefix}_LOCALIZATION__SUPPORTED_CULTURES__1)`,
  ]);
});

test("a value that is no list at all is named at the key", async () => {
  const result = await load({
    ...BASE,
    localization: { supportedCultures: { first: "en" } },
  }, () => ({}));
  assert.equal(result.failures?.length, 1, String(result.failures));
  assert.match(
    result.failures![0],
    /^localization:supportedCultures: must be a list of culture names \(an array, or names separated by commas\), got an object \(from .*appsettings\.json\)$/,
  );
});

test("a schema extended from appConfigSchema.entries reads and checks the key as well", async () => {
  const schema = v.object({
    ...appConfigSchema.entries,
    upstream: v.optional(v.object({ url: v.string() })),
  });
  const good = await load(BASE, (p) => ({
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES`]: "en,fr",
  }), schema);
  assert.deepEqual(good.cultures, ["en", "fr"]);
  const bad = await load(BASE, (p) => ({
    [`${p}_LOCALIZATION__SUPPORTED_CULTURES`]: "en,?",
  }), schema);
  assert.equal(bad.failures?.length, 1, String(bad.failures));
  assert.match(bad.failures![0], /^localization:supportedCultures:1: .*"\?"/);
});

test("diagnose() reports no unknown variable for the list, whichever way it is set", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", BASE);
    await withEnv({
      [`${p}_LOCALIZATION__SUPPORTED_CULTURES`]: "en,fr",
      [`${p}_LOCALIZATION__SUPPORTED_CULTURES__2`]: "de",
    }, async () => {
      // No schema: the keys Kit declares are known all the same.
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        validate: false,
      });
      try {
        const findings = config.diagnose().filter((finding) =>
          finding.variable?.startsWith(`${p}_`)
        );
        assert.deepEqual(findings, []);
      } finally {
        await config.close();
      }
    });
  });
});

// Compile-time only (never called): with appConfigSchema the key reads as a
// list of strings.
async function _typedRead(): Promise<string[] | undefined> {
  const config = await createConfiguration({ schema: appConfigSchema });
  const cultures: string[] | undefined = config.getValue(
    "localization:supportedCultures",
  );
  await config.close();
  return cultures;
}
