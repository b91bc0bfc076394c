import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DefaultCultureProvider,
  InvalidCultureError,
  LoaderLocalizationProvider,
  LocalizationLoadError,
  LocalizationManager,
  LocalizationResourceError,
  MapLocalizationProvider,
} from "../../localization/mod.ts";
import { toMaps } from "./_helpers.ts";

test("MapLocalizationProvider.load() returns the culture's map of keys to texts", async () => {
  const provider = new MapLocalizationProvider(
    toMaps({
      en: { "home.title": "Welcome" },
      fr: { "home.title": "Bienvenue" },
    }),
  );
  const fr = await provider.load("fr");
  assert.deepEqual([...fr], [["home.title", "Bienvenue"]]);
});

test("MapLocalizationProvider.load() returns a copy: later changes to the map apply on the next load", async () => {
  const maps = toMaps({ en: { a: "A" } });
  const provider = new MapLocalizationProvider(maps);
  const first = await provider.load("en");
  maps.get("en")!.set("a", "changed");
  assert.equal(first.get("a"), "A");
  assert.equal((await provider.load("en")).get("a"), "changed");
});

test("MapLocalizationProvider.load() rejects with a not-found LocalizationLoadError for an unknown culture", async () => {
  const provider = new MapLocalizationProvider(toMaps({ en: {} }));
  await assert.rejects(provider.load("de-DE"), (error: unknown) => {
    assert.ok(error instanceof LocalizationLoadError);
    assert.equal(error.notFound, true);
    assert.equal(
      error.message,
      'Failed to load translations for culture "de-DE": no translations for this culture',
    );
    return true;
  });
});

test("MapLocalizationProvider.load() reports a value that is not a string by key", async () => {
  const maps = new Map([["en", new Map<string, unknown>([["a", 1]])]]);
  const provider = new MapLocalizationProvider(
    maps as unknown as Map<string, Map<string, string>>,
  );
  await assert.rejects(provider.load("en"), {
    name: "LocalizationResourceError",
    message:
      'Invalid translation resource for culture "en": key "a" must be a string, got number',
  });
});

test("MapLocalizationProvider.load() rejects an invalid culture name", async () => {
  const provider = new MapLocalizationProvider(toMaps({ en: {} }));
  await assert.rejects(provider.load("../en"), InvalidCultureError);
});

test("LoaderLocalizationProvider flattens nested groups to dotted keys", async () => {
  const provider = new LoaderLocalizationProvider({
    load: () =>
      Promise.resolve({
        home: { title: "Welcome", hero: { cta: "Start" } },
        "flat.key": "Flat",
        footer: "Bye",
        empty: {},
      }),
  });
  const texts = await provider.load("en");
  assert.deepEqual(Object.fromEntries(texts), {
    "home.title": "Welcome",
    "home.hero.cta": "Start",
    "flat.key": "Flat",
    "footer": "Bye",
  });
});

test("LoaderLocalizationProvider reports the offending key of a resource that is not an object of strings", async () => {
  const cases: Array<[unknown, string]> = [
    [
      { home: { count: 3 } },
      'Invalid translation resource for culture "en": key "home.count" must be a string or a group of strings, got number',
    ],
    [
      { home: { items: ["a"] } },
      'Invalid translation resource for culture "en": key "home.items" must be a string or a group of strings, got array',
    ],
    [
      { a: { b: { c: null } } },
      'Invalid translation resource for culture "en": key "a.b.c" must be a string or a group of strings, got null',
    ],
    [
      ["a"],
      'Invalid translation resource for culture "en": the resource must be an object of strings, got array',
    ],
    [
      "text",
      'Invalid translation resource for culture "en": the resource must be an object of strings, got string',
    ],
    [
      { "a.b": "x", a: { b: "y" } },
      'Invalid translation resource for culture "en": key "a.b" is defined twice',
    ],
  ];
  for (const [resource, message] of cases) {
    const provider = new LoaderLocalizationProvider({
      load: () => Promise.resolve(resource),
    });
    await assert.rejects(provider.load("en"), (error: unknown) => {
      assert.ok(error instanceof LocalizationResourceError);
      assert.equal(error.message, message);
      return true;
    });
  }
});

test("LocalizationResourceError carries the key and the loader's address", async () => {
  const provider = new LoaderLocalizationProvider({
    load: () => Promise.resolve({ nav: { back: false } }),
    addressOf: (culture) => `/i18n/${culture}.json`,
  });
  await assert.rejects(provider.load("en"), (error: unknown) => {
    assert.ok(error instanceof LocalizationResourceError);
    assert.equal(error.key, "nav.back");
    assert.equal(error.culture, "en");
    assert.equal(error.address, "/i18n/en.json");
    assert.match(
      error.message,
      /key "nav\.back" .* got boolean \(\/i18n\/en\.json\)$/,
    );
    return true;
  });
});

test("LoaderLocalizationProvider rejects an invalid culture before calling the loader", async () => {
  let calls = 0;
  const provider = new LoaderLocalizationProvider({
    load: () => {
      calls++;
      return Promise.resolve({});
    },
  });
  await assert.rejects(provider.load("../../etc/passwd"), InvalidCultureError);
  assert.equal(calls, 0);
});

test("setCulture() rejects with the LocalizationResourceError of a bad resource and keeps the old culture", async () => {
  const resources: Record<string, unknown> = {
    en: { a: "A" },
    fr: { a: { b: 1 } },
  };
  const manager = new LocalizationManager(
    new LoaderLocalizationProvider({
      load: (culture) => Promise.resolve(resources[culture]),
    }),
    new DefaultCultureProvider("en"),
  );
  await manager.setCulture("en");
  await assert.rejects(manager.setCulture("fr"), LocalizationResourceError);
  assert.equal(manager.culture, "en");
  assert.equal(manager.t("a"), "A");
});
