// LocalizationManager.fromConfiguration with real configuration objects
// (ConfigurationManager + MemoryProvider), a loopback server, real files and
// Kit's HttpClient. The rule: an option passed in code wins over the
// configuration.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { SettingError } from "../../core/mod.ts";
import { HttpClient } from "../../http/mod.ts";
import {
  LocalizationConfigurationError,
  LocalizationLoadError,
  LocalizationManager,
} from "../../localization/mod.ts";
import { sendJson, startTestServer } from "../_support/http_server.ts";

const RESOURCES: Record<string, unknown> = {
  en: { home: { title: "Welcome", help: "Help" } },
  fr: { home: { title: "Bienvenue" } },
  de: { home: { title: "Willkommen" } },
};

async function configOf(
  values: Record<string, string>,
): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider(values));
  await config.loadConfiguration();
  return config;
}

function serveResources() {
  return startTestServer((request, response) => {
    const culture = /\/i18n\/([\w-]+)\.json$/.exec(request.url)?.[1];
    const body = culture === undefined ? undefined : RESOURCES[culture];
    if (body === undefined) sendJson(response, 404, { message: "none" });
    else sendJson(response, 200, body);
  });
}

test("LocalizationManager.fromConfiguration loads over HTTP from localization:resourceUrl", async () => {
  await using server = await serveResources();
  const config = await configOf({
    "localization:defaultCulture": "fr-CA",
    "localization:fallbackCulture": "en",
    "localization:resourceUrl": `${server.url}/i18n/{culture}.json`,
    "localization:cache:maxSize": "10",
    "localization:cache:ttl": "0",
  });
  const manager = LocalizationManager.fromConfiguration(config);
  assert.equal(manager.culture, "fr-CA");
  assert.equal(manager.fallbackCulture, "en");
  await manager.setCulture(manager.culture);
  assert.equal(manager.t("home.title"), "Bienvenue");
  assert.equal(manager.t("home.help"), "Help");
  assert.equal(manager.t("home.none"), "[home.none]");
  const loads = server.requests.length; // fr-CA (404), fr, en
  assert.equal(loads, 3);
  // The cache keeps what was found: switching away and back loads "de", and
  // asks again only for "fr-CA", which the server does not have.
  await manager.setCulture("de");
  await manager.setCulture("fr-CA");
  assert.deepEqual(
    server.requests.slice(loads).map((request) => request.url).sort(),
    ["/i18n/de.json", "/i18n/fr-CA.json"],
  );
  assert.equal(manager.t("home.title"), "Bienvenue");
});

