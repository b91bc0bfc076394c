// Scoped services in real requests: a node:http server on loopback hands
// each request to app.handle(); a scoped service is created once per
// request and disposed when the response is done: for a response without a
// body before app.handle's promise settles, for a streamed body once the
// body has been read to the end (or cancelled by the client going away).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import {
  Application,
  type ApplicationLogger,
  RequestContext,
} from "../../platform/mod.ts";
import { serveFetch as serve } from "../_support/fetch_front.ts";
import { type Answer, send } from "./_serve_support.ts";

class Unit {
  static made = 0;
  readonly id = ++Unit.made;
  disposedWith: AbortSignal | undefined;
  constructor(readonly events: string[], readonly requestId: string) {}
  dispose(options?: { signal?: AbortSignal }): void {
    this.disposedWith = options?.signal;
    this.events.push(`dispose ${this.id} ${this.requestId}`);
  }
}

const quiet = (lines: string[] = []): { getLogger(): ApplicationLogger } => ({
  getLogger: () => ({
    debug: () => {},
    info: () => {},
    warning: (message) => lines.push(message),
    error: (message) => lines.push(message),
  }),
});

describe("scoped services in requests through app.handle()", () => {
  it("creates one per request, shared within it, disposed before the response resolves", async () => {
    const events: string[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(),
      services: (services) => {
        services.register(
          "unit",
          () => new Unit(events, RequestContext.current()!.requestId),
          { lifetime: "scoped" },
        );
      },
    });
    const handler = app.handle(async () => {
      const a = app.services.get<Unit>("unit");
      await new Promise((resolve) => setTimeout(resolve, 2));
      const b = app.services.get<Unit>("unit");
      events.push(`use ${a.id} ${a === b}`);
      return new Response(null, { status: 204 });
    });
    const server = await serve(handler);
    try {
      const [r1, r2] = await Promise.all([
        fetch(server.url, { headers: { "X-Request-ID": "one" } }),
        fetch(server.url, { headers: { "X-Request-ID": "two" } }),
      ]);
      assert.equal(r1.status, 204);
      assert.equal(r2.status, 204);
      await r1.body?.cancel();
      await r2.body?.cancel();
    } finally {
      await server.close();
    }
    const uses = events.filter((e) => e.startsWith("use"));
    assert.equal(uses.length, 2);
    assert.ok(uses.every((e) => e.endsWith("true")), events.join("; "));
    assert.equal(events.filter((e) => e.startsWith("dispose")).length, 2);
    assert.ok(events.some((e) => /^dispose \d+ one$/.test(e)));
    assert.ok(events.some((e) => /^dispose \d+ two$/.test(e)));
  });

  it("disposes at the end of app.handle's promise for a body-less response, newest first", async () => {
    const events: string[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(),
      services: (services) => {
        services.register("a", () => ({
          dispose: () => events.push("dispose a"),
        }), { lifetime: "scoped" });
        services.register("b", (l) => {
          l.get("a");
          return { dispose: () => events.push("dispose b") };
        }, { lifetime: "scoped" });
      },
    });
    const handler = app.handle(() => {
      app.services.get("b");
      events.push("handled");
      return new Response(null, { status: 204 });
    });
    await handler(new Request("http://localhost/"));
    assert.deepEqual(events, ["handled", "dispose b", "dispose a"]);
  });

  it("keeps the scope of a streamed body open until the body has been sent to the end", async () => {
    const events: string[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(),
      services: (services) => {
        services.register("unit", () => new Unit(events, "s"), {
          lifetime: "scoped",
        });
      },
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handler = app.handle(() => {
      const unit = app.services.get<Unit>("unit");
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode(`first ${unit.id}\n`));
          await gate;
          events.push(`last chunk, closed=${events.length > 0}`);
          controller.enqueue(new TextEncoder().encode("last\n"));
          controller.close();
        },
      });
      return new Response(body);
    });
    const server = await serve(handler);
    try {
      const response = await fetch(server.url);
      const reader = response.body!.getReader();
      const first = await reader.read();
      assert.match(new TextDecoder().decode(first.value), /^first \d+/);
      assert.deepEqual(events, [], "not disposed while the body streams");
      release();
      let text = "";
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      assert.equal(text, "last\n");
    } finally {
      await server.close();
    }
    const all: string[] = [...events];
    assert.equal(all.length, 2, all.join("; "));
    assert.equal(all[0], "last chunk, closed=false");
    assert.match(all[1], /^dispose \d+ s$/);
  });

  it("disposes the scope when the client goes away in the middle of a streamed body", async () => {
    const events: string[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(),
      services: (services) => {
        services.register("unit", () => new Unit(events, "c"), {
          lifetime: "scoped",
        });
      },
    });
    let disposed!: () => void;
    const done = new Promise<void>((resolve) => (disposed = resolve));
    const handler = app.handle(() => {
      const unit = app.services.get<Unit>("unit");
      const original = unit.dispose.bind(unit);
      unit.dispose = (options) => {
        original(options);
        disposed();
      };
      return new Response(Readable.toWeb(Readable.from((async function* () {
        yield "tick\n";
        await new Promise(() => {}); // never ends by itself
      })())) as ReadableStream<Uint8Array>);
    });
    const server = await serve(handler);
    try {
      const controller = new AbortController();
      const response = await fetch(server.url, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await Promise.race([
        done,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error("not disposed after 5 s")), 5_000)
            .unref?.()
        ),
      ]);
    } finally {
      await server.close();
    }
    assert.equal(events.length, 1);
  });

  it("logs a scoped service's disposal failure with the request id, without touching the response", async () => {
    const lines: string[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(lines),
      services: (services) => {
        services.register("bad", () => ({
          dispose() {
            throw new Error("socket already closed");
          },
        }), { lifetime: "scoped" });
      },
    });
    const handler = app.handle(() => {
      app.services.get("bad");
      return new Response(null, { status: 204 });
    });
    const response = await handler(
      new Request("http://localhost/x", { headers: { "X-Request-ID": "r-9" } }),
    );
    assert.equal(response.status, 204);
    assert.deepEqual(lines, [
      "GET /x: disposing scoped services failed: Failed to dispose 1 scoped service(s): bad",
    ]);
  });

  it("refuses a scoped service asked for in a request after its response was returned", async () => {
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(),
      services: (services) => {
        services.register("unit", () => new Unit([], "late"), {
          lifetime: "scoped",
        });
      },
    });
    // A timer the handler leaves behind runs in the request's context after
    // the response: too late for a scope.
    let late!: Promise<unknown>;
    const handler = app.handle(() => {
      late = new Promise((resolve) =>
        setTimeout(() => {
          try {
            resolve(app.services.get("unit"));
          } catch (error) {
            resolve(error);
          }
        }, 20)
      );
      return new Response("done");
    });
    const response = await handler(new Request("http://localhost/"));
    assert.equal(await response.text(), "done");
    const error = await late;
    assert.ok(error instanceof Error);
    assert.equal(error.name, "ServiceLifetimeError");
    assert.match(
      error.message,
      /^Service 'unit' is scoped and its request has ended/,
    );
  });

  it("keeps the request's scope inside a nested RequestContext.run (a middleware adding a value)", async () => {
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(),
      services: (services) => {
        services.register("unit", () => new Unit([], "n"), {
          lifetime: "scoped",
        });
      },
    });
    const handler = app.handle(() => {
      const outer = app.services.get("unit");
      const inner = RequestContext.run(
        { ...RequestContext.current()!, tenant: "acme" },
        () => app.services.get("unit"),
      );
      return new Response(String(outer === inner));
    });
    const response = await handler(new Request("http://localhost/"));
    assert.equal(await response.text(), "true");
  });
});

