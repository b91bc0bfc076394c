// The example service (examples/service) in a real child process: every
// route over loopback HTTP, user:created reaching a real analytics collector,
// Redis through the cache (a real redis-server stopped under it), and
// SIGTERM ending with 0. Deno runs the sources here; Node.js and Bun run the
// service built from the npm packages in scripts/service_check.ts (it needs
// the packed packages), so the npm passes skip this file.
import { after, before, describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createServer as createNetServer } from "node:net";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { isNpmPass } from "../_support/module_url.ts";
import { startTestServer } from "../_support/http_server.ts";
import { untilListening } from "../_support/listening.ts";
import { skipUnlessPostgres, startPostgres } from "../_support/postgres.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const SKIP = isNpmPass()
  ? "the npm passes run tests against the packages; scripts/service_check.ts starts the service on Node.js and Bun"
  : false;

interface Service {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function startService(
  env: Record<string, string | undefined> = {},
): Promise<Service> {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const merged: Record<string, string> = {};
  const base = { ...process.env };
  for (
    const name of [
      "RUNTIME_ENV",
      "DB_CONNECTION_STRING",
      "REDIS_HOST",
      "LOG_REMOTE_ENDPOINT",
      "KIT_CONFIG_PATH",
    ]
  ) delete base[name];
  for (
    const [key, value] of Object.entries({
      ...base,
      PORT: "0",
      APP_SERVER__HOST: "127.0.0.1",
      ...env,
    })
  ) {
    if (value !== undefined) merged[key] = value;
  }
  const child = spawn(
    process.execPath,
    ["run", "-A", "examples/service/main.ts"],
    { cwd: root, env: merged, stdio: ["ignore", "pipe", "pipe"] },
  );
  return { ...(await untilListening(child)), child };
}

async function stopService(service: Service): Promise<number | null> {
  if (service.child.exitCode !== null) return service.child.exitCode;
  // process.kill rather than child.kill: Deno's child_process records a
  // signal sent through child.kill as the cause of exit even when the child
  // handled it and exited with its own code.
  process.kill(service.child.pid!, "SIGTERM");
  return await service.exited;
}

async function json(
  response: Response,
): Promise<Record<string, unknown>> {
  return await response.json() as Record<string, unknown>;
}

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const server = createNetServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

describe("example service: routes", { skip: SKIP }, () => {
  let service: Service;
  before(async () => {
    service = await startService();
  });
  after(async () => {
    if (service) await stopService(service);
  });

  it("GET /health answers 200 with every check in JSON", async () => {
    const response = await fetch(`${service.url}/health`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "no-store");
    const body = await json(response);
    assert.equal(body.status, "healthy");
    assert.deepEqual(
      Object.keys(body.checks as object).sort(),
      ["analytics", "cache", "config", "logging"],
    );
  });

  it("the server's probes: GET /health/live and /health/ready answer 200", async () => {
    const live = await fetch(`${service.url}/health/live`);
    assert.equal(live.status, 200);
    assert.deepEqual(await json(live), { status: "alive" });
    const ready = await fetch(`${service.url}/health/ready`);
    assert.equal(ready.status, 200);
    await ready.body?.cancel();
  });

  it("a JSON body over server:maxBodySize (64 KiB) is refused with 413", async () => {
    const response = await fetch(`${service.url}/api/users`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "Ada",
        email: "ada@example.com",
        note: "x".repeat(64 * 1024),
      }),
    });
    assert.equal(response.status, 413);
    assert.match(
      String((await json(response)).message),
      /larger than the limit of 65536 bytes \(server:maxBodySize\)/,
    );
  });

  it("every answer carries a request id, kept from X-Request-ID", async () => {
    const response = await fetch(`${service.url}/api/hello`, {
      headers: { "X-Request-ID": "req-42" },
    });
    await response.body?.cancel();
    assert.equal(response.headers.get("x-request-id"), "req-42");
  });

  it("GET /api/localization/{culture}.json serves the resource", async () => {
    const response = await fetch(`${service.url}/api/localization/fr-FR.json`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-language"), "fr-FR");
    const body = await json(response);
    assert.equal(
      (body.hello as Record<string, string>).greeting,
      "Bonjour, {0} !",
    );
    const lower = await fetch(`${service.url}/api/localization/de-de.json`);
    assert.equal(lower.status, 200);
    assert.equal(lower.headers.get("content-language"), "de-DE");
    await lower.body?.cancel();
  });

  it("an invalid culture is a 400 and an unknown one a 404, with a message", async () => {
    for (
      const path of [
        "..%2Fappsettings.json",
        "..%2F..%2Fdeno.json",
        "%2e%2e.json",
        "en-US",
        "en_US.json",
        "a.json",
      ]
    ) {
      const response = await fetch(`${service.url}/api/localization/${path}`);
      assert.equal(response.status, 400, path);
      assert.match(String((await json(response)).message), /culture/);
    }
    const unknown = await fetch(`${service.url}/api/localization/pt-BR.json`);
    assert.equal(unknown.status, 404);
    assert.match(
      String((await json(unknown)).message),
      /No translations for culture pt-BR; available: en-US, fr-FR, de-DE/,
    );
    // A path with more segments never reaches the resource route.
    const deeper = await fetch(
      `${service.url}/api/localization/../../deno.json`,
    );
    assert.notEqual(deeper.status, 200);
    await deeper.body?.cancel();
  });

  it("GET /api/hello negotiates the culture", async () => {
    const cases: [Record<string, string>, string, string, string][] = [
      [{}, "", "en-US", "Hello, stranger!"],
      [{}, "?name=Ada", "en-US", "Hello, Ada!"],
      [
        { "Accept-Language": "fr-CH, fr;q=0.9, en;q=0.8" },
        "?name=Ada",
        "fr-FR",
        "Bonjour, Ada !",
      ],
      [
        { "Accept-Language": "es;q=1, de;q=0.5, fr;q=0.1" },
        "?name=Ada",
        "de-DE",
        "Hallo, Ada!",
      ],
      [
        { "Accept-Language": "fr" },
        "?name=Ada&culture=de-DE",
        "de-DE",
        "Hallo, Ada!",
      ],
      [{ "Accept-Language": "pt-BR" }, "?name=Ada", "en-US", "Hello, Ada!"],
    ];
    for (const [headers, query, culture, message] of cases) {
      for (let round = 0; round < 2; round++) { // the second from the cache
        const response = await fetch(`${service.url}/api/hello${query}`, {
          headers,
        });
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-language"), culture);
        assert.deepEqual(await json(response), { message, culture });
      }
    }
    const long = await fetch(
      `${service.url}/api/hello?name=${"x".repeat(101)}`,
    );
    assert.equal(long.status, 400);
    assert.match(String((await json(long)).message), /name/);
  });

  it("POST /api/users stores a user that GET /api/users/:id reads", async () => {
    const created = await fetch(`${service.url}/api/users`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: " Ada ", email: "ada@example.com" }),
    });
    assert.equal(created.status, 201);
    const user = await json(created);
    assert.equal(user.name, "Ada");
    assert.match(String(user.id), /^[0-9a-f-]{36}$/);
    assert.equal(created.headers.get("location"), `/api/users/${user.id}`);
    for (let round = 0; round < 2; round++) {
      const read = await fetch(`${service.url}/api/users/${user.id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(await json(read), user);
    }
    const missing = await fetch(
      `${service.url}/api/users/${crypto.randomUUID()}`,
    );
    assert.equal(missing.status, 404);
    assert.match(String((await json(missing)).message), /User not found/);
    const bad = await fetch(`${service.url}/api/users/1%27%20OR%201=1`);
    assert.equal(bad.status, 400);
    assert.match(String((await json(bad)).message), /id must be a UUID/);
  });

  it("validation errors are 400 with a message naming the field", async () => {
    const cases: [string, string][] = [
      ['{"email":"ada@example.com"}', "name"],
      ['{"name":"","email":"ada@example.com"}', "name"],
      [`{"name":"${"x".repeat(101)}","email":"ada@example.com"}`, "name"],
      ['{"name":"Ada"}', "email"],
      ['{"name":"Ada","email":"not an address"}', "email"],
      ["[1,2]", "body"],
      ["{not json", "body"],
    ];
    for (const [body, field] of cases) {
      const response = await fetch(`${service.url}/api/users`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      assert.equal(response.status, 400, body);
      const answer = await json(response);
      assert.equal(answer.field, field, body);
      if (field !== "body") {
        assert.match(String(answer.message), new RegExp(`^${field} `));
      }
    }
  });

  it("an unknown route is a JSON 404", async () => {
    const response = await fetch(`${service.url}/nothing/here`);
    assert.equal(response.status, 404);
    assert.equal(
      (await json(response)).message,
      "Nothing at GET /nothing/here",
    );
  });

  it("SIGTERM stops it with exit code 0, its last line saying so", async () => {
    const code = await stopService(service);
    assert.equal(code, 0);
    const lines = service.output().trim().split("\n");
    assert.match(lines[lines.length - 1], /Application stopped in/);
    assert.match(service.output(), /Received SIGTERM: stopping/);
  });
});

describe("example service: graceful shutdown", { skip: SKIP }, () => {
  it("SIGTERM: readiness turns 503, a request in flight finishes during the drain, then exit 0", async () => {
    // As behind a load balancer (appsettings.production.json has 5000).
    const service = await startService({ APP_SERVER__DRAIN_DELAY: "1000" });
    const { hostname, port } = new URL(service.url);
    const probes: Record<string, number> = {};
    // A POST whose body arrives in two parts, SIGTERM sent in between.
    const answer = new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const request = httpRequest({
          hostname,
          port,
          method: "POST",
          path: "/api/users",
          headers: { "Content-Type": "application/json" },
        }, (response) => {
          let body = "";
          response.on("data", (chunk) => body += chunk);
          response.on(
            "end",
            () => resolve({ status: response.statusCode ?? 0, body }),
          );
        });
        request.on("error", reject);
        request.write('{"name":"Ada",');
        setTimeout(() => {
          process.kill(service.child.pid!, "SIGTERM");
          setTimeout(async () => {
            for (const path of ["/health/ready", "/health/live"]) {
              const probe = await fetch(`${service.url}${path}`);
              await probe.body?.cancel();
              probes[path] = probe.status;
            }
            request.end('"email":"ada@example.com"}');
          }, 300);
        }, 300);
      },
    );
    const result = await answer;
    assert.equal(result.status, 201, result.body);
    assert.equal(JSON.parse(result.body).name, "Ada");
    assert.deepEqual(probes, { "/health/ready": 503, "/health/live": 200 });
    assert.equal(await service.exited, 0);
    const output = service.output();
    assert.ok(
      output.indexOf("POST /api/users 201") <
        output.indexOf("Application stopped in"),
      output,
    );
  });
});

describe("example service: user:created", { skip: SKIP }, () => {
  it("reaches the analytics collector through the subscriber", async () => {
    const events: Record<string, unknown>[] = [];
    const collector = await startTestServer((request, response) => {
      const body = JSON.parse(request.body) as { events?: unknown[] };
      for (const event of body.events ?? []) {
        events.push(event as Record<string, unknown>);
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"ok":true}');
    });
    const service = await startService({
      APP_ANALYTICS__ENDPOINT: `${collector.url}/collect`,
      ANALYTICS_API_KEY: "test-key",
      APP_ANALYTICS__BATCH_SIZE: "1",
      APP_ANALYTICS__FLUSH_INTERVAL: "50",
    });
    try {
      const created = await fetch(`${service.url}/api/users`, {
        method: "POST",
        body: JSON.stringify({ name: "Grace", email: "grace@example.com" }),
      });
      const user = await json(created);
      const deadline = Date.now() + 10_000;
      while (events.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const event = events.find((e) => e.name === "user_created");
      assert.ok(event, JSON.stringify(events));
      assert.equal(
        (event.properties as Record<string, unknown>).userId,
        user.id,
      );
      // No personal data leaves with it.
      assert.doesNotMatch(JSON.stringify(events), /grace@example\.com/);
      const health = await json(await fetch(`${service.url}/health`));
      assert.equal(
        (health.checks as Record<string, { status: string }>).analytics
          .status,
        "healthy",
      );
    } finally {
      assert.equal(await stopService(service), 0);
      await collector.close();
    }
  });
});

const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;

describe("example service: Redis", {
  skip: SKIP || (!hasRedis && "redis-server is not installed"),
}, () => {
  it("caches in Redis; without it /health is degraded (200) and routes still answer", async () => {
    const port = await freePort();
    const start = (): ChildProcess =>
      spawn("redis-server", [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
      ], { stdio: "ignore" });
    let redis = start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const service = await startService({
      REDIS_HOST: "127.0.0.1",
      REDIS_PORT: String(port),
    });
    const health = async (): Promise<Record<string, unknown>> =>
      await json(await fetch(`${service.url}/health`));
    const cacheStatus = (body: Record<string, unknown>): string =>
      (body.checks as Record<string, { status: string }>).cache.status;
    const waitForCache = async (status: string): Promise<void> => {
      const deadline = Date.now() + 15_000;
      while (cacheStatus(await health()) !== status) {
        if (Date.now() > deadline) {
          assert.fail(`the cache check never became ${status}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      await waitForCache("healthy");
      const hello = await fetch(`${service.url}/api/hello?name=Ada`);
      assert.equal(hello.status, 200);
      await hello.body?.cancel();
      const keys = spawnSync("redis-cli", ["-p", String(port), "--scan"], {
        encoding: "utf8",
      }).stdout;
      assert.match(keys, /kit-service:greetings:en-US:Ada/);

      const exited = new Promise((resolve) => redis.on("exit", resolve));
      redis.kill("SIGTERM");
      await exited;
      await waitForCache("degraded");
      const response = await fetch(`${service.url}/health`);
      assert.equal(response.status, 200);
      assert.equal((await json(response)).status, "degraded");
      const missed = await fetch(`${service.url}/api/hello?name=Bob`);
      assert.equal(missed.status, 200);
      assert.equal((await json(missed)).message, "Hello, Bob!");

      redis = start();
      await waitForCache("healthy");
    } finally {
      assert.equal(await stopService(service), 0);
      redis.kill("SIGTERM");
    }
  });
});

