import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CamelCaseKeyResolver,
  DefaultCultureProvider,
  IdentityKeyResolver,
  InvalidCultureError,
  LocalizationLoadError,
  LocalizationManager,
  type LocalizationManagerOptions,
  MapLocalizationProvider,
  type MissingTranslationReport,
} from "../../localization/mod.ts";
import { ControlledProvider, settle, type Texts, toMaps } from "./_helpers.ts";

const TEXTS: Texts = {
  en: {
    "home.title": "Welcome",
    "home.help": "Help",
    "home.pageTitle": "Home page",
    "greeting": "Hello {0}",
  },
  fr: { "home.title": "Bienvenue", "home.subtitle": "Sous-titre" },
  "fr-CA": { "home.title": "Bienvenue au Canada" },
  de: { "home.title": "Willkommen" },
};

function create(
  texts: Texts = TEXTS,
  options: LocalizationManagerOptions = {},
  initial = "en",
) {
  const provider = new ControlledProvider(texts);
  const cultures = new DefaultCultureProvider(initial);
  const manager = new LocalizationManager(
    provider,
    cultures,
    (key, culture) => `[${key}|${culture}]`,
    undefined,
    undefined,
    options,
  );
  return { provider, cultures, manager };
}

test("LocalizationManager.translate() returns the text of the current culture once setCulture() resolved", async () => {
  const { manager } = create();
  await manager.setCulture("fr");
  assert.equal(manager.translate("home.title"), "Bienvenue");
  assert.equal(manager.culture, "fr");
});

test("LocalizationManager.t is translate(), bound to the manager", async () => {
  const { manager } = create();
  await manager.setCulture("en");
  const { t } = manager;
  assert.equal(t("greeting", "Ada"), "Hello Ada");
  assert.equal(manager.t("home.title"), manager.translate("home.title"));
});

test("LocalizationManager.translate() is synchronous (returns a string, not a promise)", async () => {
  const { manager } = create();
  await manager.setCulture("en");
  const result: unknown = manager.translate("home.title");
  assert.equal(typeof result, "string");
});

test("LocalizationManager.culture starts at the culture provider's culture", () => {
  const { manager } = create(TEXTS, {}, "de");
  assert.equal(manager.culture, "de");
});

test("LocalizationManager constructor arguments are provider, culture provider, handler, cache, parsers, options in that order", async () => {
  const manager = new LocalizationManager(
    new MapLocalizationProvider(toMaps({ en: { a: "{0}!" } })),
    new DefaultCultureProvider("en"),
    (key) => `?${key}`,
    undefined,
    [],
    { fallbackCulture: "en" },
  );
  await manager.setCulture("en");
  assert.equal(manager.t("a", "x"), "{0}!"); // no value parsers: text as written
  assert.equal(manager.t("b"), "?b");
  assert.equal(manager.fallbackCulture, "en");
});

test("LocalizationManager uses [key] for a missing translation when no handler is given", async () => {
  const manager = new LocalizationManager(
    new MapLocalizationProvider(toMaps({ en: {} })),
    new DefaultCultureProvider("en"),
  );
  await manager.setCulture("en");
  assert.equal(manager.t("home.missing"), "[home.missing]");
});

test("LocalizationManager.translate() returns the missing handler's result, called with the key and the culture", async () => {
  const calls: Array<[string, string]> = [];
  const manager = new LocalizationManager(
    new MapLocalizationProvider(toMaps({ de: {} })),
    new DefaultCultureProvider("en"),
    (key, culture) => {
      calls.push([key, culture]);
      return key;
    },
  );
  await manager.setCulture("de");
  assert.equal(manager.t("nav.back"), "nav.back");
  assert.deepEqual(calls, [["nav.back", "de"]]);
});

test("LocalizationManager.translate() before any setCulture() gives the missing handler's result", () => {
  const { manager } = create();
  assert.equal(manager.t("home.title"), "[home.title|en]");
});

