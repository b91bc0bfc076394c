// The application host: the four ordered steps (configuration, logging,
// platform services, application services, so each step can use the ones
// before it), failures
// naming their step, eager and hosted services, and the bounded shutdown.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import {
  Application,
  ApplicationStartError,
  type HostedService,
  ServiceLocator,
} from "../../platform/mod.ts";

/** A service that records its disposal into `order`. */
function disposable(name: string, order: string[]): { dispose(): void } {
  return { dispose: () => void order.push(`dispose ${name}`) };
}

describe("Application.start", () => {
  it("runs the four steps in order, each awaited, and registers config as a factory", async () => {
    const order: string[] = [];
    let configCalls = 0;
    let factoryLocator: unknown;
    const app = await Application.start({
      configuration: async (locator) => {
        factoryLocator = locator;
        configCalls++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push("configuration");
        return { name: "demo" };
      },
      logging: async (config) => {
        assert.deepEqual(config, { name: "demo" });
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push("logging");
        return { dispose: () => void order.push("dispose logging") };
      },
      platform: async (services, config) => {
        assert.equal(services.get("config"), config);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push("platform");
      },
      services: (services) => {
        order.push("services");
        assert.ok(services.has("logging"));
      },
    });
    assert.deepEqual(order, [
      "configuration",
      "logging",
      "platform",
      "services",
    ]);
    assert.equal(configCalls, 1);
    assert.deepEqual(app.services.get("config"), { name: "demo" });
    // The step ran as the locator's factory: it received a view of the
    // locator, and the locator owns (and disposes) what it returned.
    assert.ok(factoryLocator instanceof ServiceLocator);
    assert.notEqual(factoryLocator, app.services);
    const report = await app.stop();
    assert.deepEqual(report, { ok: true, timedOut: [], errors: [] });
    assert.equal(order.at(-1), "dispose logging");
  });

  it("uses an isolated locator by default, and the one passed in as locator", async () => {
    const app = await Application.start({ configuration: () => 1 });
    assert.notEqual(app.services, ServiceLocator.default);
    assert.equal(ServiceLocator.default.has("config"), false);
    await app.stop();

    const locator = new ServiceLocator();
    const own = await Application.start({ configuration: () => 2, locator });
    assert.equal(own.services, locator);
    assert.equal(locator.get("config"), 2);
    await own.stop();
  });

  for (
    const [step, name, options] of [
      [1, "configuration", {}],
      [2, "logging", { logging: "fail" }],
      [3, "platform", { platform: "fail" }],
      [4, "services", { services: "fail" }],
    ] as const
  ) {
    it(`names step ${step} (${name}) when it fails and disposes what was created, newest first`, async () => {
      const order: string[] = [];
      const cause = new Error(
        "Configuration validation failed:\nMissing required configuration: api:baseUrl\nInvalid log level: loud",
      );
      const fail = (): never => {
        throw cause;
      };
      const error = await Application.start({
        configuration: step === 1 ? fail : () => disposable("config", order),
        logging: "logging" in options
          ? fail
          : (() => disposable("logging", order)),
        platform: "platform" in options ? fail : (services) => {
          services.register("http", () => disposable("http", order));
          services.register("cache", () => disposable("cache", order));
          services.get("http");
          services.get("cache");
        },
        services: "services" in options ? fail : undefined,
      }).then(
        () => assert.fail("start() should have rejected"),
        (error: unknown) => error,
      );
      assert.ok(error instanceof ApplicationStartError);
      assert.equal(error.step, step);
      assert.equal(error.cause, cause);
      assert.equal(
        error.message,
        `Start-up step ${step} (${name}) failed: ${cause.message}`,
      );
      // Newest first, logging kept for last; a failed step created nothing.
      const expected = {
        1: [],
        2: ["dispose config"],
        3: ["dispose config", "dispose logging"],
        4: [
          "dispose cache",
          "dispose http",
          "dispose config",
          "dispose logging",
        ],
      }[step];
      assert.deepEqual(order, expected);
    });
  }

  it("creates eager services after step 4 and fails start-up naming the one that throws", async () => {
    const order: string[] = [];
    const created: string[] = [];
    const error = await Application.start({
      configuration: () => ({}),
      services: (services) => {
        services.register("users", () => {
          created.push("users");
          return disposable("users", order);
        }, { eager: true });
        services.register("redis", async () => {
          await Promise.resolve();
          throw new Error("WRONGPASS invalid username-password pair");
        }, { eager: true });
        services.register("lazy", () => {
          created.push("lazy");
          return {};
        });
      },
    }).then(() => assert.fail("should reject"), (error: unknown) => error);
    assert.ok(error instanceof ApplicationStartError);
    assert.equal(error.step, 4);
    assert.equal(error.serviceName, "redis");
    assert.equal(
      error.message,
      "Start-up step 4 (services) failed: Service 'redis' could not be created: WRONGPASS invalid username-password pair",
    );
    assert.deepEqual(created, ["users"]);
    assert.deepEqual(order, ["dispose users"]);
  });

  it("rejects a shutdownTimeout that is not a number of 0 or more", async () => {
    await assert.rejects(
      Application.start({ configuration: () => ({}), shutdownTimeout: -1 }),
      {
        name: "RangeError",
        message:
          "shutdownTimeout must be a number of milliseconds of 0 or more: -1",
      },
    );
  });
});