// A real PostgreSQL (Debian's package), started by the database tests'
// fixture (as the postgres user when root), trust authentication on
// loopback.
const pgSkip = SKIP || skipUnlessPostgres();

describe("example service: PostgreSQL", { skip: pgSkip }, () => {
  it("a session per request: with a pool of one connection, concurrent requests each get it and give it back; the table comes from the service's migration", async () => {
    const server = await startPostgres();
    let service: Service | undefined;
    try {
      service = await startService({
        DB_CONNECTION_STRING: server.url(),
        DB_POOL_SIZE: "1",
        DB_TIMEOUT: "2000",
      });
      const url = service.url;
      // A session that kept its connection after its response would leave
      // the next request waiting for the pool until DB_TIMEOUT: a 500.
      const created = await Promise.all(
        Array.from({ length: 6 }, async (_, index) => {
          const response = await fetch(`${url}/api/users`, {
            method: "POST",
            body: JSON.stringify({
              name: `User ${index}`,
              email: `user${index}@example.com`,
            }),
          });
          assert.equal(response.status, 201);
          return (await json(response)).id as string;
        }),
      );
      const read = await Promise.all(created.map(async (id) => {
        const response = await fetch(`${url}/api/users/${id}`);
        assert.equal(response.status, 200);
        return (await json(response)).id;
      }));
      assert.deepEqual(read, created);
      const health = await json(await fetch(`${url}/health`));
      assert.equal(
        (health.checks as Record<string, { status: string }>).database.status,
        "healthy",
      );
      // Applied at start-up from examples/service/migrations/, once.
      assert.equal(
        server.sql("SELECT string_agg(name, ',') FROM kit_migrations"),
        "001_create_users.sql",
      );
      assert.equal(await stopService(service), 0);
    } finally {
      if (service) await stopService(service);
      await server.close();
    }
  });
});