test("LocalizationManager falls back fr-CA → fr → fallbackCulture before the handler", async () => {
  const { manager } = create(TEXTS, { fallbackCulture: "en" });
  await manager.setCulture("fr-CA");
  assert.equal(manager.t("home.title"), "Bienvenue au Canada");
  assert.equal(manager.t("home.subtitle"), "Sous-titre");
  assert.equal(manager.t("home.help"), "Help");
  assert.equal(manager.t("home.none"), "[home.none|fr-CA]");
});

test("LocalizationManager loads the whole fallback chain on setCulture()", async () => {
  const { manager, provider } = create(TEXTS, { fallbackCulture: "en" });
  await manager.setCulture("fr-CA");
  assert.deepEqual([...provider.calls].sort(), ["en", "fr", "fr-CA"]);
});

test("LocalizationManager without fallbackCulture stops at the shorter forms of the culture", async () => {
  const { manager } = create();
  await manager.setCulture("fr-CA");
  assert.equal(manager.t("home.subtitle"), "Sous-titre");
  assert.equal(manager.t("home.help"), "[home.help|fr-CA]");
});

test("LocalizationManager.setCulture() succeeds when the culture itself is not found but a fallback is", async () => {
  const { manager } = create(TEXTS, { fallbackCulture: "en" });
  await manager.setCulture("fr-BE"); // no fr-BE texts
  assert.equal(manager.culture, "fr-BE");
  assert.equal(manager.t("home.title"), "Bienvenue");
});

test("LocalizationManager.setCulture() rejects with the culture's not-found error when no culture of the chain is found", async () => {
  const { manager } = create();
  await assert.rejects(manager.setCulture("it-IT"), (error: unknown) => {
    assert.ok(error instanceof LocalizationLoadError);
    assert.equal(error.culture, "it-IT");
    assert.equal(error.notFound, true);
    return true;
  });
  assert.equal(manager.culture, "en");
});

test("LocalizationManager.setCulture() fails, and keeps the old culture, when a fallback culture fails to load", async () => {
  const { manager, provider } = create(TEXTS, { fallbackCulture: "en" });
  await manager.setCulture("de");
  provider.failing.set("en", new Error("boom"));
  await assert.rejects(manager.setCulture("fr"), /boom/);
  assert.equal(manager.culture, "de");
  assert.equal(manager.t("home.title"), "Willkommen");
});

test("onMissing reports each fallback step with the key, the requested culture and the culture that answered", async () => {
  const reports: MissingTranslationReport[] = [];
  const { manager } = create(TEXTS, {
    fallbackCulture: "en",
    onMissing: (report) => {
      reports.push(report);
    },
  });
  await manager.setCulture("fr-CA");

  manager.t("home.title"); // found in fr-CA: nothing to report
  assert.equal(reports.length, 0);

  manager.t("home.subtitle"); // fr-CA → fr
  assert.deepEqual(reports, [{
    key: "home.subtitle",
    resolvedKey: "home.subtitle",
    requestedCulture: "fr-CA",
    missingCulture: "fr-CA",
    answeringCulture: "fr",
  }]);

  reports.length = 0;
  manager.t("home.help"); // fr-CA → fr → en
  assert.deepEqual(
    reports.map((r) => [r.missingCulture, r.answeringCulture]),
    [["fr-CA", "en"], ["fr", "en"]],
  );

  reports.length = 0;
  assert.equal(manager.t("home.none"), "[home.none|fr-CA]");
  assert.deepEqual(
    reports.map((r) => [r.missingCulture, r.answeringCulture]),
    [["fr-CA", undefined], ["fr", undefined], ["en", undefined]],
  );
});

test("onMissing is called on every translate() call that falls back, not only the first", async () => {
  let count = 0;
  const { manager } = create(TEXTS, {
    fallbackCulture: "en",
    onMissing: () => {
      count++;
    },
  });
  await manager.setCulture("fr");
  manager.t("home.help");
  manager.t("home.help");
  manager.t("home.help");
  assert.equal(count, 3);
});

