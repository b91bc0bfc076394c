import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DefaultCultureProvider,
  LocalizationCache,
  LocalizationManager,
} from "../../localization/mod.ts";
import { ControlledProvider } from "./_helpers.ts";

test("LocalizationCache defaults to maxSize 1000 and ttl 3600000", () => {
  const cache = new LocalizationCache();
  assert.equal(cache.maxSize, 1000);
  assert.equal(cache.ttl, 3_600_000);
});

test("LocalizationCache.get() returns what set() stored while fresh", () => {
  const cache = new LocalizationCache({ maxSize: 10, ttl: 1000 });
  const texts = new Map([["a", "A"]]);
  cache.set("en", texts);
  assert.equal(cache.get("en"), texts);
  assert.equal(cache.has("en"), true);
  assert.equal(cache.size, 1);
});

test("LocalizationCache entries expire after ttl but stay readable with getStale()", () => {
  let now = 0;
  const cache = new LocalizationCache({ ttl: 500, now: () => now });
  cache.set("en", new Map([["a", "A"]]));
  now += 499;
  assert.ok(cache.get("en"));
  now += 2;
  assert.equal(cache.get("en"), undefined);
  assert.equal(cache.has("en"), false);
  assert.equal(cache.getStale("en")?.get("a"), "A");
  assert.equal(cache.getStale("en")?.get("a"), "A"); // still kept
});

test("LocalizationCache with ttl 0 never expires entries", () => {
  let now = 0;
  const cache = new LocalizationCache({ ttl: 0, now: () => now });
  cache.set("en", new Map());
  now = 1e12;
  assert.ok(cache.get("en"));
});

test("LocalizationCache evicts the least recently used culture beyond maxSize", () => {
  const cache = new LocalizationCache({ maxSize: 2 });
  cache.set("en", new Map());
  cache.set("fr", new Map());
  cache.get("en"); // en is now the most recently used
  cache.set("de", new Map());
  assert.equal(cache.has("fr"), false);
  assert.equal(cache.has("en"), true);
  assert.equal(cache.has("de"), true);
  assert.equal(cache.size, 2);
});

test("LocalizationCache.delete() and clear() forget cultures", () => {
  const cache = new LocalizationCache();
  cache.set("en", new Map());
  cache.set("fr", new Map());
  assert.equal(cache.delete("en"), true);
  assert.equal(cache.delete("en"), false);
  cache.clear();
  assert.equal(cache.size, 0);
});

test("LocalizationCache rejects a bad maxSize or ttl", () => {
  assert.throws(() => new LocalizationCache({ maxSize: 0 }), RangeError);
  assert.throws(() => new LocalizationCache({ maxSize: 1.5 }), RangeError);
  assert.throws(() => new LocalizationCache({ ttl: -1 }), RangeError);
  assert.throws(
    () => new LocalizationCache({ ttl: Number.NaN }),
    /ttl must be a non-negative integer/,
  );
});

function setup(ttl = 1000) {
  let now = 0;
  const clock = {
    advance(ms: number) {
      now += ms;
    },
  };
  const provider = new ControlledProvider({
    en: { title: "Welcome" },
    fr: { title: "Bienvenue" },
  });
  const cache = new LocalizationCache({ maxSize: 10, ttl, now: () => now });
  const loadErrors: Array<[unknown, string]> = [];
  const manager = new LocalizationManager(
    provider,
    new DefaultCultureProvider("en"),
    undefined,
    cache,
    undefined,
    { onLoadError: (error, culture) => loadErrors.push([error, culture]) },
  );
  return { provider, cache, manager, clock, loadErrors };
}

test("LocalizationManager with a cache does not reload a culture whose entry is fresh", async () => {
  const { provider, manager } = setup();
  await manager.setCulture("en");
  await manager.setCulture("fr");
  await manager.setCulture("en");
  await manager.setCulture("fr");
  assert.equal(provider.callsFor("en"), 1);
  assert.equal(provider.callsFor("fr"), 1);
  assert.equal(manager.t("title"), "Bienvenue");
});

test("LocalizationManager reloads an expired culture on the next setCulture()", async () => {
  const { provider, manager, clock } = setup(1000);
  await manager.setCulture("en");
  provider.texts.en = { title: "Welcome back" };
  clock.advance(500);
  await manager.setCulture("en");
  assert.equal(provider.callsFor("en"), 1);
  assert.equal(manager.t("title"), "Welcome");
  clock.advance(600);
  await manager.setCulture("en");
  assert.equal(provider.callsFor("en"), 2);
  assert.equal(manager.t("title"), "Welcome back");
});

test("a failed reload of an expired culture keeps serving the last good resources", async () => {
  const { provider, manager, clock, cache, loadErrors } = setup(1000);
  await manager.setCulture("fr");
  await manager.setCulture("en");
  clock.advance(2000);
  const failure = new Error("server down");
  provider.failing.set("fr", failure);
  await manager.setCulture("fr"); // resolves with the stale resources
  assert.equal(provider.callsFor("fr"), 2);
  assert.equal(manager.culture, "fr");
  assert.equal(manager.t("title"), "Bienvenue");
  assert.deepEqual(loadErrors, [[failure, "fr"]]);
  // The next setCulture tries again, and a good reload replaces the entry.
  provider.failing.delete("fr");
  provider.texts.fr = { title: "Bienvenue à nouveau" };
  await manager.setCulture("fr");
  assert.equal(provider.callsFor("fr"), 3);
  assert.equal(manager.t("title"), "Bienvenue à nouveau");
  assert.ok(cache.has("fr"));
});

test("without a cached copy a failed load rejects setCulture()", async () => {
  const { provider, manager } = setup();
  provider.failing.set("fr", new Error("server down"));
  await manager.setCulture("en");
  await assert.rejects(manager.setCulture("fr"), /server down/);
  assert.equal(manager.culture, "en");
});
