// The four-step start-up (configuration, logging, platform services,
// application services) with every package wired from one real
// ConfigurationManager: JSON files with a per-environment override and a
// memory source, logging to a real file, an HTTP client, localization and
// analytics against a real loopback server, and a cache on a real
// redis-server. This is where the packages' `fromConfiguration` readers meet
// the real configuration rather than a stand-in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventAggregator, ServiceLocator } from "../../platform/mod.ts";
import {
  ConfigurationManager,
  MemoryProvider,
  validateConfiguration,
} from "../../config/mod.ts";
import { type Logger, LoggerManager } from "../../logging/mod.ts";
import { ErrorInterceptor, HttpClient } from "../../http/mod.ts";
import {
  DefaultCultureProvider,
  HttpLocalizationLoader,
  LoaderLocalizationProvider,
  LocalizationManager,
} from "../../localization/mod.ts";
import { CacheManager, RemoteStoreCacheProvider } from "../../caching/mod.ts";
import {
  AnalyticsManager,
  CustomAnalyticsProvider,
} from "../../analytics/mod.ts";
import { sendJson, startTestServer } from "../_support/http_server.ts";
import { redisSkip, startRedisServer } from "../caching/_redis_server.ts";

interface User {
  id: string;
  name: string;
}
interface Events {
  "user:created": User;
}

