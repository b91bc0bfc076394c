// features:enableInternationalization=false (FEATURE_INTERNATIONALIZATION):
// what is built from configuration serves the default culture only. The
// translations come from a real loopback server, which shows that no other
// culture is ever asked for; the line that says so goes once to the running
// application's log under kit.localization.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { Application } from "../../platform/mod.ts";
import {
  type ILogProvider,
  type LogEntry,
  LoggerManager,
  LogLevel,
} from "../../logging/mod.ts";
import {
  LocalizationConfigurationError,
  LocalizationManager,
  NavigatorCultureProvider,
} from "../../localization/mod.ts";
import {
  sendJson,
  startTestServer,
  type TestServer,
} from "../_support/http_server.ts";

const RESOURCES: Record<string, unknown> = {
  "en-US": { home: { title: "Welcome" } },
  "fr-FR": { home: { title: "Bienvenue" } },
  "de-DE": { home: { title: "Willkommen" } },
};

function serveResources(): Promise<TestServer> {
  return startTestServer((request, response) => {
    const culture = /\/i18n\/([\w-]+)\.json$/.exec(request.url)?.[1];
    const body = culture === undefined ? undefined : RESOURCES[culture];
    if (body === undefined) sendJson(response, 404, { message: "none" });
    else sendJson(response, 200, body);
  });
}

/**
 * A configuration whose switch comes from the real FEATURE_INTERNATIONALIZATION
 * variable (set while it loads, then restored), the rest from memory.
 */
async function configOf(
  server: TestServer,
  feature: string | undefined,
  values: Record<string, string> = {},
): Promise<ConfigurationManager> {
  const saved = process.env.FEATURE_INTERNATIONALIZATION;
  if (feature === undefined) delete process.env.FEATURE_INTERNATIONALIZATION;
  else process.env.FEATURE_INTERNATIONALIZATION = feature;
  try {
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({
        "localization:defaultCulture": "en-US",
        "localization:supportedCultures": "en-US,fr-FR,de-DE",
        "localization:resourceUrl": `${server.url}/i18n/{culture}.json`,
        ...values,
      }),
    );
    config.addStandardVariables();
    await config.loadConfiguration();
    return config;
  } finally {
    if (saved === undefined) delete process.env.FEATURE_INTERNATIONALIZATION;
    else process.env.FEATURE_INTERNATIONALIZATION = saved;
  }
}

function asked(server: TestServer): string[] {
  return server.requests.map((request) => request.url);
}

function recorder(): { provider: ILogProvider; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    provider: {
      isEnabled: () => true,
      log: (entry) => {
        entries.push(entry);
        return Promise.resolve();
      },
    },
  };
}

const FRENCH = new Request("http://localhost/?culture=fr-FR", {
  headers: { "accept-language": "fr-FR, de;q=0.5", cookie: "lang=de-DE" },
});

describe("features:enableInternationalization=false", () => {
  it("forRequest, forCulture and setCulture all serve the default culture, and no other culture is loaded", async () => {
    await using server = await serveResources();
    const config = await configOf(server, "false");
    assert.equal(
      config.getSource("features:enableInternationalization"),
      "env FEATURE_INTERNATIONALIZATION",
    );
    const manager = LocalizationManager.fromConfiguration(config);
    assert.deepEqual(manager.supportedCultures, ["en-US"]);
    const byRequest = await manager.forRequest(FRENCH, { cookie: "lang" });
    assert.equal(byRequest.culture, "en-US");
    assert.equal(byRequest.t("home.title"), "Welcome");
    const byCulture = await manager.forCulture("de-DE");
    assert.equal(byCulture.culture, "en-US");
    await manager.setCulture("fr-FR");
    assert.equal(manager.culture, "en-US");
    assert.equal(manager.t("home.title"), "Welcome");
    // Only the default culture's own chain: en-US, then en (not found).
    const urls = asked(server);
    assert.ok(urls.length > 0);
    assert.deepEqual(
      urls.filter((url) => !/\/i18n\/en(?:-US)?\.json$/.test(url)),
      [],
      urls.join("\n"),
    );
    // A malformed culture is still refused.
    await assert.rejects(() => manager.forCulture("../etc"), {
      name: "InvalidCultureError",
    });
  });

  it("NavigatorCultureProvider.fromConfiguration starts at the default culture whatever the user prefers", async () => {
    await using server = await serveResources();
    const config = await configOf(server, "0");
    const provider = NavigatorCultureProvider.fromConfiguration(config, {
      navigator: { languages: ["fr-FR", "de-DE"] },
    });
    assert.equal(provider.culture, "en-US");
    assert.deepEqual(provider.languages, []);
  });

  it("says so once, as an info line under kit.localization in the application's log", async () => {
    await using server = await serveResources();
    const config = await configOf(server, "false");
    const { provider, entries } = recorder();
    const app = await Application.start({
      configuration: () => config,
      logging: () =>
        new LoggerManager().configure({
          level: "debug",
          providers: [provider],
        }),
      platform: (services) => {
        services.register(
          "localization",
          () => LocalizationManager.fromConfiguration(config),
        );
      },
    });
    try {
      app.services.get<LocalizationManager>("localization");
      // Built again from the same configuration: no second line.
      LocalizationManager.fromConfiguration(config);
      NavigatorCultureProvider.fromConfiguration(config, { navigator: {} });
    } finally {
      await app.stop();
    }
    const own = entries.filter((entry) =>
      entry.category === "kit.localization"
    );
    assert.equal(own.length, 1, own.map((entry) => entry.message).join("\n"));
    assert.equal(own[0].level, LogLevel.Info);
    assert.equal(
      own[0].message,
      "features:enableInternationalization=false (from env FEATURE_INTERNATIONALIZATION): localization serves en-US only and loads no other culture",
    );
  });

  it("on (true, or not set), requests get their own culture as before", async () => {
    await using server = await serveResources();
    for (const feature of ["true", undefined]) {
      const config = await configOf(server, feature);
      const manager = LocalizationManager.fromConfiguration(config);
      const translator = await manager.forRequest(FRENCH);
      assert.equal(translator.culture, "fr-FR");
    }
  });

  it("a value that is no switch fails, naming the key, the value and the variable", async () => {
    await using server = await serveResources();
    const config = await configOf(server, "nein");
    assert.throws(
      () => LocalizationManager.fromConfiguration(config),
      (error: unknown) => {
        assert.ok(error instanceof LocalizationConfigurationError);
        assert.equal(error.key, "features:enableInternationalization");
        assert.equal(
          error.message,
          'features:enableInternationalization must be true or false, got "nein" (from env FEATURE_INTERNATIONALIZATION)',
        );
        assert.equal(error.source, "FEATURE_INTERNATIONALIZATION");
        return true;
      },
    );
  });
});
