// hostLogger() answers with the logging of the newest running application,
// from the end of its logging step to the very end of its stop;
// RequestContext.detach() runs work (and what it starts) outside any request.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { trace } from "@opentelemetry/api";
import { installOtelSdk } from "../_support/otel_sdk.ts";
import {
  Application,
  type ApplicationLogger,
  hostLogger,
  RequestContext,
} from "../../platform/mod.ts";

function namedLogging(name: string): {
  getLogger(category: string): ApplicationLogger & { name: string };
} {
  return {
    getLogger: (category) => ({
      name: `${name}/${category}`,
      debug: () => {},
      info: () => {},
      warning: () => {},
      error: () => {},
    }),
  };
}

describe("hostLogger", () => {
  it("is undefined with no application, or one without a logging step", async () => {
    assert.equal(hostLogger("kit.cache"), undefined);
    const app = await Application.start({ configuration: () => ({}) });
    try {
      assert.equal(hostLogger("kit.cache"), undefined);
    } finally {
      await app.stop();
    }
  });

  it("answers with the newest running application's logger for the category", async () => {
    const seenInServices: unknown[] = [];
    const first = await Application.start({
      configuration: () => ({}),
      logging: () => namedLogging("first"),
      // Step 3 and later already see the logging.
      platform: () => {
        seenInServices.push(
          (hostLogger("kit.cache") as { name?: string } | undefined)?.name,
        );
      },
    });
    const nameOf = (category: string) =>
      (hostLogger(category) as { name?: string } | undefined)?.name;
    try {
      assert.deepEqual(seenInServices, ["first/kit.cache"]);
      assert.equal(nameOf("kit.analytics"), "first/kit.analytics");
      const second = await Application.start({
        configuration: () => ({}),
        logging: () => namedLogging("second"),
      });
      assert.equal(nameOf("kit.cache"), "second/kit.cache");
      await second.stop();
      assert.equal(nameOf("kit.cache"), "first/kit.cache");
    } finally {
      await first.stop();
    }
    assert.equal(hostLogger("kit.cache"), undefined);
  });

  it("is released when start-up fails after the logging step", async () => {
    await assert.rejects(
      Application.start({
        configuration: () => ({}),
        logging: () => namedLogging("failing"),
        services: () => {
          throw new Error("no");
        },
      }),
    );
    assert.equal(hostLogger("kit.cache"), undefined);
  });

  it("refuses an empty category", () => {
    assert.throws(() => hostLogger(""), TypeError);
  });
});

describe("RequestContext.detach", () => {
  it("leaves the request out of timers, promises and socket events started inside", async () => {
    const seen: Record<string, unknown> = {};
    await RequestContext.run({ requestId: "r-1" }, async () => {
      await new Promise<void>((resolve) => {
        let left = 3;
        const done = () => --left === 0 && resolve();
        RequestContext.detach(() => {
          seen.sync = RequestContext.current();
          setTimeout(() => {
            seen.timer = RequestContext.current();
            done();
          }, 1);
          Promise.resolve().then(() => {
            seen.promise = RequestContext.current();
            done();
          });
          // A refused loopback connection: its error event.
          const server = createServer();
          server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as { port: number };
            server.close(() => {
              RequestContext.detach(() => {
                import("node:net").then(({ createConnection }) => {
                  const socket = createConnection({ host: "127.0.0.1", port });
                  socket.on("error", () => {
                    seen.socket = RequestContext.current();
                    done();
                  });
                });
              });
            });
          });
        });
      });
      // The request's own context is untouched.
      assert.equal(RequestContext.current()?.requestId, "r-1");
    });
    assert.deepEqual(seen, {
      sync: undefined,
      timer: undefined,
      promise: undefined,
      socket: undefined,
    });
  });

  it("returns what fn returns and rethrows what it throws", () => {
    assert.equal(RequestContext.detach(() => 42), 42);
    assert.throws(
      () =>
        RequestContext.detach(() => {
          throw new RangeError("x");
        }),
      RangeError,
    );
  });

  it("runs in the root OpenTelemetry context when an SDK is registered", async () => {
    const sdk = installOtelSdk();
    try {
      const tracer = trace.getTracer("detach-test");
      const seen: Record<string, unknown> = {};
      await tracer.startActiveSpan("request", async (span) => {
        seen.inside = trace.getActiveSpan() === span;
        await RequestContext.detach(async () => {
          seen.detached = trace.getActiveSpan();
          await new Promise((resolve) => setTimeout(resolve, 1));
          seen.later = trace.getActiveSpan();
        });
        seen.after = trace.getActiveSpan() === span;
        span.end();
      });
      assert.deepEqual(seen, {
        inside: true,
        detached: undefined,
        later: undefined,
        after: true,
      });
    } finally {
      await sdk.uninstall();
    }
  });
});
