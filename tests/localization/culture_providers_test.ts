import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertCultureName,
  DefaultCultureProvider,
  InvalidCultureError,
  isCultureName,
  NavigatorCultureProvider,
} from "../../localization/mod.ts";
import { Signal } from "../../platform/mod.ts";

test("isCultureName() accepts BCP 47 tags: language, script, region, variants", () => {
  for (
    const good of [
      "en",
      "fr-CA",
      "zh-Hant-TW",
      "es-419",
      "sr-Latn",
      "de-CH-1996",
      "haw",
    ]
  ) {
    assert.equal(isCultureName(good), true, good);
  }
});

test("isCultureName() rejects anything that could reach a URL or path unsafely", () => {
  for (
    const bad of [
      "../en",
      "en/..",
      "en?x",
      "en#x",
      "en%2F",
      "en US",
      "en_US",
      "e",
      "toolongx",
      "en-",
      "-en",
      "en--US",
      "",
      "en\n",
      "en-US/../../etc",
      null,
      undefined,
      42,
    ]
  ) {
    assert.equal(isCultureName(bad), false, String(bad));
  }
});

test("assertCultureName() returns a valid culture and throws InvalidCultureError otherwise", () => {
  assert.equal(assertCultureName("en-GB"), "en-GB");
  assert.throws(() => assertCultureName("../x"), InvalidCultureError);
});

test("DefaultCultureProvider holds the initial culture and exposes cultureChanged as a platform Signal", () => {
  const provider = new DefaultCultureProvider("en-US");
  assert.equal(provider.culture, "en-US");
  assert.ok(provider.cultureChanged instanceof Signal);
});

test("DefaultCultureProvider.setCulture() dispatches cultureChanged with the new culture, once per change", () => {
  const provider = new DefaultCultureProvider("en");
  const seen: string[] = [];
  provider.cultureChanged.add((culture) => {
    seen.push(culture);
  });
  provider.setCulture("fr");
  provider.setCulture("fr");
  provider.setCulture("de");
  assert.deepEqual(seen, ["fr", "de"]);
  assert.equal(provider.culture, "de");
});

test("cultureChanged.add() returns a remover that stops the handler", () => {
  const provider = new DefaultCultureProvider("en");
  let calls = 0;
  const remove = provider.cultureChanged.add(() => {
    calls++;
  });
  provider.setCulture("fr");
  remove();
  provider.setCulture("de");
  assert.equal(calls, 1);
  assert.equal(provider.cultureChanged.size, 0);
});

test("DefaultCultureProvider rejects a culture that is not a BCP 47 tag", () => {
  assert.throws(() => new DefaultCultureProvider("../en"), InvalidCultureError);
  const provider = new DefaultCultureProvider("en");
  assert.throws(() => provider.setCulture("en/.."), InvalidCultureError);
  assert.equal(provider.culture, "en");
});

test("NavigatorCultureProvider starts from the first valid entry of navigator.languages", () => {
  const provider = new NavigatorCultureProvider({
    navigator: { languages: ["x_bad", "fr-BE", "en-US"], language: "de" },
  });
  assert.equal(provider.culture, "fr-BE");
  assert.deepEqual(provider.languages, ["fr-BE", "en-US", "de"]);
});

test("NavigatorCultureProvider uses navigator.language when languages is absent", () => {
  const provider = new NavigatorCultureProvider({
    navigator: { language: "pt-BR" },
  });
  assert.equal(provider.culture, "pt-BR");
});

test("NavigatorCultureProvider picks the first preferred language that is supported, by exact tag or language part", () => {
  const provider = new NavigatorCultureProvider({
    navigator: { languages: ["it-IT", "fr-BE", "en-US"] },
    supportedCultures: ["en-US", "fr"],
  });
  assert.equal(provider.culture, "fr");
  const exact = new NavigatorCultureProvider({
    navigator: { languages: ["en-us"] },
    supportedCultures: ["en-US", "fr"],
  });
  assert.equal(exact.culture, "en-US");
});

test("NavigatorCultureProvider falls back when nothing fits (default en)", () => {
  assert.equal(
    new NavigatorCultureProvider({ navigator: { languages: [] } }).culture,
    "en",
  );
  assert.equal(
    new NavigatorCultureProvider({
      navigator: { languages: ["it"] },
      supportedCultures: ["de"],
      fallback: "de",
    }).culture,
    "de",
  );
});

test("NavigatorCultureProvider reads globalThis.navigator by default", () => {
  const provider = new NavigatorCultureProvider();
  const navigatorLanguages =
    (globalThis as { navigator?: { languages?: readonly string[] } })
      .navigator?.languages ?? [];
  const expected = navigatorLanguages.find(isCultureName) ?? "en";
  assert.equal(provider.culture, expected);
});

test("NavigatorCultureProvider dispatches cultureChanged like DefaultCultureProvider", () => {
  const provider = new NavigatorCultureProvider({
    navigator: { languages: ["en"] },
  });
  const seen: string[] = [];
  provider.cultureChanged.add((culture) => {
    seen.push(culture);
  });
  provider.setCulture("ja");
  assert.deepEqual(seen, ["ja"]);
});
