// The service's start-up, in the host's four steps: configuration, logging,
// platform services (cache, localization, analytics, events), application
// services (the user store, the subscribers, the HTTP server).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  type Application,
  type ApplicationRunOptions,
  EventAggregator,
} from "@vendor/kit-platform";
import {
  type ConfigurationManager,
  createConfiguration,
} from "@vendor/kit-platform-configuration";
import { LoggerManager } from "@vendor/kit-platform-logging";
import {
  CacheManager,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
} from "@vendor/kit-platform-caching";
import {
  AnalyticsManager,
  CustomAnalyticsProvider,
} from "@vendor/kit-platform-analytics";
import { Localizer } from "./localizer.ts";
import { Authenticator } from "./auth.ts";
import { pageAssets } from "./page.ts";
import { PostgresUserStore } from "./postgres_user_store.ts";
import {
  createRoutes,
  GREETINGS,
  type ServiceEvents,
  USERS,
} from "./routes.ts";
import { listen, type RunningServer } from "./serve.ts";
import { MemoryUserStore, type UserStore } from "./users.ts";

/** Options of {@linkcode serviceOptions}, mostly for tests. */
export interface ServiceOptions {
  /** The folder of `appsettings*.json` and `locales/`. Default: found next to this file or one level up (`dist/`). */
  root?: string;
  /** Called once the server listens, with its address. */
  onListen?: (url: string) => void;
}

/** The folder holding appsettings.json: beside this file, or above `dist/`. */
export function serviceRoot(): string {
  const configured = process.env.KIT_CONFIG_PATH;
  if (configured) return configured;
  const here = dirname(fileURLToPath(import.meta.url));
  return existsSync(join(here, "appsettings.json")) ? here : dirname(here);
}

function numberIn(
  config: ConfigurationManager,
  key: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = config.getValue<unknown>(key, fallback);
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `${key} must be a whole number from ${min} to ${max}: ${String(raw)}`,
    );
  }
  return value;
}

function flag(config: ConfigurationManager, key: string): boolean {
  const value = config.getValue<unknown>(key, true);
  return value === true || String(value).toLowerCase() === "true";
}

/**
 * The start-up of the example service, for `Application.run` (or
 * `Application.start` in tests).
 *
 * @param options Root folder and listen callback.
 * @returns The application options.
 */
