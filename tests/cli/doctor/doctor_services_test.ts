// The doctor's service checks with --connect, against a real redis-server
// (with a password) and loopback HTTP servers: Redis answers PING with the
// configured password, the API base address answers, the localization
// address of the configured culture returns a resource, and the remote log
// and analytics endpoints accept an empty batch carrying the API key. No
// password or key reaches the output.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, it as nodeIt, test as nodeTest } from "node:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { redisSkip, startRedisServer } from "../../caching/_redis_server.ts";
import {
  startTestServer,
  type TestServer,
} from "../../_support/http_server.ts";
import { checksOf, doctorSkip, fixture, runDoctorJson } from "./_doctor_run.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const LOG_KEY = "log-key-fixture-7f3a9c";
const ANALYTICS_KEY = "analytics-key-fixture-2b8e1d";
const REDIS_PASSWORD = "redis-pass-fixture-55d0";

// A loopback server playing the API, the localization address and the log
// and analytics endpoints.
function services(): Promise<TestServer> {
  return startTestServer((request, response) => {
    const path = request.url;
    if (request.method === "GET" && path === "/api") {
      response.statusCode = 200;
      response.end("{}");
    } else if (path === "/api/localization/fr-FR.json") {
      response.setHeader("content-type", "application/json");
      response.end('{"greeting":{"hello":"Bonjour {0}"}}');
    } else if (request.method === "POST" && path === "/logs") {
      response.statusCode = request.headers["x-api-key"] === LOG_KEY
        ? 202
        : 401;
      response.end();
    } else if (request.method === "POST" && path === "/otlp/v1/logs") {
      response.setHeader("content-type", "application/json");
      response.end("{}");
    } else if (request.method === "POST" && path === "/events") {
      response.statusCode = request.headers["x-api-key"] === ANALYTICS_KEY
        ? 204
        : 403;
      response.end();
    } else {
      response.statusCode = 404;
      response.end('{"message":"not here"}');
    }
  });
}

function addresses(server: TestServer): Record<string, string> {
  return {
    API_BASE_URL: `${server.url}/api`,
    APP_LOCALIZATION__RESOURCE_URL:
      `${server.url}/api/localization/{culture}.json`,
    LOG_REMOTE_ENDPOINT: `${server.url}/logs`,
    LOGGING_API_KEY: LOG_KEY,
    APP_ANALYTICS__ENDPOINT: `${server.url}/events`,
    ANALYTICS_API_KEY: ANALYTICS_KEY,
  };
}

function statusOf(
  report: Awaited<ReturnType<typeof runDoctorJson>>["report"],
): Record<string, string> {
  return Object.fromEntries(
    checksOf(report, "Services").map((check) => [check.name, check.status]),
  );
}

