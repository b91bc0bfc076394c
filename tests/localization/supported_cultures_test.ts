// localization:supportedCultures read by what is built from configuration:
// LocalizationManager.fromConfiguration hands the list to forRequest (so a
// service no longer passes `cultures` to every call) and
// NavigatorCultureProvider.fromConfiguration picks among it. The list comes
// from a real appsettings.json or a real environment variable; the
// translations from real files. An option given in code wins, as in every
// fromConfiguration.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import {
  DefaultCultureProvider,
  InvalidCultureError,
  LocalizationConfigurationError,
  LocalizationManager,
  MapLocalizationProvider,
  NavigatorCultureProvider,
} from "../../localization/mod.ts";

const RESOURCES: Record<string, unknown> = {
  "en-US": { home: { title: "Welcome" } },
  "fr-FR": { home: { title: "Bienvenue" } },
  "de-DE": { home: { title: "Willkommen" } },
};

let dir: string;
let counter = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "kit-supported-cultures-"));
  for (const [culture, texts] of Object.entries(RESOURCES)) {
    await writeFile(join(dir, `${culture}.json`), JSON.stringify(texts));
  }
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A configuration from a real appsettings.json (the `localization` section
 * given) and the variables `env` sets under a prefix no other test uses.
 */
async function configOf(
  localization: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<ConfigurationManager> {
  const prefix = `KITSC${process.pid}X${++counter}`;
  const file = join(dir, `appsettings.${counter}.json`);
  await writeFile(
    file,
    JSON.stringify({
      localization: {
        resourcePath: join(dir, "{culture}.json"),
        defaultCulture: "en-US",
        ...localization,
      },
    }),
  );
  for (const [name, value] of Object.entries(env)) {
    process.env[`${prefix}_${name}`] = value;
  }
  try {
    const config = new ConfigurationManager();
    await config.addJsonFile(file);
    config.addEnvironmentVariables(prefix);
    await config.loadConfiguration();
    return config;
  } finally {
    for (const name of Object.keys(env)) {
      delete process.env[`${prefix}_${name}`];
    }
  }
}

function request(acceptLanguage: string): Request {
  return new Request("http://localhost/", {
    headers: { "accept-language": acceptLanguage },
  });
}

describe("LocalizationManager.fromConfiguration and localization:supportedCultures", () => {
  it("forRequest negotiates among the cultures of appsettings.json without being given them", async () => {
    const config = await configOf({
      supportedCultures: ["en-US", "fr-FR", "de-DE"],
    });
    const manager = LocalizationManager.fromConfiguration(config);
    assert.deepEqual(manager.supportedCultures, ["en-US", "fr-FR", "de-DE"]);
    const french = await manager.forRequest(request("fr-CH, fr;q=0.9"));
    assert.equal(french.culture, "fr-FR");
    assert.equal(french.t("home.title"), "Bienvenue");
    const austrian = await manager.forRequest(request("de-AT"));
    assert.equal(austrian.culture, "de-DE");
    // Nothing on offer fits: the first supported culture (no fallback set).
    const japanese = await manager.forRequest(request("ja"));
    assert.equal(japanese.culture, "en-US");
    const query = await manager.forRequest(
      new Request("http://localhost/?culture=fr"),
    );
    assert.equal(query.culture, "fr-FR");
  });

  it("reads APP_LOCALIZATION__SUPPORTED_CULTURES, names separated by commas", async () => {
    const config = await configOf({}, {
      LOCALIZATION__SUPPORTED_CULTURES: "en-US, de-DE",
    });
    const manager = LocalizationManager.fromConfiguration(config);
    assert.deepEqual(manager.supportedCultures, ["en-US", "de-DE"]);
    assert.equal((await manager.forRequest(request("de-CH"))).culture, "de-DE");
    // fr-FR has files but is not on offer.
    assert.equal((await manager.forRequest(request("fr"))).culture, "en-US");
  });

  it("the cultures given in code win: the option over the key, a call's own over both", async () => {
    const config = await configOf({
      supportedCultures: ["en-US", "bad culture"],
    });
    // The key is not even read, so its bad entry does not fail.
    const manager = LocalizationManager.fromConfiguration(config, {
      supportedCultures: ["en-US", "de-DE"],
    });
    assert.deepEqual(manager.supportedCultures, ["en-US", "de-DE"]);
    assert.equal((await manager.forRequest(request("de"))).culture, "de-DE");
    const call = await manager.forRequest(request("de, fr"), {
      cultures: ["en-US", "fr-FR"],
    });
    assert.equal(call.culture, "fr-FR");
  });

  it("a malformed entry fails, naming the key, the entry's position, its source and the entry", async () => {
    const fromVariable = await configOf({}, {
      LOCALIZATION__SUPPORTED_CULTURES: "en-US,en_GB",
    });
    const variable = fromVariable.getSource("localization:supportedCultures");
    assert.throws(
      () => LocalizationManager.fromConfiguration(fromVariable),
      (error: unknown) => {
        assert.ok(error instanceof LocalizationConfigurationError);
        assert.equal(error.key, "localization:supportedCultures");
        assert.equal(
          error.message,
          `localization:supportedCultures:1: must be a BCP 47 culture name such as "en" or "fr-CA", got "en_GB" (from ${variable})`,
        );
        return true;
      },
    );
    const fromFile = await configOf({ supportedCultures: ["en-US", "../x"] });
    assert.throws(
      () => LocalizationManager.fromConfiguration(fromFile),
      /^LocalizationConfigurationError: localization:supportedCultures:1: must be a BCP 47 culture name such as "en" or "fr-CA", got "\.\.\/x" \(from .*appsettings\.\d+\.json\)$/,
    );
  });

  it("without the key, forRequest takes the first valid culture asked for, as before", async () => {
    const config = await configOf({});
    const manager = LocalizationManager.fromConfiguration(config);
    assert.equal(manager.supportedCultures, undefined);
    assert.equal((await manager.forRequest(request("fr-FR"))).culture, "fr-FR");
  });
});

describe("supportedCultures given to the constructor", () => {
  it("is what forRequest matches against, and each culture is checked", async () => {
    const manager = new LocalizationManager(
      new MapLocalizationProvider(
        new Map([
          ["en", new Map([["hi", "Hello"]])],
          ["pt-BR", new Map([["hi", "Olá"]])],
        ]),
      ),
      new DefaultCultureProvider("en"),
      undefined,
      undefined,
      undefined,
      { supportedCultures: ["en", "pt-BR"] },
    );
    const translator = await manager.forRequest(request("pt-PT, pt;q=0.8"));
    assert.equal(translator.culture, "pt-BR");
    assert.throws(
      () =>
        new LocalizationManager(
          new MapLocalizationProvider(new Map()),
          new DefaultCultureProvider("en"),
          undefined,
          undefined,
          undefined,
          { supportedCultures: ["en", "pt_BR"] },
        ),
      InvalidCultureError,
    );
  });
});

describe("NavigatorCultureProvider.fromConfiguration", () => {
  it("picks among localization:supportedCultures, falling back to localization:defaultCulture", async () => {
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({
        "localization:defaultCulture": "de",
        "localization:supportedCultures": "en-US,fr,de",
      }),
    );
    await config.loadConfiguration();
    const french = NavigatorCultureProvider.fromConfiguration(config, {
      navigator: { languages: ["fr-BE", "en-GB"] },
    });
    assert.equal(french.culture, "fr");
    const none = NavigatorCultureProvider.fromConfiguration(config, {
      navigator: { languages: ["ja-JP"] },
    });
    assert.equal(none.culture, "de");
    // Code wins over both keys.
    const coded = NavigatorCultureProvider.fromConfiguration(config, {
      navigator: { languages: ["fr-BE", "ja-JP"] },
      supportedCultures: ["ja"],
      fallback: "en-US",
    });
    assert.equal(coded.culture, "ja");
  });

  it("a malformed entry fails as for the manager", async () => {
    const config = await configOf({ supportedCultures: "en-US;fr-FR" });
    assert.throws(
      () => NavigatorCultureProvider.fromConfiguration(config),
      /^LocalizationConfigurationError: localization:supportedCultures:0: must be a BCP 47 culture name such as "en" or "fr-CA", got "en-US;fr-FR" \(from .*appsettings\.\d+\.json\)$/,
    );
  });
});