describe("hosted services", () => {
  it("start after the eager services in registration order and stop first, newest first", async () => {
    const order: string[] = [];
    const hosted = (name: string): HostedService => ({
      start: async (signal) => {
        await Promise.resolve();
        order.push(`start ${name}`);
        signal.addEventListener("abort", () => order.push(`abort ${name}`));
      },
      stop: async () => {
        await Promise.resolve();
        order.push(`stop ${name}`);
      },
    });
    const app = await Application.start({
      configuration: () => ({}),
      platform: (services, _config, app) => {
        app.addHostedService("server", hosted("server"));
        services.register("queue", () => hosted("queue"), { hosted: true });
      },
      services: (services) => {
        services.register("db", () => {
          order.push("create db");
          return disposable("db", order);
        }, { eager: true });
      },
    });
    assert.deepEqual(order, ["create db", "start server", "start queue"]);
    order.length = 0;
    await app.stop();
    assert.deepEqual(order, [
      "abort server",
      "abort queue",
      "stop queue",
      "stop server",
      "dispose db",
    ]);
  });

  it("a hosted service whose start fails fails start-up naming it and stops the ones started", async () => {
    const order: string[] = [];
    const error = await Application.start({
      configuration: () => ({}),
      services: (_services, _config, app) => {
        app.addHostedService("first", {
          start: () => void order.push("start first"),
          stop: () => void order.push("stop first"),
        });
        app.addHostedService("second", {
          start: () => {
            throw new Error("EADDRINUSE: port 3000");
          },
          stop: () => void order.push("stop second"),
        });
      },
    }).then(() => assert.fail("should reject"), (error: unknown) => error);
    assert.ok(error instanceof ApplicationStartError);
    assert.equal(error.serviceName, "second");
    assert.equal(
      error.message,
      "Start-up step 4 (services) failed: hosted service 'second' could not start: EADDRINUSE: port 3000",
    );
    assert.deepEqual(order, ["start first", "stop first"]);
  });

  it("a service registered as hosted without start/stop fails start-up clearly", async () => {
    await assert.rejects(
      Application.start({
        configuration: () => ({}),
        services: (services) => {
          services.register("worker", () => ({ run() {} }), { hosted: true });
        },
      }),
      {
        name: "ApplicationStartError",
        message:
          "Start-up step 4 (services) failed: service 'worker' is registered as hosted but has no start(signal) and stop() methods",
      },
    );
  });
});

