// A small translation file whose {@key} references double the text at each
// level must not crash t(): the expanded length is bounded, the text is
// reported to onMessageError and the missing-translation handler answers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { stat } from "node:fs/promises";
import {
  DefaultCultureProvider,
  JsonFileLocalizationLoader,
  LoaderLocalizationProvider,
  LocalizationManager,
  LocalizationMessageError,
} from "../../localization/mod.ts";
import { repoUrl } from "../_support/module_url.ts";

const FIXTURES = repoUrl("tests/localization/fixtures/");
const TEMPLATE = fileURLToPath(
  new URL("./reference_expansion/", FIXTURES),
) + "{culture}.json";

async function managerFor(
  culture: string,
  errors: LocalizationMessageError[],
): Promise<LocalizationManager> {
  const manager = new LocalizationManager(
    new LoaderLocalizationProvider(new JsonFileLocalizationLoader(TEMPLATE)),
    new DefaultCultureProvider(culture),
    (key, inCulture) => `[${key} in ${inCulture}]`,
    undefined,
    undefined, // the default parsers: ICU, format and references
    {
      fallbackCulture: culture,
      onMessageError: (error) => errors.push(error),
    },
  );
  await manager.setCulture(culture);
  return manager;
}

test("the expansion bound is one million characters", () => {
  assert.equal(LocalizationMessageError.MAX_EXPANDED_LENGTH, 1_000_000);
});

test("a file under 700 bytes doubling a text through 29 levels of {@key}: t() answers the missing result and reports the key", async () => {
  const file = TEMPLATE.replace("{culture}", "en");
  assert.ok((await stat(file)).size < 700);
  const errors: LocalizationMessageError[] = [];
  const manager = await managerFor("en", errors);
  assert.equal(manager.t("D"), "[D in en]");
  assert.equal(errors.length, 1);
  const [error] = errors;
  assert.ok(error instanceof LocalizationMessageError);
  assert.equal(error.culture, "en");
  // 10 × 2^n − 8 characters at level n (a, b, c, …), counted with the
  // reference markers: level 17, "r", is the first above one million.
  assert.equal(error.key, "r");
  assert.equal(
    error.message,
    'Invalid message for key "r" in culture "en" at line 1, column 1: ' +
      "its {@key} references expand it to more than 1000000 characters. " +
      "Refer to shorter texts or fewer times, or write the text out",
  );
  // Reported once; the key stays missing.
  assert.equal(manager.t("D"), "[D in en]");
  assert.equal(errors.length, 1);
  // Below the bound references still expand.
  assert.equal(manager.t("ok"), "ha".repeat(8) + "!");
  assert.equal(manager.t("q").length, 2 * 2 ** 16);
});

test("a placeholder doubled through 24 levels: t() with an argument answers the missing result", async () => {
  const errors: LocalizationMessageError[] = [];
  const manager = await managerFor("fr", errors);
  assert.equal(manager.t("p24", "x".repeat(1_000)), "[p24 in fr]");
  assert.equal(errors.length, 1);
  assert.equal(errors[0].culture, "fr");
  assert.match(errors[0].key, /^p\d+$/);
  assert.equal(manager.t("p3", "ab"), "ab".repeat(8));
});

test("references doubled inside ICU plural choices through 29 levels: t() answers the missing result", async () => {
  const errors: LocalizationMessageError[] = [];
  const manager = await managerFor("de", errors);
  assert.equal(manager.t("i29", { n: 2 }), "[i29 in de]");
  assert.equal(errors.length, 1);
  assert.equal(errors[0].culture, "de");
  assert.match(errors[0].key, /^i\d+$/);
  assert.equal(manager.t("i2", { n: 1 }), "ja".repeat(4));
});