if (doctorSkip !== false) {
  test("kit doctor service checks", { skip: doctorSkip }, () => {});
} else {
  describe("kit doctor service checks (HTTP endpoints)", () => {
    it("reaches the API, the localization resource and the log and analytics endpoints", async () => {
      await using server = await services();
      await using project = await fixture("services");
      const { code, report } = await runDoctorJson([project.dir, "--connect"], {
        env: addresses(server),
      });
      const byName = new Map(
        checksOf(report, "Services").map((c) => [c.name, c]),
      );
      assert.equal(byName.get("API")?.status, "pass");
      assert.match(byName.get("API")!.message, /\/api answered 200$/);
      assert.equal(byName.get("localization")?.status, "pass");
      assert.match(
        byName.get("localization")!.message,
        /\/api\/localization\/fr-FR\.json \(culture fr-FR\) returned a resource of 1 top-level keys/,
      );
      assert.equal(byName.get("remote log")?.status, "pass");
      assert.match(
        byName.get("remote log")!.message,
        /\/logs accepted an empty batch \(202\)/,
      );
      assert.equal(byName.get("analytics")?.status, "pass");
      // The Redis of the fixture (port 9) is not running.
      assert.equal(byName.get("Redis")?.status, "fail");
      assert.equal(code, 1);
      const log = server.requests.find((r) => r.url === "/logs")!;
      assert.equal(log.method, "POST");
      assert.equal(log.body, '{"entries":[]}');
      assert.equal(log.headers["x-api-key"], LOG_KEY);
      const events = server.requests.find((r) => r.url === "/events")!;
      assert.equal(events.body, '{"events":[]}');
      assert.equal(events.headers["x-api-key"], ANALYTICS_KEY);
      const text = JSON.stringify(report);
      assert.ok(!text.includes(LOG_KEY) && !text.includes(ANALYTICS_KEY));
    });

    it("says what to do when an endpoint refuses, is missing or does not answer", async () => {
      await using server = await services();
      await using project = await fixture("services");
      const { code, report } = await runDoctorJson([
        project.dir,
        "--connect",
        "--timeout",
        "1000",
      ], {
        env: {
          ...addresses(server),
          API_BASE_URL: "http://127.0.0.1:9/api",
          APP_LOCALIZATION__DEFAULT_CULTURE: "de-DE",
          LOGGING_API_KEY: "a-wrong-log-key-123",
          ANALYTICS_API_KEY: "",
        },
      });
      assert.equal(code, 1);
      const byName = new Map(
        checksOf(report, "Services").map((c) => [c.name, c]),
      );
      const api = byName.get("API")!;
      assert.equal(api.status, "fail");
      assert.match(
        api.message,
        /http:\/\/127\.0\.0\.1:9\/api \(api:baseUrl from env API_BASE_URL\) did not answer/,
      );
      assert.match(
        api.advice!,
        /start the service, or set api:baseUrl from env API_BASE_URL to where it runs/,
      );
      const localization = byName.get("localization")!;
      assert.equal(localization.status, "fail");
      assert.match(
        localization.message,
        /de-DE\.json \(culture de-DE\) answered 404/,
      );
      assert.match(
        localization.advice!,
        /publish the de-DE translations at that address, or set localization:defaultCulture/,
      );
      const log = byName.get("remote log")!;
      assert.match(log.message, /answered 401/);
      assert.match(
        log.advice!,
        /refuses the key: set LOGGING_API_KEY \(logging:apiKey\)/,
      );
      assert.match(byName.get("analytics")!.advice!, /\(none is set\)/);
      assert.ok(!JSON.stringify(report).includes("a-wrong-log-key-123"));
    });

    it("fails the Redis check at once when the port closes the connection without an answer", async () => {
      // Something other than Redis on the port: it accepts and hangs up.
      const closer = createServer((socket) => socket.destroy());
      await new Promise<void>((resolve) =>
        closer.listen(0, "127.0.0.1", resolve)
      );
      try {
        const { port } = closer.address() as AddressInfo;
        await using project = await fixture("services");
        const { code, report } = await runDoctorJson([
          project.dir,
          "--connect",
          "--timeout",
          "20000",
        ], {
          env: { REDIS_HOST: "127.0.0.1", REDIS_PORT: String(port) },
        });
        const redis = checksOf(report, "Services").find((c) =>
          c.name === "Redis"
        )!;
        assert.equal(redis.status, "fail", JSON.stringify(redis));
        // Closed (or reset, when the hang-up races the commands), and said
        // so at once rather than after the 20 s timeout.
        assert.match(
          redis.message,
          /did not answer: .*(closed the connection without an answer|reset|ECONNRESET|EPIPE)/i,
        );
        assert.doesNotMatch(redis.message, /no answer within/);
        assert.equal(code, 1);
      } finally {
        await new Promise((resolve) => closer.close(resolve));
      }
    });

    it("probes a remote provider of format otlp at the OTLP endpoint with an empty OTLP request", async () => {
      await using server = await services();
      await using project = await fixture("services");
      const file = join(project.dir, "appsettings.json");
      const settings = JSON.parse(await readFile(file, "utf8"));
      settings.logging.providers[1].options = { format: "otlp" };
      await writeFile(file, JSON.stringify(settings));
      const { report } = await runDoctorJson([project.dir, "--connect"], {
        env: {
          ...addresses(server),
          OTEL_EXPORTER_OTLP_ENDPOINT: `${server.url}/otlp/`,
        },
      });
      const log = checksOf(report, "Services").find((c) =>
        c.name === "remote log"
      )!;
      assert.equal(log.status, "pass", JSON.stringify(log));
      assert.match(
        log.message,
        /\/otlp\/v1\/logs accepted an empty batch \(200\)/,
      );
      const sent = server.requests.find((r) => r.url === "/otlp/v1/logs")!;
      assert.equal(sent.body, '{"resourceLogs":[]}');
      assert.ok(!server.requests.some((r) => r.url === "/logs"));
    });

    it("stops reading a localization answer beyond 4 MiB and fails the check", async () => {
      // Not a translation file: 5 MiB of something else.
      await using server = await startTestServer((_request, response) => {
        response.setHeader("content-type", "application/json");
        response.end("x".repeat(5 * 1024 * 1024));
      });
      await using project = await fixture("services");
      const { report } = await runDoctorJson([
        project.dir,
        "--connect",
        "--timeout",
        "20000",
      ], {
        env: {
          APP_LOCALIZATION__RESOURCE_URL:
            `${server.url}/api/localization/{culture}.json`,
        },
      });
      const localization = checksOf(report, "Services").find((c) =>
        c.name === "localization"
      )!;
      assert.equal(localization.status, "fail");
      assert.match(localization.message, /larger than 4 MiB/);
    });

    it("contacts nothing without --connect", async () => {
      await using server = await services();
      await using project = await fixture("services");
      const { report } = await runDoctorJson([project.dir], {
        env: addresses(server),
      });
      assert.deepEqual(statusOf(report), { services: "skip" });
      assert.equal(server.requests.length, 0);
    });
  });

  if (redisSkip !== false) {
    test("kit doctor service checks (Redis)", { skip: redisSkip }, () => {});
  } else {
    describe("kit doctor service checks (Redis)", () => {
      it("passes when Redis answers PING with the configured password, never printing it", async () => {
        await using redis = await startRedisServer({
          password: REDIS_PASSWORD,
        });
        await using server = await services();
        await using project = await fixture("services");
        const { code, report } = await runDoctorJson(
          [project.dir, "--connect"],
          {
            env: {
              ...addresses(server),
              REDIS_HOST: redis.host,
              REDIS_PORT: String(redis.port),
              REDIS_PASSWORD: REDIS_PASSWORD,
            },
          },
        );
        const check = checksOf(report, "Services").find((c) =>
          c.name === "Redis"
        )!;
        assert.equal(check.status, "pass", JSON.stringify(check));
        assert.equal(
          check.message,
          `127.0.0.1:${redis.port} answered PING with the password of cache:redis:password from env REDIS_PASSWORD`,
        );
        assert.equal(code, 0, JSON.stringify(report, null, 2));
        assert.ok(!JSON.stringify(report).includes(REDIS_PASSWORD));
      });

      it("fails with what to do for a missing or wrong password", async () => {
        await using redis = await startRedisServer({
          password: REDIS_PASSWORD,
        });
        await using project = await fixture("services");
        const base = { REDIS_HOST: redis.host, REDIS_PORT: String(redis.port) };
        const none = await runDoctorJson([project.dir, "--connect"], {
          env: base,
        });
        const noAuth = checksOf(none.report, "Services").find((c) =>
          c.name === "Redis"
        )!;
        assert.equal(noAuth.status, "fail");
        assert.match(
          noAuth.message,
          /answered -NOAUTH .*\(without a password\)/,
        );
        assert.match(noAuth.advice!, /requires a password: set REDIS_PASSWORD/);
        const wrong = await runDoctorJson([project.dir, "--connect"], {
          env: { ...base, REDIS_PASSWORD: "not-the-password-xyz" },
        });
        const refused = checksOf(wrong.report, "Services").find((c) =>
          c.name === "Redis"
        )!;
        assert.equal(refused.status, "fail");
        assert.match(refused.message, /answered -WRONGPASS/);
        assert.match(refused.advice!, /refuses the password/);
        assert.ok(
          !JSON.stringify(wrong.report).includes("not-the-password-xyz"),
        );
      });
    });
  }
}
