// The probes the server mounts: /health (the full report), /health/live
// (no checks, 200 while the process serves, draining included) and
// /health/ready (503 while starting or stopping, or when a critical check
// is unhealthy); checks tagged "no-readiness" stay out of readiness.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Application,
  type HealthCheckResult,
  type HealthReport,
} from "../../platform/mod.ts";
import { send, sleep } from "./_serve_support.ts";

function json(body: string): HealthReport {
  return JSON.parse(body) as HealthReport;
}

describe("health probes", () => {
  it("answers /health, /health/live and /health/ready while running", async () => {
    let db: HealthCheckResult = { status: "healthy" };
    let liveChecks = 0;
    await using app = await Application.start({
      configuration: () => ({}),
      services: (_services, _config, app) => {
        app.addHealthCheck("db", () => {
          liveChecks++;
          return db;
        });
      },
      serve: () => () => new Response("app"),
      server: { port: 0, hostname: "127.0.0.1" },
    });
    const full = await send(app.url!, "/health");
    assert.equal(full.status, 200);
    assert.equal(full.headers["cache-control"], "no-store");
    assert.equal(json(full.body).checks.db.status, "healthy");

    const before = liveChecks;
    const live = await send(app.url!, "/health/live");
    assert.equal(live.status, 200);
    assert.equal(liveChecks, before, "liveness runs no check");

    assert.equal((await send(app.url!, "/health/ready")).status, 200);
    db = { status: "unhealthy", detail: "connection refused" };
    const ready = await send(app.url!, "/health/ready");
    assert.equal(ready.status, 503);
    assert.equal(json(ready.body).checks.db.status, "unhealthy");
    assert.equal((await send(app.url!, "/health")).status, 503);
    assert.equal((await send(app.url!, "/health/live")).status, 200);
    // Other paths and methods reach the application.
    assert.equal((await send(app.url!, "/healthz")).body, "app");
    assert.equal(
      (await send(app.url!, "/health/ready", { method: "POST" })).body,
      "app",
    );
  });

  it("keeps a non-critical or a 'no-readiness' check from failing readiness", async () => {
    let checked = 0;
    await using app = await Application.start({
      configuration: () => ({}),
      services: (_services, _config, app) => {
        app.addHealthCheck("analytics", () => ({ status: "unhealthy" }), {
          critical: false,
        });
        app.addHealthCheck("upstream", () => {
          checked++;
          return { status: "unhealthy" };
        }, { tags: ["no-readiness", "external"] });
      },
      serve: () => () => new Response("app"),
      server: { port: 0, hostname: "127.0.0.1" },
    });
    const ready = await send(app.url!, "/health/ready");
    assert.equal(ready.status, 200);
    assert.equal(json(ready.body).status, "degraded");
    assert.equal(json(ready.body).checks.upstream, undefined);
    assert.equal(checked, 0);
    const full = json((await send(app.url!, "/health")).body);
    assert.equal(full.status, "unhealthy");
    assert.deepEqual(full.checks.upstream.tags, ["no-readiness", "external"]);
  });

  it("rejects tags that are not a list of strings", async () => {
    await using app = await Application.start({ configuration: () => ({}) });
    assert.throws(
      () =>
        app.addHealthCheck("x", () => ({ status: "healthy" }), {
          tags: "no-readiness" as unknown as string[],
        }),
      {
        name: "TypeError",
        message: "addHealthCheck('x'): tags must be an array of strings",
      },
    );
  });

  it("reports ready 503 and live 200 while draining, then stops listening", async () => {
    const app = await Application.start({
      configuration: () => ({}),
      serve: () => () => new Response("app"),
      server: { port: 0, hostname: "127.0.0.1", drainDelay: 600 },
    });
    const url = app.url!;
    assert.equal((await send(url, "/health/ready")).status, 200);
    const stopped = app.stop();
    await sleep(100);
    const ready = await send(url, "/health/ready");
    assert.equal(ready.status, 503);
    assert.equal(json(ready.body).status, "stopping");
    assert.equal((await send(url, "/health")).status, 503);
    assert.equal((await send(url, "/health/live")).status, 200);
    assert.equal((await send(url, "/")).body, "app");
    assert.equal((await stopped).ok, true);
  });

  it("can be turned off with health: false", async () => {
    await using app = await Application.start({
      configuration: () => ({}),
      serve: () => (request: Request) =>
        new Response(`app ${new URL(request.url).pathname}`),
      server: { port: 0, hostname: "127.0.0.1", health: false },
    });
    assert.equal(
      (await send(app.url!, "/health/live")).body,
      "app /health/live",
    );
  });
});
