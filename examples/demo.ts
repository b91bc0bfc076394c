/**
 * Kit demo: the four-step start-up with every package, run by
 * {@linkcode Application}.
 *
 * It starts a small local HTTP server standing in for the application's
 * back end (users, translations, an analytics collector and `/health`), then:
 *
 * 1. builds the configuration (`examples/appsettings.json`, the
 *    `appsettings.development.json` override, `APP_*` variables) and registers
 *    it under `config`;
 * 2. sets up logging from it;
 * 3. registers platform services: the HTTP client, the cache, localization,
 *    analytics and the event aggregator;
 * 4. registers application services and uses them, then stops the
 *    application (services newest first, logging last).
 *
 * Run: `npx -y deno@2.9.6 task demo` (or `deno task demo`).
 *
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { format } from "../core/mod.ts";
import { Application, EventAggregator } from "../platform/mod.ts";
import {
  type ConfigurationManager,
  createConfiguration,
  MemoryProvider,
} from "../config/mod.ts";
import { type Logger, LoggerManager } from "../logging/mod.ts";
import { ErrorInterceptor, HttpClient } from "../http/mod.ts";
import {
  CamelCaseKeyResolver,
  DefaultCultureProvider,
  HttpLocalizationLoader,
  LoaderLocalizationProvider,
  LocalizationManager,
} from "../localization/mod.ts";
import { CacheManager, MemoryCacheProvider } from "../caching/mod.ts";
import { AnalyticsManager, CustomAnalyticsProvider } from "../analytics/mod.ts";

interface User {
  id: string;
  name: string;
}
interface AppEvents {
  "user:created": User;
}

// The stand-in back end, on an ephemeral loopback port.
const translations: Record<string, unknown> = {
  "en": { home: { title: "Welcome {0}", users: "{0} users loaded" } },
  "fr": { home: { title: "Bienvenue {0}", users: "{0} utilisateurs chargés" } },
};
let delivered = 0;
const server = createServer((request, response) => {
  const send = (status: number, body: unknown): void => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  };
  let body = "";
  request.on("data", (chunk) => body += chunk);
  request.on("end", () => {
    const url = request.url ?? "/";
    const culture = /^\/api\/localization\/([\w-]+)\.json$/.exec(url)?.[1];
    if (url === "/health") send(200, { status: "ok" });
    else if (url === "/api/users/1") send(200, { id: "1", name: "Ada" });
    else if (culture && translations[culture]) send(200, translations[culture]);
    else if (url === "/collect") {
      delivered += (JSON.parse(body) as { events: unknown[] }).events.length;
      send(200, { ok: true });
    } else send(404, { message: `Nothing at ${url}` });
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// Application services. The mailer reacts to user:created without the
// user service knowing it exists (an event, not a dependency) and
// unsubscribes when disposed.
class Mailer {
  readonly sent: string[] = [];
  readonly #unsubscribe: () => void;
  constructor(
    events: EventAggregator<AppEvents>,
    localization: LocalizationManager,
  ) {
    this.#unsubscribe = events.subscribe("user:created", (user) => {
      this.sent.push(localization.t("Home.Title", user.name));
    });
  }
  dispose(): void {
    this.#unsubscribe();
  }
}
class UserService {
  constructor(
    readonly http: HttpClient,
    readonly cache: CacheManager,
    readonly events: EventAggregator<AppEvents>,
    readonly analytics: AnalyticsManager,
    readonly log: Logger,
  ) {}
  async load(id: string): Promise<User> {
    const user = await this.cache.getOrSet(
      `user:${id}`,
      () => this.http.get<User>(`/users/${id}`),
    );
    this.analytics.track("user_loaded", { id });
    this.events.publish("user:created", user);
    return user;
  }
}
// The four steps, run in order by the application host. The analytics key
// comes from the environment (never from a committed file); the stand-in
// accepts any.
const app = await Application.start({
  // Step 1: configuration, registered under "config" as a factory.
  configuration: async () => {
    const config = await createConfiguration({
      basePath: dirname(fileURLToPath(import.meta.url)),
      environment: "development",
      validate: true,
    });
    // The back end's address is only known now: a memory source always wins.
    config.addProvider(
      new MemoryProvider(
        new Map([
          ["api:baseUrl", `${origin}/api`],
          ["analytics:endpoint", `${origin}/collect`],
          [
            "analytics:apiKey",
            Deno.env.get("ANALYTICS_API_KEY") ?? crypto.randomUUID(),
          ],
        ]),
      ),
    );
    await config.loadConfiguration();
    return config;
  },
  // Step 2: logging, from `logging:level` and `logging:providers`.
  logging: (config) => LoggerManager.fromConfiguration(config),
  // Step 3: platform services.
  platform: (services, config) => {
    services.register("events", () => new EventAggregator<AppEvents>());
    services.register(
      "http",
      () =>
        HttpClient.fromConfiguration(config, { retryDelay: 200 })
          .addInterceptor(new ErrorInterceptor()),
    );
    services.register("cache", () =>
      new CacheManager(
        new MemoryCacheProvider({
          maxSize: 1000,
          defaultTtl: 300_000,
          cleanupInterval: 60_000,
        }),
      ));
    services.register("localization", (l) => {
      const manager = new LocalizationManager(
        new LoaderLocalizationProvider(
          new HttpLocalizationLoader("/localization/{culture}.json", {
            client: l.get("http"),
          }),
        ),
        new DefaultCultureProvider("en"),
        (key) => `[${key}]`,
      );
      manager.setKeyResolver(new CamelCaseKeyResolver());
      return manager;
    });
    services.register("analytics", () =>
      new AnalyticsManager().addProvider(
        CustomAnalyticsProvider.fromConfiguration(config),
      ));
  },
  // Step 4: application services (below).
  services: (services) => {
    services.register(
      "mailer",
      (l) => new Mailer(l.get("events"), l.get("localization")),
    );
    services.register("users", (l) =>
      new UserService(
        l.get("http"),
        l.get("cache"),
        l.get("events"),
        l.get("analytics"),
        l.get<LoggerManager>("logging").getLogger("users"),
      ));
  },
  shutdownTimeout: 5_000,
});
const services = app.services;
const config = services.get<ConfigurationManager>("config");
const log = services.get<LoggerManager>("logging").getLogger("demo");
log.info("configuration loaded", {
  keys: config.explain().length,
  apiKey: "never printed",
});

const localization = services.get<LocalizationManager>("localization");
localization.cultureChanged.add((culture) =>
  log.info("culture changed", { culture })
);
await localization.setCulture("en");
const mailer = services.get<Mailer>("mailer");
const users = services.get<UserService>("users");
await users.load("1");
await localization.setCulture("fr");
await users.load("1"); // from the cache this time
log.info(format("{0} mails: {1}", mailer.sent.length, mailer.sent.join(" | ")));
log.info(localization.t("home.users", 2));
log.info("cache", { ...services.get<CacheManager>("cache").stats() });
log.info("health", { ...await app.health() });

try {
  services.get("usres");
} catch (error) {
  log.warning((error as Error).message.replace("\n", " "));
}
try {
  await services.get<HttpClient>("http").get("/missing");
} catch (error) {
  log.warning("expected failure", { error: (error as Error).message });
}

// Shutdown: services newest first (analytics flushed), logging last.
const report = await app.stop();
server.close();
console.log(
  `demo finished: ${delivered} analytics events delivered, shutdown ${
    report.ok ? "clean" : "incomplete"
  }`,
);
