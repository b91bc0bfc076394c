// The service's start-up, in the host's four steps: configuration, logging,
// platform services (cache, localization, analytics, events, the database),
// application services (the user store, the subscribers); then `serve` hands
// the routes to the host, which listens, answers the health probes and
// drains on stop.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import {
  type Application,
  type ApplicationRunOptions,
  EventAggregator,
} from "@vendor/kit-platform";
import {
  appConfigSchema,
  type ConfigurationManager,
  createConfiguration,
} from "@vendor/kit-platform-configuration";
import { kit } from "@vendor/kit-platform/hono";
import { LoggerManager } from "@vendor/kit-platform-logging";
import {
  CacheManager,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
} from "@vendor/kit-platform-caching";
import {
  addDatabase,
  type DatabaseSession,
} from "@vendor/kit-platform/database";
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
import { MemoryUserStore, type UserStore } from "./users.ts";

/** Options of {@linkcode serviceOptions}, mostly for tests. */
export interface ServiceOptions {
  /** The folder of `appsettings*.json` and `locales/`. Default: found next to this file or one level up (`dist/`). */
  root?: string;
}

/** The folder holding appsettings.json: beside this file, or above `dist/`. */
export function serviceRoot(): string {
  const configured = process.env.KIT_CONFIG_PATH;
  if (configured) return configured;
  const here = dirname(fileURLToPath(import.meta.url));
  return existsSync(join(here, "appsettings.json")) ? here : dirname(here);
}

const whole = (min: number, max: number) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const { database, logging, features } = appConfigSchema.entries;

/**
 * The service's settings: Kit's `logging`, `features` and `database`
 * sections (the connection string optional: without it users stay in
 * memory) and the memory cache's sizes. Values from the environment
 * (`APP_CACHE__MEMORY__MAXSIZE=5000`) are read as numbers, and a bad one
 * fails start-up naming the key and its source. Keys not described here
 * (`server`, `localization`, `analytics`…) are kept as the sources gave them.
 */
export const serviceSchema = v.object({
  logging,
  features,
  database: v.optional(
    v.object({
      ...database.entries,
      connectionString: v.optional(v.string(), ""),
    }),
    {},
  ),
  cache: v.optional(
    v.object({
      memory: v.optional(
        v.object({
          maxSize: v.optional(whole(1, 1e7), 1000),
          defaultTtl: v.optional(whole(1, 2 ** 31 - 1), 300_000),
          cleanupInterval: v.optional(whole(1, 2 ** 31 - 1), 60_000),
        }),
        {},
      ),
    }),
    {},
  ),
});

/** The service's configuration, typed by {@linkcode serviceSchema}. */
export type ServiceConfiguration = ConfigurationManager<
  v.InferOutput<typeof serviceSchema>
>;

/**
 * The start-up of the example service, for `Application.run` (or
 * `Application.start` in tests).
 *
 * @param options The root folder.
 * @returns The application options.
 */
export function serviceOptions(
  options: ServiceOptions = {},
): ApplicationRunOptions<Record<string, unknown>, ServiceConfiguration> {
  const root = options.root ?? serviceRoot();
  return {
    // Step 1: appsettings.json, appsettings.<RUNTIME_ENV>.json, .env, the
    // standard variables (DB_CONNECTION_STRING, REDIS_HOST…), APP_* ones,
    // checked against the service's schema.
    configuration: () =>
      createConfiguration({ basePath: root, schema: serviceSchema }),

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
            : new MemoryCacheProvider(config.getValue("cache:memory")),
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
          config.getValue("features:enableAnalytics", true) &&
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
      // PostgreSQL when DB_CONNECTION_STRING is set: Kit's database
      // ("database": the pool, opened at start-up with the migrations
      // applied, its health check, disposed last) and "db", a session per
      // request.
      if (config.getValue("database:connectionString").trim() !== "") {
        addDatabase(services, config, {
          migrations: join(root, "migrations"),
        });
      }
    },

    // Step 4: the application's services.
    services: (services) => {
      const logger = (services.get("logging") as LoggerManager).getLogger(
        "service",
      );
      if (services.has("db")) {
        // The users through the request's session: it takes one of the
        // pool's connections at its first query, runs the request's
        // queries on it, and gives it back when the response is done.
        services.register(
          "users",
          (scope) => new PostgresUserStore(scope.get<DatabaseSession>("db")),
          { lifetime: "scoped" },
        );
      } else {
        const memory = new MemoryUserStore();
        services.register("users", () => memory);
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
    },

    // Then the routes, served by the host (health probes, request ids, a
    // drain on SIGTERM; server:* keys in appsettings.json).
    serve: (services, config) => {
      const logger = (services.get("logging") as LoggerManager).getLogger(
        "service",
      );
      // The page's sign-in: JWT_SECRET signs the access tokens.
      const auth = Authenticator.fromConfiguration(config);
      if (auth.generatedSecret) {
        logger.info(
          "JWT_SECRET is not set: access tokens are signed with a random key and end with the process",
        );
      }
      const routes = createRoutes({
        localizer: services.get("localization") as Localizer,
        cache: services.get("cache") as CacheManager,
        users: () => services.get<UserStore>("users"),
        events: services.get("events") as EventAggregator<ServiceEvents>,
        auth,
        page: pageAssets(),
        analytics: services.get("analytics") as AnalyticsManager,
        logger,
      });
      // Errors in routes become Kit's 500 (logged with the request id), and
      // each request's span and access line name its route.
      return kit(routes);
    },
  };
}

/** The type of the running service, for tests. */
export type ServiceApplication = Application<Record<string, unknown>>;