// Settles with what `promise` settled with, or "pending" after `ms`.
async function within<T>(
  promise: Promise<T>,
  ms: number,
): Promise<T | "pending"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<"pending">((resolve) =>
        timer = setTimeout(() => resolve("pending"), ms)
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("a request's response and its scope's disposal", () => {
  it("answers a handler that gave up on a scoped creation that never settles; stop() reports the scope abandoned", async () => {
    const lines: string[] = [];
    const app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(lines),
      shutdownTimeout: 1_000,
      services: (services) => {
        services.register("slow", () => new Promise(() => {}), {
          lifetime: "scoped",
        });
      },
      serve: (services) => async () => {
        // The handler's own timeout on its dependency.
        const gaveUp = await Promise.race([
          services.getAsync("slow").then(() => false),
          new Promise<boolean>((resolve) =>
            setTimeout(() => resolve(true), 100)
          ),
        ]);
        return new Response(gaveUp ? "gave up" : "ok", {
          status: gaveUp ? 504 : 200,
        });
      },
      server: { port: 0, hostname: "127.0.0.1" },
    });
    let answer: Answer | undefined;
    try {
      answer = await send(app.url!, "/", {
        headers: { "X-Request-ID": "r-slow" },
        timeout: 5_000,
      });
    } finally {
      const report = await within(app.stop(), 10_000);
      assert.notEqual(report, "pending", "stop() still running after 10 s");
      if (answer !== undefined) {
        assert.deepEqual(report, {
          ok: false,
          timedOut: ["scoped services of request r-slow"],
          errors: [],
        });
      }
    }
    assert.equal(answer.status, 504);
    assert.equal(answer.body, "gave up");
    // Given up on when the application stopped, and logged by then.
    assert.ok(
      lines.includes(
        "GET /: disposing scoped services failed: Failed to dispose 1 scoped service(s): slow (still being created when the signal aborted)",
      ),
      lines.join("\n"),
    );
  });

  it("sends a streamed body to its end without waiting for its scope's asynchronous disposal", async () => {
    const app = await Application.start({
      configuration: () => ({}),
      logging: () => quiet(),
      shutdownTimeout: 1_000,
      services: (services) => {
        // A disposal that never ends, whatever its signal says.
        services.register("stuck", () => ({
          dispose: () => new Promise<void>(() => {}),
        }), { lifetime: "scoped" });
      },
      serve: (services) => () => {
        services.get("stuck");
        const chunks = ["one\n", "two\n"];
        return new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              const chunk = chunks.shift();
              if (chunk === undefined) controller.close();
              else controller.enqueue(new TextEncoder().encode(chunk));
            },
          }),
        );
      },
      server: { port: 0, hostname: "127.0.0.1" },
    });
    let answer: Answer | undefined;
    try {
      answer = await send(app.url!, "/", {
        headers: { "X-Request-ID": "r-stream" },
        timeout: 5_000,
      });
    } finally {
      const report = await within(app.stop(), 10_000);
      assert.notEqual(report, "pending", "stop() still running after 10 s");
      if (answer !== undefined) {
        assert.deepEqual(report, {
          ok: false,
          timedOut: ["scoped services of request r-stream"],
          errors: [],
        });
      }
    }
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "one\ntwo\n");
  });
});