test("LocalizationManager.fromConfiguration reads JSON files from localization:resourcePath", async () => {
  const dir = await mkdtemp(join(tmpdir(), "kit-localization-config-"));
  try {
    for (const [culture, texts] of Object.entries(RESOURCES)) {
      await writeFile(join(dir, `${culture}.json`), JSON.stringify(texts));
    }
    const config = await configOf({
      "localization:defaultCulture": "de",
      "localization:fallbackCulture": "en",
      "localization:resourcePath": join(dir, "{culture}.json"),
    });
    const manager = LocalizationManager.fromConfiguration(config);
    await manager.setCulture(manager.culture);
    assert.equal(manager.t("home.title"), "Willkommen");
    assert.equal(manager.t("home.help"), "Help");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("LocalizationManager.fromConfiguration: options in code win over the configuration", async () => {
  await using server = await serveResources();
  const config = await configOf({
    "localization:defaultCulture": "de",
    "localization:fallbackCulture": "not a culture: the code sets it",
    "localization:resourcePath": "/nonexistent/{culture}.json",
    "localization:timeout": "not read either",
  });
  const manager = LocalizationManager.fromConfiguration(config, {
    culture: "fr",
    fallbackCulture: "en",
    resourceUrl: `${server.url}/i18n/{culture}.json`,
    timeout: 5_000,
    cache: false,
    missingTranslationHandler: (key) => `?${key}?`,
  });
  assert.equal(manager.culture, "fr");
  await manager.setCulture("fr");
  assert.equal(manager.t("home.title"), "Bienvenue");
  assert.equal(manager.t("nope"), "?nope?");
  const loads = server.requests.length;
  await manager.setCulture("fr"); // no cache: loads again
  assert.equal(server.requests.length, loads * 2);
  // Defaults without any localization key but a provider from code.
  const bare = LocalizationManager.fromConfiguration(await configOf({}), {
    resourceUrl: `${server.url}/i18n/{culture}.json`,
  });
  assert.equal(bare.culture, "en");
  assert.equal(bare.fallbackCulture, undefined);
});

test("LocalizationManager.fromConfiguration uses the HttpClient given in code", async () => {
  await using server = await serveResources();
  const config = await configOf({
    "localization:resourceUrl": "/i18n/{culture}.json",
  });
  const client = new HttpClient(server.url, { retryAttempts: 0 });
  const manager = LocalizationManager.fromConfiguration(config, { client });
  await manager.setCulture("de");
  assert.equal(manager.t("home.title"), "Willkommen");
  assert.equal(server.requests[0].url, "/i18n/de.json");
});

test("LocalizationManager.fromConfiguration: localization:timeout bounds an HTTP load", async () => {
  await using server = await startTestServer(() => {}); // never answers
  const config = await configOf({
    "localization:resourceUrl": `${server.url}/i18n/{culture}.json`,
    "localization:timeout": "100",
  });
  const manager = LocalizationManager.fromConfiguration(config);
  await assert.rejects(manager.setCulture("en"), (error: unknown) => {
    assert.ok(error instanceof LocalizationLoadError);
    assert.match(
      error.message,
      /^Failed to load translations for culture "en" from http:\/\/127\.0\.0\.1:\d+\/i18n\/en\.json: no answer within 100 ms \(the loader's timeout\)$/,
    );
    return true;
  });
});

test("LocalizationManager.fromConfiguration: bad or missing values name the key", async () => {
  const cases: [Record<string, string>, string, string][] = [
    [
      {},
      "localization:resourceUrl",
      "Neither localization:resourceUrl nor localization:resourcePath is set: " +
      "set one to an address or file path template holding {culture} (for " +
      'example "/api/localization/{culture}.json" or ' +
      '"./locales/{culture}.json"), or pass options.provider to ' +
      "LocalizationManager.fromConfiguration",
    ],
    [
      {
        "localization:resourceUrl": "/i18n/{culture}.json",
        "localization:resourcePath": "./i18n/{culture}.json",
      },
      "localization:resourceUrl",
      "localization:resourceUrl and localization:resourcePath are both set: " +
      "keep localization:resourceUrl to load translations over HTTP or " +
      "localization:resourcePath to read them from files",
    ],
    [
      { "localization:resourcePath": "./i18n/en.json" },
      "localization:resourcePath",
      'localization:resourcePath must contain the placeholder {culture}: "./i18n/en.json"',
    ],
    [
      {
        "localization:resourceUrl": "/i18n/{culture}.json",
        "localization:defaultCulture": "en_US",
      },
      "localization:defaultCulture",
      'localization:defaultCulture must be a BCP 47 culture name such as "en" or "fr-CA": "en_US"',
    ],
    [
      {
        "localization:resourceUrl": "/i18n/{culture}.json",
        "localization:fallbackCulture": "??",
      },
      "localization:fallbackCulture",
      'localization:fallbackCulture must be a BCP 47 culture name such as "en" or "fr-CA": "??"',
    ],
    [
      {
        "localization:resourceUrl": "/i18n/{culture}.json",
        "localization:cache:maxSize": "0",
      },
      "localization:cache:maxSize",
      'localization:cache:maxSize must be a whole number >= 1: "0"',
    ],
    [
      {
        "localization:resourceUrl": "/i18n/{culture}.json",
        "localization:cache:ttl": "1h",
      },
      "localization:cache:ttl",
      'localization:cache:ttl must be a whole number of milliseconds >= 0: "1h"',
    ],
    [
      {
        "localization:resourceUrl": "/i18n/{culture}.json",
        "localization:timeout": "-5",
      },
      "localization:timeout",
      'localization:timeout must be a whole number of milliseconds >= 0: "-5"',
    ],
    // A password in an address is masked; a long value is cut.
    [
      {
        "localization:resourceUrl":
          "https://app:hunter2@i18n.example.com/en.json",
      },
      "localization:resourceUrl",
      'localization:resourceUrl must contain the placeholder {culture}: "https://app:***@i18n.example.com/en.json"',
    ],
    [
      {
        "localization:resourceUrl": "/i18n/{culture}.json",
        "localization:defaultCulture": "x".repeat(1000),
      },
      "localization:defaultCulture",
      `localization:defaultCulture must be a BCP 47 culture name such as "en" or "fr-CA": "${
        "x".repeat(57)
      }..."`,
    ],
  ];
  for (const [values, key, message] of cases) {
    const config = await configOf(values);
    assert.throws(
      () => LocalizationManager.fromConfiguration(config),
      (error: unknown) => {
        assert.ok(error instanceof LocalizationConfigurationError);
        assert.equal(error.key, key);
        assert.equal(error.message, message);
        return true;
      },
    );
  }
});

test("LocalizationManager.fromConfiguration: a bad value from a variable is a SettingError naming the variable as its source", async () => {
  const name = "KITSETTINGS_LOCALIZATION__TIMEOUT";
  const saved = process.env[name];
  process.env[name] = "soon";
  try {
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({
        "localization:resourceUrl": "/i18n/{culture}.json",
      }),
    );
    config.addEnvironmentVariables("KITSETTINGS");
    await config.loadConfiguration();
    assert.throws(
      () => LocalizationManager.fromConfiguration(config),
      (error: unknown) => {
        assert.ok(error instanceof LocalizationConfigurationError);
        assert.ok(error instanceof SettingError);
        assert.equal(error.key, "localization:timeout");
        assert.equal(error.source, name);
        assert.equal(
          error.message,
          'localization:timeout must be a whole number of milliseconds >= 0: "soon"',
        );
        return true;
      },
    );
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
});
