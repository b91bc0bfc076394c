// The consumer check's application (scripts/consumer_check.ts): compiled by
// tsc against the packed npm tarballs, once with the common Node.js tsconfig
// the README describes (CommonJS, moduleResolution node) and once with
// nodenext as ESM, then run with Node. It uses every package.
import { format, toUpperSnakeCase } from "@vendor/kit-core";
import {
  Application,
  defineApplication,
  EventAggregator,
  ServiceLocator,
  ServiceNotFoundError,
} from "@vendor/kit-platform";
import {
  ConfigurationManager,
  MemoryProvider,
} from "@vendor/kit-platform-configuration";
import {
  type ILogProvider,
  type LogEntry,
  LoggerManager,
  LogLevel,
} from "@vendor/kit-platform-logging";
import { HttpClient, HttpError } from "@vendor/kit-platform-http";
import {
  DefaultCultureProvider,
  LocalizationManager,
  MapLocalizationProvider,
} from "@vendor/kit-platform-localization";
import {
  CacheManager,
  MemoryCacheProvider,
} from "@vendor/kit-platform-caching";
import {
  type AnalyticsEvent,
  AnalyticsManager,
  type IAnalyticsProvider,
} from "@vendor/kit-platform-analytics";

interface Events {
  "user:created": { name: string };
}

async function main(): Promise<string[]> {
  const lines: string[] = [];

  // Step 1: configuration, registered under "config".
  const config = new ConfigurationManager();
  config.addProvider(
    new MemoryProvider(
      new Map([["api:baseUrl", "http://127.0.0.1:9/api"], [
        "app:name",
        "consumer",
      ]]),
    ),
  );
  await config.loadConfiguration();
  ServiceLocator.register("config", () => config);
  const cfg = ServiceLocator.get<ConfigurationManager>("config");
  lines.push(cfg.getValue<string>("app:name"));

  // Step 2: logging, with an application-defined provider.
  const entries: LogEntry[] = [];
  const memoryLog: ILogProvider = {
    log: (entry) => {
      entries.push(entry);
      return Promise.resolve();
    },
    isEnabled: (level) => level >= LogLevel.Info,
  };
  const logging = new LoggerManager();
  logging.configure({ level: "info", providers: [memoryLog] });
  logging.getLogger("app").info("started", { password: "hidden" });
  logging.getLogger("app").debug("not written");
  await logging.flush();
  lines.push(`${entries.length} log entry`);

  // Step 3: platform services.
  const http = new HttpClient(cfg.getValue<string>("api:baseUrl"), {
    timeout: 1000,
    retryAttempts: 0,
  });
  lines.push(
    typeof http.get === "function" && new HttpError(404, "x").status === 404
      ? "http"
      : "no http",
  );
  const cache = new CacheManager(new MemoryCacheProvider({ maxSize: 10 }));
  lines.push(String(await cache.getOrSet("answer", () => Promise.resolve(42))));
  const localization = new LocalizationManager(
    new MapLocalizationProvider(
      new Map([["fr", new Map([["greeting", "Bonjour {0}"]])]]),
    ),
    new DefaultCultureProvider("fr"),
    (key) => `[${key}]`,
  );
  await localization.setCulture("fr");
  lines.push(localization.t("greeting", "Ada"));
  const tracked: AnalyticsEvent[] = [];
  const memoryAnalytics: IAnalyticsProvider = {
    track: (event) => {
      tracked.push(event);
    },
    page: () => {},
    identify: () => {},
    flush: async () => {},
    dispose: async () => {},
  };
  const analytics = new AnalyticsManager();
  analytics.addProvider(memoryAnalytics);
  analytics.track("signed_up", { plan: "pro" });
  await analytics.flush();
  lines.push(`${tracked.length} event`);

  // Step 4: application services.
  ServiceLocator.register("events", () => new EventAggregator<Events>());
  const events = ServiceLocator.get<EventAggregator<Events>>("events");
  events.subscribe("user:created", (user) => {
    lines.push(format("created {0}", user.name));
  });
  events.publish("user:created", { name: "Ada" });
  lines.push(toUpperSnakeCase("connectionString"));
  try {
    ServiceLocator.get("missing");
  } catch (error) {
    if (error instanceof ServiceNotFoundError) lines.push(error.message);
  }

  await analytics.dispose();
  await cache.dispose();
  await logging.dispose();
  await ServiceLocator.dispose();
  return lines;
}

// Services typed by their registrations, with no map written by hand: the
// chain each step returns types the names in the steps after it, in serve
// and in app.services; a name never registered must not compile (the
// expect-error lines below fail the build if it does).
async function typedServices(): Promise<string> {
  class Clock {
    now(): number {
      return 42;
    }
  }
  // Written apart from start(), as a generated app.ts shares them with its
  // tests: defineApplication keeps them typed.
  const options = defineApplication({
    configuration: () => ({ greeting: "hi" }),
    platform: (services) => services.register("clock", () => new Clock()),
    services: (services, config) =>
      services.register("greeter", (s) => ({
        greet: (): string => `${config.greeting} at ${s.get("clock").now()}`,
      })),
    serve: (services) => {
      // Only compiled, never called: a misspelt name is a compile error.
      const misspelt = (): unknown =>
        // @ts-expect-error a name never registered
        services.get("greter");
      void misspelt;
      return () => new Response(services.get("greeter").greet());
    },
    server: { port: 0, hostname: "127.0.0.1" },
  });
  const app = await Application.start(options);
  try {
    const greeting: string = app.services.get("greeter").greet();
    const config: { greeting: string } = app.services.get("config");
    const misspelt = (): unknown =>
      // @ts-expect-error a name never registered
      app.services.get("clok");
    void misspelt;
    return `${greeting} (${config.greeting})`;
  } finally {
    await app.stop();
  }
}

main().then(async (lines) => {
  lines.push(await typedServices());
  console.log(lines.join("|"));
  console.log("consumer ok");
}, (error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
