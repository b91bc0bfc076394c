import { describe, it, test } from "node:test";
import assert from "node:assert/strict";
import {
  DefaultCultureProvider,
  InvalidCultureError,
  LocalizationCache,
  LocalizationManager,
  negotiateCulture,
  parseAcceptLanguage,
} from "../../localization/mod.ts";
import { ControlledProvider, settle, type Texts } from "./_helpers.ts";

const TEXTS: Texts = {
  en: {
    "cart.items": "{count, plural, one {# item} other {# items}}",
    "home.title": "Welcome",
    "home.help": "Help",
  },
  fr: {
    "cart.items": "{count, plural, one {# article} other {# articles}}",
    "home.title": "Bienvenue",
  },
  "fr-CA": { "home.title": "Bienvenue au Canada" },
  "en-US": { "home.title": "Welcome, y'all" },
  "fr-FR": { "home.title": "Bienvenue en France" },
};

function setup(
  cache?: LocalizationCache,
  fallbackCulture: string | undefined = "en",
): { manager: LocalizationManager; provider: ControlledProvider } {
  const provider = new ControlledProvider(structuredClone(TEXTS));
  const manager = new LocalizationManager(
    provider,
    new DefaultCultureProvider("en"),
    (key) => `[${key}]`,
    cache,
    undefined,
    { fallbackCulture },
  );
  return { manager, provider };
}

describe("forCulture", () => {
  it("returns a translator for the culture with t, culture, has, formatNumber and formatDate", async () => {
    const { manager } = setup();
    const fr = await manager.forCulture("fr-CA");
    assert.equal(fr.culture, "fr-CA");
    assert.equal(fr.t("home.title"), "Bienvenue au Canada");
    assert.equal(fr.t("cart.items", { count: 2 }), "2 articles");
    assert.equal(fr.t("home.help"), "Help", "from the fallback culture");
    assert.equal(fr.t("nothing"), "[nothing]");
    assert.equal(fr.has("home.help"), true);
    assert.equal(fr.has("nothing"), false);
    assert.equal(
      fr.formatNumber(1234.5),
      new Intl.NumberFormat("fr-CA").format(1234.5),
    );
    const date = new Date(Date.UTC(2026, 10, 23));
    assert.equal(
      fr.formatDate(date, { dateStyle: "long", timeZone: "UTC" }),
      new Intl.DateTimeFormat("fr-CA", { dateStyle: "long", timeZone: "UTC" })
        .format(date),
    );
    const { t } = fr;
    assert.equal(t("home.title"), "Bienvenue au Canada", "t is bound");
  });

  it("leaves the manager's own culture alone and does not fire cultureChanged", async () => {
    const { manager } = setup();
    await manager.setCulture("en");
    const changes: string[] = [];
    manager.cultureChanged.add((culture) => {
      changes.push(culture);
    });
    const fr = await manager.forCulture("fr");
    assert.equal(fr.t("home.title"), "Bienvenue");
    assert.equal(manager.culture, "en");
    assert.equal(manager.t("home.title"), "Welcome");
    assert.deepEqual(changes, []);
  });

  it("shares one load between concurrent calls for the same culture, and reuses the translator", async () => {
    const { manager, provider } = setup(new LocalizationCache());
    provider.hold.add("fr");
    const calls = [
      manager.forCulture("fr"),
      manager.forCulture("fr"),
      manager.forCulture("fr"),
    ];
    await settle();
    assert.equal(provider.callsFor("fr"), 1);
    provider.release("fr");
    const [a, b, c] = await Promise.all(calls);
    assert.equal(a, b);
    assert.equal(b, c);
    assert.equal(await manager.forCulture("fr"), a);
    assert.equal(provider.callsFor("fr"), 1);
  });

  it("a failed load is not kept: the next call tries again", async () => {
    const { manager, provider } = setup(new LocalizationCache());
    provider.failing.set("fr", new Error("network down"));
    await assert.rejects(manager.forCulture("fr"), /network down/);
    provider.failing.delete("fr");
    assert.equal((await manager.forCulture("fr")).t("home.title"), "Bienvenue");
    assert.equal(provider.callsFor("fr"), 2);
  });

  it("rejects a culture that is not a BCP 47 tag without loading anything", async () => {
    const { manager, provider } = setup();
    await assert.rejects(manager.forCulture("../etc"), InvalidCultureError);
    assert.equal(provider.calls.length, 0);
  });

  it("answers a culture that only the fallback culture covers with the fallback's translator", async () => {
    const { manager } = setup();
    const bogus = await manager.forCulture("xx-YY");
    assert.equal(bogus.culture, "en");
    assert.equal(bogus, await manager.forCulture("en"));
  });

  it("10,000 distinct bogus cultures keep the cultures held bounded by maxSize and all get the fallback", async () => {
    const cache = new LocalizationCache({ maxSize: 50 });
    const { manager } = setup(cache);
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      // xaa-AA, xab-AA, …: a made-up language and region each time.
      const digit = (n: number): string => letters[Math.floor(i / n) % 26];
      const culture = `x${digit(1)}${digit(26)}-${digit(676)}${digit(17_576)}`
        .replace(/-(..)$/, (_, region: string) => `-${region.toUpperCase()}`);
      seen.add(culture);
      const translator = await manager.forCulture(culture);
      assert.equal(translator.culture, "en");
      assert.ok(manager.translatorCount <= 50);
    }
    assert.equal(seen.size, 10_000);
    assert.ok(manager.translatorCount <= 50, `${manager.translatorCount}`);
    assert.ok(cache.size <= 50, `${cache.size}`);
    assert.equal(cache.has("en"), true);
    assert.equal((await manager.forCulture("fr")).t("home.title"), "Bienvenue");
  });

  it("reloads a culture after the cache's ttl", async () => {
    let clock = 0;
    const cache = new LocalizationCache({ ttl: 1000, now: () => clock });
    const { manager, provider } = setup(cache);
    const first = await manager.forCulture("fr");
    provider.texts.fr["home.title"] = "Salut";
    assert.equal(await manager.forCulture("fr"), first);
    clock = 2000;
    const second = await manager.forCulture("fr");
    assert.notEqual(second, first);
    assert.equal(second.t("home.title"), "Salut");
    assert.equal(provider.callsFor("fr"), 2);
  });
});