test("a throwing onMissing does not break translate()", async () => {
  const { manager } = create(TEXTS, {
    fallbackCulture: "en",
    onMissing: () => {
      throw new Error("reporter down");
    },
  });
  await manager.setCulture("fr");
  const original = console.error;
  const logged: unknown[] = [];
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    assert.equal(manager.t("home.help"), "Help");
  } finally {
    console.error = original;
  }
  assert.equal(logged.length, 1);
});

test("LocalizationManager.setKeyResolver(CamelCaseKeyResolver) maps Home.Page-Title to home.pageTitle", async () => {
  const { manager } = create();
  await manager.setCulture("en");
  assert.equal(manager.t("Home.Page-Title"), "[Home.Page-Title|en]");
  manager.setKeyResolver(new CamelCaseKeyResolver());
  assert.equal(manager.t("Home.Page-Title"), "Home page");
  assert.equal(manager.t("home.pageTitle"), "Home page");
});

test("LocalizationManager uses keys as given by default and again after setKeyResolver(IdentityKeyResolver)", async () => {
  const { manager } = create();
  await manager.setCulture("en");
  manager.setKeyResolver(new CamelCaseKeyResolver());
  assert.equal(manager.t("HOME.TITLE"), "Welcome");
  manager.setKeyResolver(new IdentityKeyResolver());
  assert.equal(manager.t("HOME.TITLE"), "[HOME.TITLE|en]");
});

test("the missing handler and onMissing get the key as requested, and onMissing also the resolved key", async () => {
  const reports: MissingTranslationReport[] = [];
  const { manager } = create(TEXTS, {
    onMissing: (r) => {
      reports.push(r);
    },
  });
  await manager.setCulture("en");
  manager.setKeyResolver(new CamelCaseKeyResolver());
  assert.equal(manager.t("Home.No-Such"), "[Home.No-Such|en]");
  assert.equal(reports[0].key, "Home.No-Such");
  assert.equal(reports[0].resolvedKey, "home.noSuch");
});

test("LocalizationManager.has() tells whether a culture of the chain has the key", async () => {
  const { manager } = create(TEXTS, { fallbackCulture: "en" });
  await manager.setCulture("fr");
  assert.equal(manager.has("home.title"), true);
  assert.equal(manager.has("home.help"), true);
  assert.equal(manager.has("home.none"), false);
});

// --- setCulture: atomic, one event, last call wins, one load per culture ---

test("setCulture() keeps the old culture serving while the new one loads", async () => {
  const { manager, provider } = create();
  await manager.setCulture("en");
  provider.hold.add("de");
  const switching = manager.setCulture("de");
  await settle();
  assert.equal(manager.culture, "en");
  assert.equal(manager.t("home.title"), "Welcome");
  provider.release("de");
  await switching;
  assert.equal(manager.culture, "de");
  assert.equal(manager.t("home.title"), "Willkommen");
});

test("cultureChanged fires once, after the new resources are in place", async () => {
  const { manager, provider, cultures } = create(TEXTS, {
    fallbackCulture: "en",
  });
  await manager.setCulture("en");
  const seen: Array<[string, string, string]> = [];
  cultures.cultureChanged.add((culture) => {
    seen.push([culture, manager.culture, manager.t("home.title")]);
  });
  provider.hold.add("fr");
  const switching = manager.setCulture("fr-CA");
  await settle();
  assert.deepEqual(seen, []);
  provider.release("fr");
  await switching;
  assert.deepEqual(seen, [["fr-CA", "fr-CA", "Bienvenue au Canada"]]);
  assert.equal(cultures.culture, "fr-CA");
});

test("LocalizationManager.cultureChanged is the culture provider's signal", () => {
  const { manager, cultures } = create();
  assert.equal(manager.cultureChanged, cultures.cultureChanged);
});

test("setCulture() to the current culture does not fire cultureChanged", async () => {
  const { manager } = create();
  await manager.setCulture("de");
  let fired = 0;
  manager.cultureChanged.add(() => {
    fired++;
  });
  await manager.setCulture("de");
  assert.equal(fired, 0);
});

