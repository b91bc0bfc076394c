// The consumer check's browser application (scripts/consumer_check.ts): bundled
// with `deno bundle --platform browser` from the packed npm tarballs (so the
// `browser` export conditions are used) and run in a real headless Chromium
// page served from a loopback server. It backs the browser column of the
// README's "What runs where" table: every package is used the way a page
// would use it, and each server-only part must fail with its clear message.
// The page stores the outcome in `globalThis.kitBrowserResult`; the check
// also inspects what the server received.
import { format, toCamelCase } from "@vendor/kit-core";
import { EventAggregator, ServiceLocator, Signal } from "@vendor/kit-platform";
import {
  type AppConfig,
  appConfigSchema,
  ConfigurationManager,
  ConfigurationSourceError,
  DotEnvProvider,
  JsonUrlProvider,
  MemoryProvider,
} from "@vendor/kit-platform-configuration";
import {
  ConsoleLogProvider,
  FileLogProvider,
  LoggerManager,
  RemoteLogProvider,
} from "@vendor/kit-platform-logging";
import { HttpClient, type HttpRetryEvent } from "@vendor/kit-platform-http";
import {
  HttpLocalizationLoader,
  JsonFileLocalizationLoader,
  LoaderLocalizationProvider,
  LocalizationManager,
  NavigatorCultureProvider,
} from "@vendor/kit-platform-localization";
import {
  CacheManager,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
} from "@vendor/kit-platform-caching";
import {
  AnalyticsManager,
  CustomAnalyticsProvider,
} from "@vendor/kit-platform-analytics";

/** What the page reports to the check. */
export interface BrowserResult {
  ok: boolean;
  lines: string[];
  error?: string;
}

function expect(what: string, actual: unknown, expected: unknown): string {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(
      `${what}: expected ${JSON.stringify(expected)}, got ${
        JSON.stringify(actual)
      }`,
    );
  }
  return `${what}: ${JSON.stringify(actual)}`;
}

