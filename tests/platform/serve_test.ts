// Application.start({ serve }): the host listens once start-up is done,
// through app.handle, on the bound address in app.url; options from code,
// then configuration, then PORT; bad values and a port in use fail start-up.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { createServer } from "node:net";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Application,
  ApplicationStartError,
  ServerSettingError,
} from "../../platform/mod.ts";
import { isKitError, KitError, SettingError } from "../../core/mod.ts";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { send } from "./_serve_support.ts";

const hello = (): Response => new Response("hello");

describe("Application serve", () => {
  it("listens on an ephemeral port once start-up is done, through app.handle", async () => {
    const order: string[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      services: (_services, _config, app) => {
        app.addHostedService("worker", {
          start: () => void order.push("hosted started"),
          stop: () => {},
        });
      },
      serve: (_services, _config, app) => {
        order.push("serve called");
        assert.equal(app.url, undefined);
        return (request: Request) =>
          new Response(`${request.method} ${new URL(request.url).pathname}`);
      },
      server: { port: 0, hostname: "127.0.0.1" },
    });
    assert.deepEqual(order, ["hosted started", "serve called"]);
    assert.match(app.url!, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(app.url!).port, "0");
    const answer = await send(app.url!, "/a/b?x=1", {
      headers: { "X-Request-ID": "req-42" },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "GET /a/b");
    assert.equal(answer.headers["x-request-id"], "req-42");
  });

  it("passes statuses, repeated headers, streamed and byte bodies through", async () => {
    await using app = await Application.start({
      configuration: () => ({}),
      serve: () => (request: Request) => {
        const path = new URL(request.url).pathname;
        if (path === "/stream") {
          const parts = ["one ", "two ", "three"];
          return new Response(
            new ReadableStream<Uint8Array>({
              pull(controller) {
                const part = parts.shift();
                if (part === undefined) controller.close();
                else controller.enqueue(new TextEncoder().encode(part));
              },
            }),
          );
        }
        if (path === "/bytes") {
          return new Response(new Uint8Array([104, 105]), { status: 201 });
        }
        const headers = new Headers({ "Content-Type": "text/plain" });
        headers.append("Set-Cookie", "a=1");
        headers.append("Set-Cookie", "b=2");
        return new Response("héllo", { status: 202, headers });
      },
      server: { port: 0, hostname: "127.0.0.1" },
    });
    const text = await send(app.url!, "/");
    assert.equal(text.status, 202);
    assert.equal(text.body, "héllo");
    assert.deepEqual(text.headers["set-cookie"], ["a=1", "b=2"]);
    assert.equal((await send(app.url!, "/stream")).body, "one two three");
    const bytes = await send(app.url!, "/bytes");
    assert.equal(bytes.status, 201);
    assert.equal(bytes.body, "hi");
  });

  it("does not listen without serve", async () => {
    await using app = await Application.start({ configuration: () => ({}) });
    assert.equal(app.url, undefined);
  });

  it("reads server:port and server:host from the configuration", async () => {
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({ "server:port": "0", "server:host": "127.0.0.1" }),
    );
    await using app = await Application.start({
      configuration: async () => {
        await config.loadConfiguration();
        return config;
      },
      serve: () => hello,
    });
    assert.match(app.url!, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await send(app.url!, "/")).body, "hello");
  });

  it("takes code before configuration", async () => {
    const config = new ConfigurationManager();
    config.addProvider(new MemoryProvider({ "server:port": "abc" }));
    await using app = await Application.start({
      configuration: async () => {
        await config.loadConfiguration();
        return config;
      },
      serve: () => hello,
      server: { port: 0, hostname: "127.0.0.1" },
    });
    assert.equal((await send(app.url!, "/")).status, 200);
  });

  it("falls back to the PORT variable", async () => {
    const saved = process.env.PORT;
    process.env.PORT = "0";
    try {
      await using app = await Application.start({
        configuration: () => ({}),
        serve: () => hello,
        server: { hostname: "127.0.0.1" },
      });
      assert.equal((await send(app.url!, "/")).status, 200);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });

  it("fails start-up on a bad APP_SERVER__PORT, naming the key and the variable", async () => {
    process.env.APP_SERVER__PORT = "abc";
    try {
      const config = new ConfigurationManager();
      config.addEnvironmentVariables("APP");
      let served = false;
      await assert.rejects(
        Application.start({
          configuration: async () => {
            await config.loadConfiguration();
            return config;
          },
          serve: () => {
            served = true;
            return hello;
          },
        }),
        (error: unknown) => {
          assert.ok(error instanceof ApplicationStartError);
          assert.equal(
            error.message,
            'Start-up step 1 (configuration) failed: server:port must be a whole number from 0 to 65535: "abc" (from APP_SERVER__PORT)',
          );
          return true;
        },
      );
      assert.equal(served, false);
    } finally {
      delete process.env.APP_SERVER__PORT;
    }
  });

  it("names the code option when it is the bad value", async () => {
    await assert.rejects(
      Application.start({
        configuration: () => ({}),
        serve: () => hello,
        server: { maxBodySize: -1 },
      }),
      {
        message:
          "Start-up step 1 (configuration) failed: server:maxBodySize must be a whole number from 1 to 9007199254740991: -1 (from the server option maxBodySize)",
      },
    );
  });

  it("reads host:shutdownTimeout after step 1; app.shutdownTimeout tells the value in force", async () => {
    const config = new ConfigurationManager();
    config.addProvider(new MemoryProvider({ "host:shutdownTimeout": "1234" }));
    await using app = await Application.start({
      configuration: async () => {
        await config.loadConfiguration();
        return config;
      },
    });
    assert.equal(app.shutdownTimeout, 1234);
    await using coded = await Application.start({
      configuration: () => config,
      shutdownTimeout: 50,
    });
    assert.equal(coded.shutdownTimeout, 50);
    await using plain = await Application.start({ configuration: () => ({}) });
    assert.equal(plain.shutdownTimeout, 10_000);
  });

  it("fails start-up on a bad host:shutdownTimeout, naming its source", async () => {
    const config = new ConfigurationManager();
    config.addProvider(new MemoryProvider({ "host:shutdownTimeout": "soon" }));
    await assert.rejects(
      Application.start({
        configuration: async () => {
          await config.loadConfiguration();
          return config;
        },
      }),
      {
        message:
          'Start-up step 1 (configuration) failed: host:shutdownTimeout must be a whole number from 0 to 2147483647: "soon" (from memory)',
      },
    );
  });

  it("quotes a bad value read from a _FILE variable as ***, never its content", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kit-serve-"));
    const file = join(dir, "max_body_size");
    await writeFile(file, "s3cret-sized\n");
    process.env.APP_SERVER__MAX_BODY_SIZE_FILE = file;
    try {
      const config = new ConfigurationManager();
      config.addEnvironmentVariables("APP");
      await assert.rejects(
        Application.start({
          configuration: async () => {
            await config.loadConfiguration();
            return config;
          },
          serve: () => hello,
          server: { port: 0, hostname: "127.0.0.1" },
        }),
        {
          message:
            "Start-up step 1 (configuration) failed: server:maxBodySize must be a whole number from 1 to 9007199254740991: *** (from APP_SERVER__MAX_BODY_SIZE_FILE)",
        },
      );
    } finally {
      delete process.env.APP_SERVER__MAX_BODY_SIZE_FILE;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("masks a URL's password in a bad value", async () => {
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({
        "server:port": "redis://app:hunter2@cache:6379/0",
        "server:host": "127.0.0.1",
      }),
    );
    await assert.rejects(
      Application.start({
        configuration: async () => {
          await config.loadConfiguration();
          return config;
        },
        serve: () => hello,
      }),
      {
        message:
          'Start-up step 1 (configuration) failed: server:port must be a whole number from 0 to 65535: "redis://app:***@cache:6379/0" (from memory)',
      },
    );
  });

  it("quotes at most 60 characters of a long bad value", async () => {
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({
        "server:idleTimeout": "9".repeat(100_000),
        "host:shutdownTimeout": "8".repeat(100_000),
      }),
    );
    await assert.rejects(
      Application.start({
        configuration: async () => {
          await config.loadConfiguration();
          return config;
        },
        serve: () => hello,
        server: { port: 0, hostname: "127.0.0.1" },
      }),
      {
        message:
          `Start-up step 1 (configuration) failed: host:shutdownTimeout must be a whole number from 0 to 2147483647: "${
            "8".repeat(57)
          }..." (from memory)`,
      },
    );
    await assert.rejects(
      Application.start({
        configuration: () => config,
        serve: () => hello,
        server: { port: 0, hostname: "127.0.0.1" },
        shutdownTimeout: 10,
      }),
      {
        message:
          `Start-up step 1 (configuration) failed: server:idleTimeout must be a whole number from 1 to 2147483647: "${
            "9".repeat(57)
          }..." (from memory)`,
      },
    );
  });

  it("quotes a bad host that is no text by what it is", async () => {
    await assert.rejects(
      Application.start({
        configuration: () => ({ server: { host: { name: "db" } } }),
        serve: () => hello,
      }),
      {
        message:
          "Start-up step 1 (configuration) failed: server:host must be a host name or an IP address: an object (from the configuration)",
      },
    );
  });

  it("throws a ServerSettingError as the cause: a SettingError with key and source, still a RangeError", async () => {
    // The cause of the start-up error, for the options given.
    const causeOf = async (
      options: Omit<Parameters<typeof Application.start>[0], "serve">,
    ): Promise<ServerSettingError> => {
      const error = await Application.start({ ...options, serve: () => hello })
        .then(
          () => assert.fail("start-up should fail"),
          (error: unknown) => error,
        );
      assert.ok(error instanceof ApplicationStartError);
      const cause = error.cause;
      assert.ok(cause instanceof ServerSettingError);
      assert.ok(cause instanceof RangeError, "callers catching RangeError");
      assert.ok(cause instanceof SettingError);
      assert.ok(cause instanceof KitError);
      assert.ok(isKitError(cause, "server_setting"));
      assert.equal(cause.name, "ServerSettingError");
      return cause;
    };
    process.env.APP_SERVER__PORT = "abc";
    try {
      const config = new ConfigurationManager();
      config.addEnvironmentVariables("APP");
      await config.loadConfiguration();
      const fromVariable = await causeOf({ configuration: () => config });
      assert.equal(fromVariable.key, "server:port");
      assert.equal(fromVariable.source, "APP_SERVER__PORT");
    } finally {
      delete process.env.APP_SERVER__PORT;
    }
    const savedPort = process.env.PORT;
    process.env.PORT = "http://app:hunter2@example.com";
    try {
      const fromPort = await causeOf({ configuration: () => ({}) });
      assert.equal(fromPort.key, "server:port");
      assert.equal(fromPort.source, "PORT");
      assert.ok(!fromPort.message.includes("hunter2"), fromPort.message);
    } finally {
      if (savedPort === undefined) delete process.env.PORT;
      else process.env.PORT = savedPort;
    }
    // A value passed in code has no source.
    const inCode = await causeOf({
      configuration: () => ({}),
      server: { maxBodySize: -1 },
    });
    assert.equal(inCode.key, "server:maxBodySize");
    assert.equal(inCode.source, undefined);
    const shutdown = await causeOf({
      configuration: () => ({ host: { shutdownTimeout: "soon" } }),
    });
    assert.equal(shutdown.key, "host:shutdownTimeout");
    assert.equal(shutdown.source, "the configuration");
    const upload = await causeOf({
      configuration: () => ({ features: { maxFileUploadSize: 0 } }),
    });
    assert.equal(upload.key, "features:maxFileUploadSize");
    // A host that is no text is one too (it was a TypeError).
    const host = await causeOf({
      configuration: () => ({ server: { host: { name: "db" } } }),
    });
    assert.equal(host.key, "server:host");
    assert.equal(host.source, "the configuration");
  });

  it("fails start-up when the port is in use, naming the address, and disposes what it made", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) =>
      blocker.listen(0, "127.0.0.1", resolve)
    );
    const port = (blocker.address() as { port: number }).port;
    let disposed = false;
    try {
      await assert.rejects(
        Application.start({
          configuration: () => ({}),
          services: (services) => {
            services.register("thing", () => ({
              dispose: () => void (disposed = true),
            }), { eager: true });
          },
          serve: () => hello,
          server: { port, hostname: "127.0.0.1" },
        }),
        (error: unknown) => {
          assert.ok(error instanceof ApplicationStartError);
          assert.match(
            error.message,
            new RegExp(
              `^Start-up step 4 \\(services\\) failed: cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use`,
            ),
          );
          return true;
        },
      );
      assert.equal(disposed, true);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