test(
  "the four-step start-up wires every package from one configuration",
  {
    skip: redisSkip,
  },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "kit-startup-"));
    const redis = await startRedisServer({ password: "s3cret-redis" });
    let userFetches = 0;
    const server = await startTestServer((request, response) => {
      if (request.url === "/api/users/1") {
        userFetches++;
        sendJson(response, 200, { id: "1", name: "Ada" });
      } else if (request.url === "/api/localization/fr.json") {
        sendJson(response, 200, { home: { title: "Bienvenue {0}" } });
      } else if (request.url === "/collect") {
        sendJson(response, 200, { ok: true });
      } else {
        sendJson(response, 404, { message: `no route ${request.url}` });
      }
    });
    const locator = new ServiceLocator();
    try {
      const logFile = join(dir, "logs", "app.log");
      await writeFile(
        join(dir, "appsettings.json"),
        JSON.stringify({
          database: { connectionString: "postgres://app:pw@db/app" },
          api: {
            baseUrl: `${server.url}/api`,
            timeout: 5000,
            retryAttempts: 1,
          },
          logging: {
            level: "debug",
            providers: [{ type: "file", options: {} }],
          },
          analytics: {
            endpoint: `${server.url}/collect`,
            apiKey: "k-123",
            batchSize: 50,
          },
          cache: { redis: { host: "127.0.0.1", port: 1 } },
        }),
      );
      await writeFile(
        join(dir, "appsettings.production.json"),
        JSON.stringify({ logging: { level: "info" } }),
      );

      // Step 1: configuration, registered under "config" as a factory.
      const config = new ConfigurationManager({
        basePath: dir,
        environment: "production",
      });
      await config.addJsonFile("appsettings.json");
      await config.addJsonFile("appsettings.production.json", {
        optional: true,
      });
      config.addProvider(
        new MemoryProvider(
          new Map([
            ["cache:redis:port", String(redis.port)],
            ["cache:redis:password", "s3cret-redis"],
            ["logging:filePath", logFile],
          ]),
        ),
      );
      await config.loadConfiguration();
      validateConfiguration(config);
      locator.register("config", () => config);
      assert.equal(
        locator.get<ConfigurationManager>("config").getValue<string>(
          "logging:level",
        ),
        "info",
        "the production override replaced the base level",
      );

      // Step 2: logging from the configuration.
      locator.register(
        "logging",
        () => LoggerManager.fromConfiguration(config),
      );
      const logging = locator.get<LoggerManager>("logging");

      // Step 3: platform services.
      locator.register("events", () => new EventAggregator<Events>());
      locator.register("http", (l) => {
        const c = l.get<ConfigurationManager>("config");
        const client = new HttpClient(c.getValue<string>("api:baseUrl"), {
          timeout: Number(c.getValue("api:timeout")),
          retryAttempts: Number(c.getValue("api:retryAttempts")),
        });
        client.addInterceptor(new ErrorInterceptor());
        return client;
      });
      locator.register(
        "cache",
        (l) =>
          new CacheManager(
            RemoteStoreCacheProvider.fromConfiguration(
              l.get<ConfigurationManager>("config"),
              {
                keyPrefix: "startup:",
              },
            ),
          ),
      );
      locator.register("localization", (l) =>
        new LocalizationManager(
          new LoaderLocalizationProvider(
            new HttpLocalizationLoader("/localization/{culture}.json", {
              client: l.get<HttpClient>("http"),
            }),
          ),
          new DefaultCultureProvider("fr"),
          (key) => `[${key}]`,
        ));
      locator.register("analytics", (l) => {
        const analytics = new AnalyticsManager({ anonymousId: "anon-1" });
        analytics.addProvider(
          CustomAnalyticsProvider.fromConfiguration(
            l.get<ConfigurationManager>("config"),
          ),
        );
        return analytics;
      });

      // Step 4: application services.
      class UserService {
        readonly #log: Logger;
        constructor(
          readonly http: HttpClient,
          readonly cache: CacheManager,
          readonly events: EventAggregator<Events>,
          readonly analytics: AnalyticsManager,
          log: Logger,
        ) {
          this.#log = log;
        }
        async load(id: string): Promise<User> {
          const user = await this.cache.getOrSet<User>(
            `user:${id}`,
            () => this.http.get<User>(`/users/${id}`),
            {
              policy: { ttl: 60_000, refreshThreshold: 0.8, maxStale: 10_000 },
            },
          );
          this.#log.info("user loaded", { id, password: "hunter2" });
          this.analytics.track("user_loaded", { id });
          this.events.publish("user:created", user);
          return user;
        }
      }
      locator.register("users", (l) =>
        new UserService(
          l.get("http"),
          l.get("cache"),
          l.get("events"),
          l.get("analytics"),
          l.get<LoggerManager>("logging").getLogger("users"),
        ));

      const seen: string[] = [];
      locator.get<EventAggregator<Events>>("events").subscribe(
        "user:created",
        (user) => void seen.push(user.name),
      );
      const localization = locator.get<LocalizationManager>("localization");
      await localization.setCulture("fr");
      const users = locator.get<UserService>("users");
      const first = await users.load("1");
      const second = await users.load("1");

      assert.deepEqual(first, { id: "1", name: "Ada" });
      assert.deepEqual(second, first);
      assert.equal(userFetches, 1, "the second load came from Redis");
      assert.deepEqual(seen, ["Ada", "Ada"]);
      assert.equal(localization.t("home.title", first.name), "Bienvenue Ada");
      const raw = await redis.client();
      assert.ok(
        await raw.get("startup:user:1"),
        "the entry is in Redis under the prefix",
      );

      // Disposal, newest first: every buffered log line and event is delivered.
      await locator.dispose();
      assert.ok(logging !== undefined);
      const log = await readFile(logFile, "utf8");
      const lines = log.trim().split("\n").map((line) => JSON.parse(line));
      assert.equal(lines.length, 2);
      assert.equal(lines[0].message, "user loaded");
      assert.equal(lines[0].category, "users");
      assert.ok(
        !log.includes("hunter2"),
        "the password never reaches the file",
      );
      const batches = server.requests.filter((r) => r.url === "/collect");
      const events = batches.flatMap((r) =>
        JSON.parse(r.body).events as { name: string }[]
      );
      assert.equal(events.filter((e) => e.name === "user_loaded").length, 2);
      assert.equal(batches[0].headers["x-api-key"], "k-123");
    } finally {
      await locator.dispose().catch(() => {});
      await server.close();
      await redis.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
);