async function rejection(what: string, run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error(`${what}: expected a rejection, it succeeded`);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function main(): Promise<string[]> {
  const lines: string[] = [];

  // core and platform.
  lines.push(expect("core format", format("{0}-{1}", "a", 1), "a-1"));
  lines.push(
    expect("core toCamelCase", toCamelCase("api_base_url"), "apiBaseUrl"),
  );
  const signal = new Signal<number>();
  let signalled = 0;
  signal.add((value) => {
    signalled = value;
  });
  signal.dispatch(7);
  const events = new EventAggregator<{ ready: { at: string } }>();
  let readyAt = "";
  events.subscribe("ready", (event) => {
    readyAt = event.at;
  });
  events.publish("ready", { at: "page" });
  lines.push(
    expect("platform signal and events", [signalled, readyAt], [7, "page"]),
  );

  // Step 1: configuration from the page's server and from memory.
  const config = new ConfigurationManager();
  await config.addProvider(new JsonUrlProvider("/config/appsettings.json"));
  config.addProvider(
    new MemoryProvider({ "database:connectionString": "postgres://db/app" }),
  );
  await config.loadConfiguration();
  ServiceLocator.register("config", () => config);
  const cfg = ServiceLocator.get<ConfigurationManager>("config");
  const app: AppConfig = cfg.bind(appConfigSchema);
  lines.push(
    expect("config bind(appConfigSchema)", [
      app.api.baseUrl,
      app.api.timeout,
      app.api.retryAttempts,
      app.logging.level,
    ], ["http://kit.test/api", 2500, 3, "debug"]),
  );
  lines.push(
    expect(
      "config source of api:timeout",
      cfg.getSource("api:timeout"),
      // A relative URL is named in full, the page's host included.
      new URL("/config/appsettings.json", location.href).href,
    ),
  );
  const fileError = await rejection(
    "addJsonFile",
    () => new ConfigurationManager().addJsonFile("appsettings.json"),
  );
  lines.push(
    expect(
      "config addJsonFile in a browser",
      [fileError instanceof ConfigurationSourceError, message(fileError)],
      [
        true,
        "Configuration source appsettings.json needs a file system (Deno, Node.js or Bun); in a browser use JsonUrlProvider or MemoryProvider",
      ],
    ),
  );
  const dotEnvError = await rejection("DotEnvProvider", async () => {
    const manager = new ConfigurationManager();
    await manager.addProvider(new DotEnvProvider(".env"));
    await manager.loadConfiguration();
  });
  lines.push(
    expect(
      "config DotEnvProvider in a browser",
      [dotEnvError instanceof ConfigurationSourceError, message(dotEnvError)],
      [
        true,
        "Configuration source .env needs a file system (Deno, Node.js or Bun); in a browser use JsonUrlProvider or MemoryProvider",
      ],
    ),
  );

  // Step 2: logging to the console and to the page's server.
  const fileErrors: string[] = [];
  const logging = new LoggerManager();
  logging.configure({
    level: "debug",
    providers: [
      new ConsoleLogProvider(),
      new RemoteLogProvider({
        endpoint: "/logs",
        apiKey: "browser-key",
        flushInterval: 50,
      }),
      new FileLogProvider({
        filename: "logs/app.log",
        onError: (error) => fileErrors.push(error.message),
      }),
    ],
  });
  logging.getLogger("page").info("page started", {
    password: "hunter2",
    user: "ada",
  });
  await logging.flush();
  lines.push(
    expect(
      "logging FileLogProvider in a browser",
      fileErrors.some((text) =>
        text.includes(
          "FileLogProvider needs a file system (Deno, Node.js or Bun) to write logs/app.log",
        )
      ),
      true,
    ),
  );

  // Step 3: platform services. HTTP with a base relative to the page.
  const retries: HttpRetryEvent[] = [];
  const http = new HttpClient(cfg.getValue<string>("api:pagePath"), {
    retryAttempts: 2,
    retryDelay: 10,
    onRetry: (event) => retries.push(event),
  });
  const user = await http.get<{ id: number; name: string }>("users/1");
  lines.push(expect("http get", user, { id: 1, name: "Ada" }));
  const flaky = await http.get<{ attempt: number }>("flaky");
  lines.push(
    expect("http retry after a 503", [flaky.attempt, retries.length], [2, 1]),
  );

  const culture = new NavigatorCultureProvider({
    supportedCultures: ["en", "fr"],
  });
  const localization = new LocalizationManager(
    new LoaderLocalizationProvider(
      new HttpLocalizationLoader("locales/{culture}.json", { client: http }),
    ),
    culture,
  );
  const changes: string[] = [];
  localization.cultureChanged.add((name) => {
    changes.push(name);
  });
  const fromNavigator = culture.culture;
  await localization.setCulture(fromNavigator);
  const english = localization.translate("greeting", "Ada");
  await localization.setCulture("fr");
  lines.push(
    expect(
      "localization over HTTP with navigator.languages",
      [
        fromNavigator,
        english,
        localization.translate("greeting", "Ada"),
        changes,
      ],
      ["en", "Hello Ada", "Bonjour Ada", ["fr"]],
    ),
  );
  const localeFileError = await rejection(
    "JsonFileLocalizationLoader",
    () => new JsonFileLocalizationLoader("./locales/{culture}.json").load("fr"),
  );
  lines.push(
    expect(
      "localization JsonFileLocalizationLoader in a browser",
      message(localeFileError).includes(
        "JsonFileLocalizationLoader needs a file system",
      ),
      true,
    ),
  );

  const cache = new CacheManager(new MemoryCacheProvider({ maxSize: 10 }));
  let computed = 0;
  const factory = () => Promise.resolve(++computed);
  await cache.getOrSet("answer", factory);
  lines.push(
    expect("caching memory getOrSet", [
      await cache.getOrSet("answer", factory),
      computed,
    ], [1, 1]),
  );
  const storeErrors: string[] = [];
  const remote = new CacheManager(new RemoteStoreCacheProvider(), {
    onError: (error) =>
      storeErrors.push(`${error.message} ${message(error.cause)}`),
  });
  lines.push(
    expect(
      "caching Redis in a browser is a miss, reported",
      [
        await remote.getOrSet("k", () => Promise.resolve("computed")),
        storeErrors.some((text) =>
          text.includes("RemoteStoreCacheProvider needs a server runtime")
        ),
      ],
      ["computed", true],
    ),
  );

  const analytics = new AnalyticsManager({
    anonymousId: "browser-consumer",
    enableAutoPageTracking: true,
  });
  analytics.addProvider(
    new CustomAnalyticsProvider({ endpoint: "/collect", flushInterval: 50 }),
  );
  // The automatic page view leaves on the next task, so that providers added
  // right after the manager was created receive it: wait for it.
  for (let i = 0; analytics.stats.dispatched === 0 && i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  analytics.track("signed_up", { plan: "pro" });
  const flushed = await analytics.flush();
  lines.push(
    expect("analytics delivered (page view and track)", flushed, {
      delivered: 2,
      dropped: 0,
    }),
  );

  // Step 4 and shutdown: the log batch goes out on dispose at the latest.
  await analytics.dispose();
  await remote.dispose();
  await cache.dispose();
  await logging.dispose();
  await ServiceLocator.dispose();
  return lines;
}

const result: BrowserResult = { ok: false, lines: [] };
(globalThis as { kitBrowserResult?: BrowserResult }).kitBrowserResult =
  undefined;
main().then((lines) => {
  result.ok = true;
  result.lines = lines;
}, (error: unknown) => {
  result.error = error instanceof Error
    ? `${error.message}\n${error.stack ?? ""}`
    : String(error);
}).finally(() => {
  (globalThis as { kitBrowserResult?: BrowserResult }).kitBrowserResult =
    result;
});
