// Kit's own parts report through the application's logging: inside an
// Application with a logging step, the cache, analytics and localization
// write their errors and recoveries under `kit.<module>` categories, and
// background work (a Redis connection opened by a request, an analytics
// batch timer) carries no request id. Outside an Application they keep
// writing to the console.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Application, RequestContext } from "../../platform/mod.ts";
import {
  type ILogProvider,
  type LogEntry,
  LoggerManager,
  LogLevel,
} from "../../logging/mod.ts";
import { CacheManager, RemoteStoreCacheProvider } from "../../caching/mod.ts";
import {
  AnalyticsManager,
  CustomAnalyticsProvider,
} from "../../analytics/mod.ts";
import {
  DefaultCultureProvider,
  LocalizationManager,
} from "../../localization/mod.ts";
import { startTestServer } from "../_support/http_server.ts";
import { waitFor as until } from "../_support/wait_for.ts";
import { redisSkip, startRedisServer } from "../caching/_redis_server.ts";

/** A log provider that keeps every entry. */
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

function summary(entries: LogEntry[]): string {
  return entries.map((entry) =>
    `${entry.category} ${entry.level} ${
      entry.requestId ?? "-"
    } ${entry.message}`
  ).join("\n");
}

/** Collects what the console methods are called with while `fn` runs. */
async function capturingConsole(
  fn: () => Promise<void>,
): Promise<{ method: string; text: string }[]> {
  const seen: { method: string; text: string }[] = [];
  const methods = ["error", "warn", "info", "log", "debug"] as const;
  const saved = methods.map((method) => console[method]);
  for (const method of methods) {
    console[method] = (...args: unknown[]) => {
      seen.push({
        method,
        text: args.map((arg) =>
          arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg)
        ).join(" "),
      });
    };
  }
  try {
    await fn();
  } finally {
    methods.forEach((method, i) => (console[method] = saved[i]));
  }
  return seen;
}

