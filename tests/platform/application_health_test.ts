// Health checks of the application host: statuses, timeouts, critical and
// non-critical checks, services' own checkHealth(), and the 200/503 handler.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Application,
  type ApplicationOptions,
  type HealthCheckResult,
  type HealthReport,
} from "../../platform/mod.ts";

function start(
  setup?: (app: Application) => void,
  services?: ApplicationOptions["services"],
): Promise<Application> {
  return Application.start({
    configuration: () => ({}),
    services: (locator, config, app) => {
      setup?.(app);
      return services?.(locator, config, app);
    },
  });
}

describe("app.health()", () => {
  it("is healthy with no checks", async () => {
    await using app = await start();
    assert.deepEqual(await app.health(), { status: "healthy", checks: {} });
  });

  it("reports each check's status, duration and detail, and the worst critical status", async () => {
    await using app = await start((app) => {
      app.addHealthCheck("db", () => ({ status: "healthy" }));
      app.addHealthCheck("queue", async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { status: "degraded", detail: { backlog: 1200 } };
      });
    });
    const report = await app.health();
    assert.equal(report.status, "degraded");
    assert.equal(report.checks.db.status, "healthy");
    assert.equal(report.checks.queue.status, "degraded");
    assert.deepEqual(report.checks.queue.detail, { backlog: 1200 });
    assert.ok(report.checks.queue.durationMs >= 4);
    assert.equal(report.checks.db.error, undefined);
  });

  it("counts a throw as unhealthy with its message; a non-critical one only degrades", async () => {
    await using app = await start((app) => {
      app.addHealthCheck("disk", () => {
        throw new Error("ENOSPC: no space left on device");
      }, { critical: false });
    });
    const report = await app.health();
    assert.equal(report.status, "degraded");
    assert.deepEqual(
      { ...report.checks.disk, durationMs: 0 },
      {
        status: "unhealthy",
        durationMs: 0,
        error: "ENOSPC: no space left on device",
        critical: false,
      },
    );

    app.addHealthCheck("db", () => Promise.reject(new Error("ECONNREFUSED")));
    const worse = await app.health();
    assert.equal(worse.status, "unhealthy");
    assert.equal(worse.checks.db.error, "ECONNREFUSED");
  });

  it("runs checks concurrently, each under its timeout, and aborts the late one's signal", async () => {
    let aborted: unknown;
    await using app = await start((app) => {
      app.addHealthCheck(
        "slow",
        (signal) =>
          new Promise<HealthCheckResult>((resolve) => {
            const timer = setTimeout(
              () => resolve({ status: "healthy" }),
              5_000,
            );
            signal.addEventListener("abort", () => {
              aborted = signal.reason;
              clearTimeout(timer);
            });
          }),
        { timeout: 100 },
      );
      app.addHealthCheck(
        "other",
        () =>
          new Promise((resolve) =>
            setTimeout(() => resolve({ status: "healthy" }), 80)
          ),
        { timeout: 1_000 },
      );
    });
    const began = performance.now();
    const report = await app.health();
    const elapsed = performance.now() - began;
    assert.equal(report.status, "unhealthy");
    assert.equal(report.checks.slow.status, "unhealthy");
    assert.equal(
      report.checks.slow.error,
      "Health check timed out after 100 ms",
    );
    assert.equal(report.checks.other.status, "healthy");
    assert.ok(aborted instanceof Error);
    // Concurrent: about max(100, 80), not the sum; loose bound for a busy machine.
    assert.ok(elapsed < 1_000, `took ${elapsed} ms`);
  });

  it("says what is wrong when a check returns no status", async () => {
    await using app = await start((app) => {
      app.addHealthCheck(
        "bad",
        (() => ({ state: "ok" })) as unknown as () => HealthCheckResult,
      );
    });
    const report = await app.health();
    assert.equal(report.checks.bad.status, "unhealthy");
    assert.match(report.checks.bad.error!, /returned no status/);
  });

  it("includes every created service that has checkHealth(), under its name, and an explicit check replaces it", async () => {
    const calls: string[] = [];
    await using app = await start(undefined, (services) => {
      services.register("cache", () => ({
        checkHealth: (signal?: AbortSignal): HealthCheckResult => {
          calls.push(`cache ${signal instanceof AbortSignal}`);
          return {
            status: "degraded",
            detail: "Redis is down: serving misses",
          };
        },
      }), { eager: true });
      services.register("search", () => ({
        checkHealth: () => ({ status: "unhealthy" as const }),
      }), { eager: true });
      services.register("notCreated", () => ({
        checkHealth: () => ({ status: "unhealthy" as const }),
      }));
    });
    let report = await app.health();
    assert.deepEqual(Object.keys(report.checks).sort(), ["cache", "search"]);
    assert.equal(report.checks.cache.detail, "Redis is down: serving misses");
    assert.equal(report.status, "unhealthy");
    assert.deepEqual(calls, ["cache true"]);

    app.addHealthCheck("search", () => ({ status: "healthy" }), {
      critical: false,
    });
    report = await app.health();
    assert.equal(report.checks.search.status, "healthy");
    assert.equal(report.status, "degraded");
  });
});

describe("app.healthHandler()", () => {
  async function answer(app: Application): Promise<[number, HealthReport]> {
    const response = await app.healthHandler()(
      new Request("http://localhost/health"),
    );
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.equal(response.headers.get("cache-control"), "no-store");
    return [response.status, await response.json() as HealthReport];
  }

  it("answers 200 for healthy and degraded, 503 for unhealthy", async () => {
    let status: HealthCheckResult["status"] = "healthy";
    await using app = await start((app) => {
      app.addHealthCheck("db", () => ({ status }));
    });
    assert.equal((await answer(app))[0], 200);
    status = "degraded";
    const [code, body] = await answer(app);
    assert.equal(code, 200);
    assert.equal(body.status, "degraded");
    assert.equal(body.checks.db.status, "degraded");
    status = "unhealthy";
    assert.deepEqual((await answer(app))[0], 503);
  });

  it("answers 503 starting during start-up and 503 stopping once stop() began", async () => {
    let during: [number, HealthReport] | undefined;
    let release!: () => void;
    const app = await Application.start({
      configuration: () => ({}),
      services: (_services, _config, app) => {
        app.addHostedService("server", {
          // A server started by a hosted service can be probed before
          // start() resolves.
          start: async () => {
            during = await answer(app);
          },
          stop: () => new Promise<void>((resolve) => (release = resolve)),
        });
      },
    });
    assert.deepEqual(during, [503, { status: "starting", checks: {} }]);
    assert.equal((await answer(app))[0], 200);
    const stopping = app.stop();
    assert.deepEqual(await answer(app), [503, {
      status: "stopping",
      checks: {},
    }]);
    release();
    await stopping;
    assert.deepEqual((await answer(app))[1].status, "stopping");
  });
});