export function serviceOptions(
  options: ServiceOptions = {},
): ApplicationRunOptions<Record<string, unknown>, ConfigurationManager> {
  const root = options.root ?? serviceRoot();
  return {
    // Step 1: appsettings.json, appsettings.<RUNTIME_ENV>.json, .env, the
    // standard variables (DB_CONNECTION_STRING, REDIS_HOST…), APP_* ones.
    configuration: () =>
      createConfiguration({ basePath: root, validate: false }),

    // Step 2: logging from logging:level and logging:providers.
    logging: (config) => new LoggerManager().fromConfiguration(config),

    // Step 3: platform services.
    platform: async (services, config, app) => {
      services.register("events", () => new EventAggregator<ServiceEvents>());
      // Redis when REDIS_HOST is set, else memory. The cache manager's own
      // checkHealth() becomes the "cache" health check: degraded while
      // Redis is down (the cache then runs on misses).
      services.register("cache", () => {
        const cache = new CacheManager(
          config.getValue<string>("cache:redis:host", "") !== ""
            ? RemoteStoreCacheProvider.fromConfiguration(config)
            : new MemoryCacheProvider({
              maxSize: numberIn(config, "cache:memory:maxSize", 1000, 1, 1e7),
              defaultTtl: numberIn(
                config,
                "cache:memory:defaultTtl",
                300_000,
                1,
                2 ** 31 - 1,
              ),
              cleanupInterval: numberIn(
                config,
                "cache:memory:cleanupInterval",
                60_000,
                1,
                2 ** 31 - 1,
              ),
            }),
        );
        cache.setPolicy(GREETINGS, {
          ttl: 900_000,
          refreshThreshold: 0.8,
          maxStale: 300_000,
        });
        cache.setPolicy(USERS, { ttl: 60_000 });
        return cache;
      }, { eager: true });
      const localizer = await Localizer.load(config, join(root, "locales"));
      services.register("localization", () => localizer);
      services.register("analytics", () => {
        const analytics = new AnalyticsManager();
        if (
          flag(config, "features:enableAnalytics") &&
          config.hasValue("analytics:endpoint")
        ) {
          analytics.addProvider(
            CustomAnalyticsProvider.fromConfiguration(config),
          );
        }
        return analytics;
      }, { eager: true });
      // A remote log or analytics collector that is down leaves the service
      // working: those checks count as degraded, not unhealthy.
      const logging = services.get("logging") as LoggerManager;
      app.addHealthCheck("logging", (signal) => logging.checkHealth(signal), {
        critical: false,
      });
      const analytics = services.get("analytics") as AnalyticsManager;
      app.addHealthCheck(
        "analytics",
        (signal) => analytics.checkHealth(signal),
        { critical: false },
      );
    },

    // Step 4: the application's services.
    services: async (services, config, app) => {
      const logger = (services.get("logging") as LoggerManager).getLogger(
        "service",
      );
      let users: UserStore;
      const connectionString = config.getValue<string>(
        "database:connectionString",
        "",
      );
      if (connectionString.trim() !== "") {
        const store = await PostgresUserStore.connect({
          connectionString,
          poolSize: numberIn(config, "database:poolSize", 10, 1, 100),
          timeout: numberIn(config, "database:timeout", 30_000, 1000, 60_000),
          onError: (error) =>
            logger.warning(`PostgreSQL connection lost: ${error.message}`),
        });
        // Its checkHealth() becomes the "database" health check.
        services.register("database", () => store, { eager: true });
        users = store;
      } else {
        users = new MemoryUserStore();
        logger.info(
          "DB_CONNECTION_STRING is not set: users are kept in memory",
        );
      }
      const events = services.get("events") as EventAggregator<ServiceEvents>;
      const cache = services.get("cache") as CacheManager;
      const analytics = services.get("analytics") as AnalyticsManager;
      // Subscribers of user:created, unsubscribed when disposed.
      services.register("userSubscribers", () => {
        const detach = [
          events.subscribe("user:created", (user) => {
            analytics.track("user_created", { userId: user.id });
          }),
          events.subscribe("user:created", (user) => {
            void cache.area(USERS).delete(user.id).catch(() => {});
          }),
        ];
        return { dispose: () => detach.forEach((remove) => remove()) };
      }, { eager: true });

      // The page's sign-in: JWT_SECRET signs the access tokens.
      const auth = Authenticator.fromConfiguration(config);
      if (auth.generatedSecret) {
        logger.info(
          "JWT_SECRET is not set: access tokens are signed with a random key and end with the process",
        );
      }
      const routes = createRoutes({
        health: app.healthHandler(),
        localizer: services.get("localization") as Localizer,
        cache,
        users,
        events,
        auth,
        page: pageAssets(),
        analytics,
        logger,
      });
      const handler = app.handle((request: Request) => routes.fetch(request));
      const port = numberIn(
        config,
        "server:port",
        3000,
        0,
        65_535,
      );
      const envPort = process.env.PORT;
      const hostname = process.env.HOST ||
        config.getValue<string>("server:host", "0.0.0.0");
      let server: RunningServer | undefined;
      await app.addHostedService("http", {
        start: async () => {
          server = await listen(
            handler,
            envPort ? Number(envPort) : port,
            hostname,
          );
          logger.info(
            `Kit example service listening on ${server.url} (${server.kind})`,
          );
          options.onListen?.(server.url);
        },
        stop: async () => {
          await server?.close();
        },
      });
    },
  };
}

/** The type of the running service, for tests. */
export type ServiceApplication = Application<Record<string, unknown>>;
