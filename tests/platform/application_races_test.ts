// The application host when things overlap: stop() during start-up, a
// hosted service still starting when stop() begins, services asked for after
// the stop, services created inside a request, and the browser flavour of
// the request context with overlapping runs.
import { describe, it, test } from "node:test";
import assert from "node:assert/strict";
import {
  Application,
  ApplicationStartError,
  RequestContext,
} from "../../platform/mod.ts";
import { isNpmPass } from "../_support/module_url.ts";

describe("Application, overlapping calls", () => {
  it("stop() called during start-up ends start-up, which disposes what it created", async () => {
    const order: string[] = [];
    let stopped: Promise<unknown> | undefined;
    const error = await Application.start({
      configuration: () => ({
        dispose: () => void order.push("dispose config"),
      }),
      services: (services, _config, app) => {
        stopped = app.stop();
        services.register("late", () => ({
          dispose: () => void order.push("dispose late"),
        }), { eager: true });
      },
    }).then(() => assert.fail("start() should reject"), (e: unknown) => e);
    assert.ok(error instanceof ApplicationStartError);
    assert.equal(
      error.message,
      "Start-up step 4 (services) failed: stop() was called during start-up",
    );
    await stopped;
    assert.deepEqual(order.sort(), ["dispose config"]);
  });

  it("a hosted service still starting when stop() begins is stopped too", async () => {
    const order: string[] = [];
    const app = await Application.start({ configuration: () => ({}) });
    const adding = app.addHostedService("slow", {
      start: async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        order.push("started");
      },
      stop: () => void order.push("stopped"),
    });
    await app.stop();
    await adding;
    assert.deepEqual(order, ["started", "stopped"]);
    await assert.rejects(
      app.addHostedService("after", { start() {}, stop() {} }),
      { message: "addHostedService('after'): the application is stopped" },
    );
  });

  it("refuses to create a service after stop(), which would never be disposed", async () => {
    const app = await Application.start({
      configuration: () => ({}),
      services: (services) => {
        services.register("cache", () => ({ dispose() {} }));
      },
    });
    await app.stop();
    assert.throws(() => app.services.get("cache"), {
      message: "Service 'cache' cannot be created: the application has stopped",
    });
  });

  it("a service created inside a request does not keep that request's context", async () => {
    const app = await Application.start({
      configuration: () => ({}),
      services: (services) => {
        services.register("poller", () => {
          // What a service's timers and callbacks will see.
          return { seen: RequestContext.current()?.requestId ?? "none" };
        });
      },
    });
    const response = await app.handle(() => {
      const poller = app.services.get<{ seen: string }>("poller");
      return new Response(poller.seen);
    })(
      new Request("http://localhost/", { headers: { "x-request-id": "r-1" } }),
    );
    assert.equal(await response.text(), "none");
    await app.stop();
  });

  it("a health check timeout must be finite and fit a timer", async () => {
    const app = await Application.start({ configuration: () => ({}) });
    assert.throws(
      () =>
        app.addHealthCheck("x", () => ({ status: "healthy" }), {
          timeout: Infinity,
        }),
      RangeError,
    );
    await app.stop();
  });

  it("masks secrets in health check errors and details", async () => {
    const app = await Application.start({ configuration: () => ({}) });
    app.addHealthCheck("db", () => {
      throw new Error("connect failed: postgres://app:s3cret-pw@10.0.0.5/db");
    });
    app.addHealthCheck("api", () => ({
      status: "degraded",
      detail: "401 with Authorization: Bearer abcdef123456",
    }));
    const body = JSON.stringify(await app.health());
    assert.doesNotMatch(body, /s3cret-pw|abcdef123456/);
    assert.match(body, /postgres:\/\/app:\*\*\*@10\.0\.0\.5\/db/);
    await app.stop();
  });
});

test(
  "the browser flavour of the request context: with overlapping async runs, the newest live run is current and nothing is left behind",
  {
    skip: isNpmPass() &&
      "reads the TypeScript twin directly; the npm build's browser files are bundled and run in Chromium by the consumer check",
  },
  async () => {
    const url = new URL(
      "../../platform/server/_async_context_browser.ts",
      import.meta.url,
    ).href;
    // The module's shape, declared here: the npm passes transpile this
    // file and refuse imports of internal files, even type-only ones.
    const { contextStore } = await import(url) as {
      contextStore<T>(): {
        run<R>(value: T, fn: () => R): R;
        exit<R>(fn: () => R): R;
        get(): T | undefined;
      };
    };
    const store = contextStore<string>();
    let releaseA!: () => void;
    let releaseB!: () => void;
    const a = store.run("A", () => new Promise<void>((r) => (releaseA = r)));
    const b = store.run("B", () => new Promise<void>((r) => (releaseB = r)));
    assert.equal(store.get(), "B");
    releaseA();
    await a;
    assert.equal(store.get(), "B");
    releaseB();
    await b;
    assert.equal(store.get(), undefined);
    assert.equal(
      store.run("C", () => store.exit(() => store.get())),
      undefined,
    );
    assert.equal(store.run("D", () => store.get()), "D");
    assert.equal(store.get(), undefined);
  },
);