test("forCulture() reloads after the ttl on the real clock too (an unref'd timer marks the translator stale)", async () => {
  const { manager, provider } = setup(new LocalizationCache({ ttl: 20 }));
  const first = await manager.forCulture("fr");
  assert.equal(await manager.forCulture("fr"), first);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.notEqual(await manager.forCulture("fr"), first);
  assert.equal(provider.callsFor("fr"), 2);
});

describe("negotiateCulture", () => {
  const offer = ["en-US", "fr-FR", "de-DE"];

  it("matches best fit: fr-CH and fr get fr-FR", () => {
    assert.equal(negotiateCulture("fr-CH", offer, "en-US"), "fr-FR");
    assert.equal(negotiateCulture("fr", offer, "en-US"), "fr-FR");
    assert.equal(negotiateCulture("de-AT, en;q=0.5", offer, "en-US"), "de-DE");
  });

  it("honours quality values", () => {
    assert.equal(
      negotiateCulture("en;q=0.3, fr;q=0.9, de;q=0.5", offer, "en-US"),
      "fr-FR",
    );
    assert.equal(negotiateCulture("fr;q=0, de", offer, "en-US"), "de-DE");
  });

  it("skips malformed ranges and falls back when nothing fits", () => {
    assert.equal(
      negotiateCulture("12-!!, fr;q=abc, de;q=0.4", offer, "en-US"),
      "de-DE",
    );
    assert.equal(negotiateCulture("ja, ko", offer, "en-US"), "en-US");
    assert.equal(negotiateCulture("", offer, "en-US"), "en-US");
    assert.equal(negotiateCulture(null, offer, "en-US"), "en-US");
    assert.equal(negotiateCulture(";;;,,,", offer, "en-US"), "en-US");
  });

  it("returns the culture as written among those on offer", () => {
    assert.equal(negotiateCulture("FR-ch", ["en", "fr-fr"], "en"), "fr-fr");
  });

  it("parseAcceptLanguage orders by quality, keeping the written order for ties", () => {
    assert.deepEqual(
      parseAcceptLanguage("da, en-GB;q=0.8, en;q=0.7, *;q=0.1, x!;q=1, de"),
      ["da", "de", "en-GB", "en"],
    );
  });
});

describe("forRequest", () => {
  const cultures = ["en-US", "fr-FR"];

  it("negotiates Accept-Language against the cultures on offer", async () => {
    const { manager } = setup();
    const translator = await manager.forRequest(
      new Request("https://example.test/", {
        headers: { "accept-language": "fr-CH, fr;q=0.9, en;q=0.8" },
      }),
      { cultures },
    );
    assert.equal(translator.culture, "fr-FR");
    assert.equal(translator.t("home.title"), "Bienvenue en France");
  });

  it("prefers the ?culture= query parameter, then the cookie, then the header", async () => {
    const { manager } = setup();
    const request = (url: string, cookie?: string): Request =>
      new Request(url, {
        headers: {
          "accept-language": "en-US",
          ...(cookie === undefined ? {} : { cookie }),
        },
      });
    const options = { cultures, cookie: "lang" };
    assert.equal(
      (await manager.forRequest(
        request("https://x.test/?culture=fr", "lang=en-US"),
        options,
      )).culture,
      "fr-FR",
    );
    assert.equal(
      (await manager.forRequest(
        request("https://x.test/", "a=1; lang=fr-BE"),
        options,
      )).culture,
      "fr-FR",
    );
    assert.equal(
      (await manager.forRequest(request("https://x.test/"), options)).culture,
      "en-US",
    );
    assert.equal(
      (await manager.forRequest(
        request("https://x.test/?lng=fr"),
        { ...options, queryParameter: "lng" },
      )).culture,
      "fr-FR",
    );
    assert.equal(
      (await manager.forRequest(
        request("https://x.test/?culture=../../etc"),
        options,
      )).culture,
      "en-US",
      "an invalid value is ignored",
    );
  });

  it("without cultures on offer uses the first valid culture asked for, then the fallback", async () => {
    const { manager } = setup();
    const fr = await manager.forRequest(
      new Request("https://x.test/", {
        headers: { "accept-language": "!!, fr-CA;q=0.9" },
      }),
    );
    assert.equal(fr.culture, "fr-CA");
    const none = await manager.forRequest(new Request("https://x.test/"));
    assert.equal(none.culture, "en");
  });
});

test("translatorCount is 0 before any forCulture()", () => {
  assert.equal(setup().manager.translatorCount, 0);
});