describe("Kit's parts inside an Application", () => {
  it(
    "a Redis store down at first, then back: kit.cache warning, then info without the request id",
    {
      skip: redisSkip,
    },
    async () => {
      const redis = await startRedisServer();
      await redis.stop();
      const { provider, entries } = recorder();
      let app: Application | undefined;
      try {
        const seen = await capturingConsole(async () => {
          app = await Application.start({
            configuration: () => ({}),
            logging: () =>
              new LoggerManager().configure({
                level: "debug",
                providers: [provider],
              }),
            platform: (services) => {
              services.register("cache", () =>
                new CacheManager(
                  new RemoteStoreCacheProvider({
                    host: "127.0.0.1",
                    port: redis.port,
                    connectTimeout: 300,
                    commandTimeout: 300,
                    reconnectDelay: 20,
                    maxReconnectDelay: 100,
                  }),
                ));
            },
          });
          const cache = app.services.get<CacheManager>("cache");
          const handler = app.handle(async () => {
            const value = await cache.getOrSet("k", () => Promise.resolve(1));
            return Response.json({ value });
          });
          const response = await handler(
            new Request("http://localhost/health", {
              headers: { "X-Request-ID": "first-request" },
            }),
          );
          assert.equal(response.status, 200);
          await response.body?.cancel();
          await until(
            () =>
              entries.some((entry) =>
                entry.category === "kit.cache" &&
                entry.level === LogLevel.Warning
              ),
            "the unreachable entry",
          );
          await redis.start();
          await until(
            () =>
              entries.some((entry) =>
                entry.category === "kit.cache" && entry.level === LogLevel.Info
              ),
            "the recovery entry",
          );
          await app.stop();
          app = undefined;
        });
        const cacheEntries = entries.filter((entry) =>
          entry.category === "kit.cache"
        );
        const warning = cacheEntries.find((entry) =>
          entry.level === LogLevel.Warning
        );
        assert.ok(warning, summary(entries));
        assert.match(warning.message, /unreachable|refused|connect/i);
        const recovered = cacheEntries.find((entry) =>
          entry.level === LogLevel.Info
        );
        assert.ok(recovered, summary(entries));
        assert.match(recovered.message, /reachable again/i);
        assert.equal(recovered.requestId, undefined, summary(entries));
        assert.equal(warning.requestId, undefined, summary(entries));
        assert.ok(
          !cacheEntries.some((entry) => entry.level === LogLevel.Error),
          summary(entries),
        );
        // Nothing of the cache went to the console.
        assert.deepEqual(
          seen.filter((line) => /Cache|Redis|reachable/.test(line.text)),
          [],
        );
      } finally {
        await app?.stop();
        await redis.close();
      }
    },
  );

  it("analytics delivery errors go to kit.analytics, without the request id when the batch timer sends", async () => {
    const collector = await startTestServer((_request, response) => {
      response.statusCode = 500;
      response.end("down");
    });
    const { provider, entries } = recorder();
    try {
      const seen = await capturingConsole(async () => {
        const app = await Application.start({
          configuration: () => ({}),
          logging: () =>
            new LoggerManager().configure({
              level: "debug",
              providers: [provider],
            }),
          platform: (services) => {
            services.register(
              "analytics",
              () =>
                new AnalyticsManager().addProvider(
                  new CustomAnalyticsProvider({
                    endpoint: `${collector.url}/collect`,
                    apiKey: "analytics-key",
                    batchSize: 50,
                    flushInterval: 50,
                    maxRetries: 0,
                  }),
                ),
            );
          },
        });
        try {
          const analytics = app.services.get<AnalyticsManager>("analytics");
          const handler = app.handle(() => {
            analytics.track("page_viewed", { page: "/a" });
            return new Response("ok");
          });
          await (await handler(
            new Request("http://localhost/a", {
              headers: { "X-Request-ID": "tracking-request" },
            }),
          )).text();
          await until(
            () => entries.some((entry) => entry.category === "kit.analytics"),
            "the analytics entry",
          );
        } finally {
          await app.stop();
        }
      });
      const own = entries.filter((entry) => entry.category === "kit.analytics");
      assert.ok(own.length > 0, summary(entries));
      for (const entry of own) {
        assert.equal(entry.requestId, undefined, summary(entries));
        assert.ok(
          entry.level === LogLevel.Error || entry.level === LogLevel.Warning,
          summary(entries),
        );
      }
      assert.ok(collector.requests.length > 0, "the timer sent the batch");
      assert.deepEqual(
        seen.filter((line) => /nalytics/.test(line.text)),
        [],
      );
    } finally {
      await collector.close();
    }
  });

  it("a translation that is not valid ICU is reported under kit.localization", async () => {
    const { provider, entries } = recorder();
    const seen = await capturingConsole(async () => {
      const app = await Application.start({
        configuration: () => ({}),
        logging: () =>
          new LoggerManager().configure({
            level: "debug",
            providers: [provider],
          }),
        platform: (services) => {
          services.register("localization", () =>
            new LocalizationManager(
              {
                load: () =>
                  Promise.resolve(
                    new Map([[
                      "broken",
                      "{count, plural, one {# item} other {# items}",
                    ]]),
                  ),
              },
              new DefaultCultureProvider("en"),
            ));
        },
      });
      try {
        const localization = app.services.get<LocalizationManager>(
          "localization",
        );
        await localization.setCulture("en");
        const handler = app.handle(() =>
          new Response(localization.t("broken", { count: 2 }))
        );
        await (await handler(new Request("http://localhost/"))).text();
      } finally {
        await app.stop();
      }
    });
    const own = entries.filter((entry) =>
      entry.category === "kit.localization"
    );
    assert.equal(own.length, 1, summary(entries));
    assert.equal(own[0].level, LogLevel.Error);
    assert.match(own[0].message, /broken/);
    assert.deepEqual(seen.filter((line) => /broken/.test(line.text)), []);
  });
});

describe("Kit's parts outside an Application", () => {
  it("keep writing to the console", async () => {
    const seen = await capturingConsole(async () => {
      const localization = new LocalizationManager(
        {
          load: () =>
            Promise.resolve(
              new Map([[
                "broken",
                "{count, plural, one {# item} other {# items}",
              ]]),
            ),
        },
        new DefaultCultureProvider("en"),
      );
      await localization.setCulture("en");
      localization.t("broken", { count: 2 });
      // No running application: nothing to log to.
      assert.equal(RequestContext.current(), undefined);
    });
    assert.equal(
      seen.filter((line) => line.method === "error" && /broken/.test(line.text))
        .length,
      1,
      JSON.stringify(seen),
    );
  });
});
