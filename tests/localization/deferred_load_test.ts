// The localization package loads its @formatjs dependencies when first
// needed, not when it is imported: the ICU MessageFormat parser when the
// first ICU message is translated, the locale matcher at the first culture
// negotiation. Node.js lists what require() and require(esm) loaded in
// require.cache, so the npm pass for Node.js checks what each step added
// there; every runtime checks that translation and negotiation still work
// after the late load.
// (A static ES import would not show in require.cache; the npm package
// check, scripts/check_packages.ts, looks for those in the bundles.)
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { isNpmPass } from "../_support/module_url.ts";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);

const PARSER = "@formatjs/icu-messageformat-parser";
const MATCHER = "@formatjs/intl-localematcher";

const CHILD = `
import { createRequire } from "node:module";
const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
const cache = isNode ? createRequire(process.argv[1]).cache : {};
const loaded = (name) =>
  Object.keys(cache).some((file) => file.includes("/node_modules/" + name + "/"));
const names = [${JSON.stringify(PARSER)}, ${JSON.stringify(MATCHER)}];
const state = () => Object.fromEntries(names.map((name) => [name, loaded(name)]));
// What the packages localization depends on load is theirs.
await import(CORE_URL);
await import(PLATFORM_URL);
await import(CONFIG_URL);
const dependencies = state();
const l10n = await import(LOCALIZATION_URL);
const atImport = state();
const lruAtImport = loaded("lru-cache");
const localizationCache = new l10n.LocalizationCache({ maxSize: 10 });
const lruWithCache = loaded("lru-cache");
const manager = new l10n.LocalizationManager(
  new l10n.MapLocalizationProvider(new Map([
    ["en", new Map([
      ["plain", "Hello {0}"],
      ["files", "{count, plural, one {# file} other {# files}}"],
    ])],
    ["fr", new Map([["plain", "Bonjour {0}"]])],
  ])),
  new l10n.DefaultCultureProvider("en"),
);
await manager.setCulture("en");
const plain = manager.t("plain", "Ada");
const afterPlain = state();
const files = [manager.t("files", { count: 1 }), manager.t("files", { count: 1234 })];
const afterIcu = state();
const negotiated = l10n.negotiateCulture("fr-CH, de;q=0.5", ["en", "fr"], "en");
const afterNegotiation = state();
console.log(JSON.stringify({
  dependencies, atImport, afterPlain, afterIcu, afterNegotiation,
  lruAtImport, lruWithCache, cacheSize: localizationCache.size,
  plain, files, negotiated,
}));
`;

describe("the localization package's @formatjs dependencies", () => {
  it("translate ICU messages and negotiate cultures when loaded late", async () => {
    const result = await runChildScript(CHILD);
    assert.equal(result.code, 0, result.out);
    const { plain, files, negotiated, cacheSize } = lastJson(result);
    assert.equal(cacheSize, 0, "a LocalizationCache made after the late load");
    assert.equal(plain, "Hello Ada");
    assert.deepEqual(files, ["1 file", "1,234 files"]);
    assert.equal(negotiated, "fr");
  });

  it(
    "are loaded in Node.js only when needed: the parser with the first ICU message, the matcher with the first negotiation",
    {
      skip: isNpmPass() && isNode
        ? false
        : "only the npm package for Node.js defers them (Deno imports them with the module)",
    },
    async () => {
      const result = await runChildScript(CHILD);
      assert.equal(result.code, 0, result.out);
      const { dependencies, atImport, afterPlain, afterIcu, afterNegotiation } =
        lastJson(result) as Record<string, Record<string, boolean>>;
      assert.deepEqual(dependencies, { [PARSER]: false, [MATCHER]: false });
      assert.deepEqual(atImport, { [PARSER]: false, [MATCHER]: false });
      assert.deepEqual(afterPlain, { [PARSER]: false, [MATCHER]: false });
      assert.deepEqual(afterIcu, { [PARSER]: true, [MATCHER]: false });
      assert.deepEqual(afterNegotiation, { [PARSER]: true, [MATCHER]: true });
    },
  );

  it(
    "loads lru-cache with the first LocalizationCache, not at import, in Node.js",
    {
      skip: isNpmPass() && isNode
        ? false
        : "only the npm package for Node.js defers lru-cache (Deno imports it with the module)",
    },
    async () => {
      const result = await runChildScript(CHILD);
      assert.equal(result.code, 0, result.out);
      const { lruAtImport, lruWithCache } = lastJson(result);
      assert.deepEqual({ lruAtImport, lruWithCache }, {
        lruAtImport: false,
        lruWithCache: true,
      });
    },
  );
});