describe("Application.stop", () => {
  it("runs once: later calls return the same promise", async () => {
    let disposals = 0;
    const app = await Application.start({
      configuration: () => ({ dispose: () => void disposals++ }),
    });
    const first = app.stop();
    assert.equal(app.stop(), first);
    await first;
    await app.stop();
    assert.equal(disposals, 1);
  });

  it("disposes services newest first with the deadline's signal, and logging last", async () => {
    const order: string[] = [];
    const signals: (AbortSignal | undefined)[] = [];
    const lines: string[] = [];
    const logging = {
      getLogger: () => ({
        debug: () => {},
        info: (message: string) => lines.push(message),
        warning: (message: string) => lines.push(message),
        error: (message: string) => lines.push(message),
      }),
      dispose: () => void order.push("dispose logging"),
    };
    const app = await Application.start({
      configuration: () => ({
        dispose: () => void order.push("dispose config"),
      }),
      logging: () => logging,
      platform: (services) => {
        services.register("cache", () => ({
          dispose: (options?: { signal?: AbortSignal }) => {
            signals.push(options?.signal);
            order.push("dispose cache");
          },
        }));
      },
      services: (services) => {
        services.register("users", (l) => {
          l.get("cache");
          return {
            [Symbol.asyncDispose]: () =>
              Promise.resolve(void order.push("dispose users")),
          };
        }, { eager: true });
      },
    });
    // A service first created after start-up is disposed before the others.
    app.services.register(
      "late",
      () => ({ dispose: () => void order.push("dispose late") }),
    );
    app.services.get("late");
    await app.stop();
    assert.deepEqual(order, [
      "dispose late",
      "dispose users",
      "dispose cache",
      "dispose config",
      "dispose logging",
    ]);
    assert.ok(signals[0] instanceof AbortSignal);
    assert.equal(signals[0]!.aborted, false);
    assert.match(lines.at(-1)!, /^Application stopped in [\d.]+ ms$/);
  });

  it("resolves by the deadline, naming what hung, and still disposes logging", async () => {
    const order: string[] = [];
    const lines: string[] = [];
    const app = await Application.start({
      configuration: () => ({}),
      logging: () => ({
        debug: () => {},
        info: (message: string) => lines.push(message),
        warning: (message: string) => lines.push(message),
        error: (message: string) => lines.push(message),
        dispose: () => void order.push("dispose logging"),
      }),
      services: (services, _config, app) => {
        services.register("stuck", () => ({
          // Never settles: the deadline has to end the wait.
          dispose: () => new Promise(() => {}),
        }), { eager: true });
        services.register("broken", () => ({
          dispose: () => {
            throw new Error("socket already closed");
          },
        }), { eager: true });
        app.addHostedService("server", {
          start: () => {},
          stop: () => new Promise(() => {}),
        });
      },
      shutdownTimeout: 300,
    });
    const began = performance.now();
    const report = await app.stop();
    const elapsed = performance.now() - began;
    assert.equal(report.ok, false);
    assert.deepEqual(report.timedOut, ["server", "stuck"]);
    assert.equal(report.errors.length, 1);
    assert.equal(report.errors[0].message, "broken: socket already closed");
    assert.deepEqual(order, ["dispose logging"]);
    // The hosted service and the stuck service share one deadline (300 ms,
    // less logging's 10 % reserve); a generous margin for a loaded machine.
    assert.ok(elapsed >= 250, `stopped after ${elapsed} ms`);
    assert.ok(elapsed < 300 + 1_000, `stopped after ${elapsed} ms`);
    assert.match(
      lines.at(-1)!,
      /^Application stopped in [\d.]+ ms; abandoned at the 300 ms deadline: server, stuck; 1 error\(s\): broken: socket already closed$/,
    );
  });

  it("works with await using", async () => {
    let disposed = false;
    {
      await using app = await Application.start({
        configuration: () => ({ dispose: () => void (disposed = true) }),
      });
      assert.equal(app.services.has("config"), true);
    }
    assert.equal(disposed, true);
  });
});

describe("KIT_LOG_LEVEL=debug", () => {
  async function debugLines(level: string | undefined): Promise<string[]> {
    const lines: string[] = [];
    const saved = process.env.KIT_LOG_LEVEL;
    if (level === undefined) delete process.env.KIT_LOG_LEVEL;
    else process.env.KIT_LOG_LEVEL = level;
    try {
      const app = await Application.start({
        configuration: () => ({}),
        logging: () => ({
          getLogger: () => ({
            debug: (message: string) => lines.push(message),
            info: () => {},
            warning: () => {},
            error: () => {},
          }),
        }),
        services: (services) => {
          services.register("users", () => ({}), { eager: true });
        },
      });
      await app.stop();
    } finally {
      if (saved === undefined) delete process.env.KIT_LOG_LEVEL;
      else process.env.KIT_LOG_LEVEL = saved;
    }
    return lines;
  }

  it("logs each step with its duration and every service creation", async () => {
    const lines = await debugLines("Debug");
    for (
      const pattern of [
        /^Start-up step 2 \(logging\) done in [\d.]+ ms$/,
        /^Start-up step 4 \(services\) done in [\d.]+ ms$/,
        /^Service 'users' created in [\d.]+ ms$/,
      ]
    ) {
      assert.ok(lines.some((line) => pattern.test(line)), `${pattern}`);
    }
  });

  it("logs none of it otherwise", async () => {
    assert.deepEqual(await debugLines(undefined), []);
    assert.deepEqual(await debugLines("info"), []);
  });
});