test("overlapping setCulture() calls end on the last one requested when it finishes first", async () => {
  const { manager, provider } = create();
  await manager.setCulture("en");
  const events: string[] = [];
  manager.cultureChanged.add((c) => {
    events.push(c);
  });
  provider.hold.add("fr");
  provider.hold.add("de");
  const first = manager.setCulture("fr");
  const second = manager.setCulture("de");
  provider.release("de");
  await second;
  provider.release("fr");
  await first;
  assert.equal(manager.culture, "de");
  assert.equal(manager.t("home.title"), "Willkommen");
  assert.deepEqual(events, ["de"]);
});

test("overlapping setCulture() calls end on the last one requested when the earlier one finishes first", async () => {
  const { manager, provider } = create();
  await manager.setCulture("en");
  const events: string[] = [];
  manager.cultureChanged.add((c) => {
    events.push(c);
  });
  provider.hold.add("fr");
  provider.hold.add("de");
  const first = manager.setCulture("fr");
  const second = manager.setCulture("de");
  provider.release("fr");
  await first; // superseded: resolves without switching
  assert.equal(manager.culture, "en");
  assert.equal(manager.t("home.title"), "Welcome");
  provider.release("de");
  await second;
  assert.equal(manager.culture, "de");
  assert.deepEqual(events, ["de"]);
});

test("a superseded setCulture() does not switch even when the last one fails", async () => {
  const { manager, provider } = create();
  await manager.setCulture("en");
  provider.hold.add("fr");
  provider.hold.add("de");
  const first = manager.setCulture("fr");
  const second = manager.setCulture("de");
  provider.fail("de", new Error("de is down"));
  await assert.rejects(second, /de is down/);
  provider.release("fr");
  await first;
  assert.equal(manager.culture, "en");
});

test("the same culture is loaded at most once at a time", async () => {
  const { manager, provider } = create(TEXTS, { fallbackCulture: "en" });
  provider.hold.add("fr");
  provider.hold.add("en");
  const a = manager.setCulture("fr");
  const b = manager.setCulture("fr");
  const c = manager.setCulture("fr-CA"); // shares fr and en
  await settle();
  assert.equal(provider.callsFor("fr"), 1);
  assert.equal(provider.callsFor("en"), 1);
  provider.release("fr");
  provider.release("en");
  await Promise.all([a, b, c]);
  assert.equal(manager.culture, "fr-CA");
  // Once finished, a later setCulture loads again (no cache given).
  await manager.setCulture("fr");
  assert.equal(provider.callsFor("fr"), 2);
});

test("a failed setCulture() leaves the previous culture and its texts in place and fires nothing", async () => {
  const { manager, provider } = create();
  await manager.setCulture("en");
  let fired = 0;
  manager.cultureChanged.add(() => {
    fired++;
  });
  provider.failing.set("de", new Error("network down"));
  await assert.rejects(manager.setCulture("de"), /network down/);
  assert.equal(manager.culture, "en");
  assert.equal(manager.t("home.title"), "Welcome");
  assert.equal(fired, 0);
});

// --- bad input ---

for (
  const bad of [
    "../etc/passwd",
    "en/../../secret",
    "fr?x=1",
    "fr-FR/",
    "en_US",
    "",
    " en",
    "e",
    "en-",
    "%2e%2e",
    "fr#x",
  ]
) {
  test(`setCulture(${JSON.stringify(bad)}) is rejected before the provider is called`, async () => {
    const { manager, provider } = create();
    await assert.rejects(manager.setCulture(bad), InvalidCultureError);
    assert.deepEqual(provider.calls, []);
    assert.equal(manager.culture, "en");
  });
}

test("InvalidCultureError names the rejected culture", async () => {
  const { manager } = create();
  await assert.rejects(manager.setCulture("../x"), {
    name: "InvalidCultureError",
    message:
      'Invalid culture name: "../x" (expected a BCP 47 tag such as "en" or "fr-CA")',
  });
});

test("LocalizationManager rejects a fallbackCulture that is not a BCP 47 tag", () => {
  assert.throws(
    () => create(TEXTS, { fallbackCulture: "../en" }),
    InvalidCultureError,
  );
});
