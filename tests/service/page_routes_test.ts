// The routes behind the example service's page, over loopback HTTP against
// the service in a child process (Deno, from the sources): the page and its
// bundle, sign-in, refresh and sign-out with the refresh cookie, the bearer
// check of /api/me (signature, expiry, JWT_SECRET), and the analytics
// intake that forwards the page's events. The browser side is
// page_browser_test.ts.
import {
  after,
  before,
  describe,
  it as nodeIt,
  test as nodeTest,
} from "node:test";
import assert from "node:assert/strict";
import { isNpmPass } from "../_support/module_url.ts";
import {
  type Collector,
  type RunningService,
  startCollector,
  startService,
} from "./_page_service.ts";
import { waitFor } from "../_support/wait_for.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const SKIP = isNpmPass()
  ? "the service runs from the sources on Deno here; scripts/service_check.ts runs the Node.js build"
  : false;

async function json(response: Response): Promise<Record<string, unknown>> {
  return await response.json() as Record<string, unknown>;
}

async function signIn(
  url: string,
  name = "Ada",
): Promise<{ token: string; cookie: string; setCookie: string }> {
  const response = await fetch(`${url}/api/auth/sign-in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name }),
  });
  assert.equal(response.status, 200);
  const setCookie = response.headers.get("set-cookie") ?? "";
  const body = await json(response);
  return {
    token: String(body.token),
    cookie: setCookie.split(";")[0],
    setCookie,
  };
}

function me(url: string, token?: string): Promise<Response> {
  return fetch(`${url}/api/me`, {
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });
}

if (SKIP) {
  test("example service page routes", { skip: SKIP }, () => {});
} else {
  describe("example service page routes", () => {
    let collector: Collector;
    let service: RunningService;
    before(async () => {
      collector = await startCollector();
      service = await startService({
        APP_ANALYTICS__ENDPOINT: `${collector.server.url}/collect`,
        ANALYTICS_API_KEY: "test-key",
        APP_ANALYTICS__BATCH_SIZE: "1",
        APP_ANALYTICS__FLUSH_INTERVAL: "50",
      });
    });
    after(async () => {
      if (service) assert.equal(await service.stop(), 0, service.output());
      await collector?.server.close();
    });

    it("/ and /about answer the page with a Content-Security-Policy; /app.js the bundle", async () => {
      for (const path of ["/", "/about"]) {
        const response = await fetch(`${service.url}${path}`);
        assert.equal(response.status, 200);
        assert.match(response.headers.get("content-type") ?? "", /text\/html/);
        assert.match(
          response.headers.get("content-security-policy") ?? "",
          /default-src 'self'/,
        );
        assert.match(
          await response.text(),
          /<script type="module" src="\/app.js">/,
        );
      }
      const script = await fetch(`${service.url}/app.js`);
      assert.equal(script.status, 200);
      assert.match(script.headers.get("content-type") ?? "", /javascript/);
      assert.ok((await script.text()).length > 10_000);
      const other = await fetch(`${service.url}/contact`);
      assert.equal(other.status, 404);
      assert.equal((await json(other)).message, "Nothing at GET /contact");
    });

    it("sign-in answers a token and sets an HttpOnly refresh cookie; a bad name is a 400", async () => {
      const { token, setCookie } = await signIn(service.url);
      assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      assert.match(setCookie, /^kit_refresh=[\w-]{43};/);
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Strict/);
      assert.match(setCookie, /Path=\/api\/auth/);
      assert.doesNotMatch(setCookie, /Secure/); // plain http here
      for (const body of ['{"name":""}', "{}", "not json", '{"name":7}']) {
        const response = await fetch(`${service.url}/api/auth/sign-in`, {
          method: "POST",
          body,
        });
        assert.equal(response.status, 400, body);
        assert.equal((await json(response)).field, "name");
      }
      const huge = await fetch(`${service.url}/api/auth/sign-in`, {
        method: "POST",
        body: JSON.stringify({ name: "x".repeat(10_000) }),
      });
      assert.equal(huge.status, 400);
      await huge.body?.cancel();
    });

    it("/api/me needs a valid bearer token: 401 with WWW-Authenticate otherwise", async () => {
      const { token } = await signIn(service.url, "Grace");
      const ok = await me(service.url, token);
      assert.equal(ok.status, 200);
      const body = await json(ok);
      assert.equal(body.name, "Grace");
      assert.equal(body.message, "Hello, Grace!");
      assert.equal(body.requestId, ok.headers.get("x-request-id"));
      const [, payload, signature] = token.split(".");
      const cases: [string | undefined, RegExp][] = [
        [undefined, /no bearer token/],
        ["not-a-token", /not one this service issued/],
        [`${token.split(".")[0]}.${payload}.${"A".repeat(43)}`, /signature/],
        [`${token.split(".")[0]}.${payload}x.${signature}`, /signature/],
      ];
      for (const [bad, reason] of cases) {
        const response = await me(service.url, bad);
        assert.equal(response.status, 401, String(bad));
        assert.equal(
          response.headers.get("www-authenticate"),
          'Bearer error="invalid_token"',
        );
        assert.match(String((await json(response)).message), reason);
      }
      const french = await fetch(`${service.url}/api/me?culture=fr-FR`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      assert.equal((await json(french)).message, "Bonjour, Grace !");
    });

    it("refresh with the cookie answers a new token; after sign-out it is a 401", async () => {
      const { token, cookie } = await signIn(service.url, "Linus");
      const refreshed = await fetch(`${service.url}/api/auth/refresh`, {
        method: "POST",
        headers: { Cookie: cookie },
      });
      assert.equal(refreshed.status, 200);
      const renewed = String((await json(refreshed)).token);
      assert.notEqual(renewed, token);
      assert.equal((await me(service.url, renewed)).status, 200);
      const none = await fetch(`${service.url}/api/auth/refresh`, {
        method: "POST",
      });
      assert.equal(none.status, 401);
      assert.equal(
        (await json(none)).message,
        "No live session: sign in again",
      );
      const out = await fetch(`${service.url}/api/auth/sign-out`, {
        method: "POST",
        headers: { Cookie: cookie },
      });
      assert.equal(out.status, 204);
      assert.match(
        out.headers.get("set-cookie") ?? "",
        /kit_refresh=;.*Max-Age=0/,
      );
      const after = await fetch(`${service.url}/api/auth/refresh`, {
        method: "POST",
        headers: { Cookie: cookie },
      });
      assert.equal(after.status, 401);
      await after.body?.cancel();
    });

    it("the analytics intake forwards page and track events once each, and refuses the rest", async () => {
      const before = collector.events().length;
      const loadedAt = Date.now() - 1000;
      const events: unknown[] = [
        {
          type: "page",
          name: "Home",
          properties: { path: "/intake-test", navigationType: "load" },
          anonymousId: "visitor-1",
          timestamp: loadedAt,
          messageId: "m-1",
        },
        {
          type: "track",
          name: "exception",
          properties: { description: "boom", source: "error" },
          anonymousId: "visitor-1",
          messageId: "m-2",
        },
        { type: "identify", name: "identify", properties: {} },
        { type: "track", name: "" },
        { type: "track", name: "big", properties: { x: "y".repeat(9000) } },
        "nonsense",
      ];
      const response = await fetch(`${service.url}/api/analytics`, {
        method: "POST",
        body: JSON.stringify({ events }),
      });
      assert.equal(response.status, 202);
      assert.deepEqual(await json(response), { accepted: 2, rejected: 4 });
      // The same batch again (delivery is at least once): not forwarded twice.
      const again = await fetch(`${service.url}/api/analytics`, {
        method: "POST",
        body: JSON.stringify({ events: events.slice(0, 2) }),
      });
      assert.equal(again.status, 202);
      await again.body?.cancel();
      await waitFor(
        () => collector.events().length >= before + 2,
        "the forwarded events",
        15_000,
      );
      const forwarded = collector.events().slice(before);
      const page = forwarded.find((e) => e.type === "page")!;
      assert.equal(page.name, "Home");
      assert.equal(page.properties.path, "/intake-test");
      assert.equal(page.anonymousId, "visitor-1");
      assert.equal(page.timestamp, loadedAt);
      const exception = forwarded.find((e) => e.name === "exception")!;
      assert.equal(exception.properties.description, "boom");
      assert.match(service.output(), /Browser page event: Home/);
      // Nothing more arrives for the repeated batch.
      const probe = await fetch(`${service.url}/api/analytics`, {
        method: "POST",
        body: JSON.stringify({
          events: [{ type: "track", name: "probe", messageId: "m-3" }],
        }),
      });
      await probe.body?.cancel();
      await waitFor(
        () => collector.events().some((e) => e.name === "probe"),
        "the probe event",
        15_000,
      );
      assert.equal(
        collector.events().slice(before).filter((e) =>
          e.name === "Home" || e.name === "exception"
        ).length,
        2,
      );
    });

    it("the analytics intake refuses a body that is not a batch (400) or too large (413)", async () => {
      for (const body of ["{}", "[1]", "not json", '{"events":{}}']) {
        const response = await fetch(`${service.url}/api/analytics`, {
          method: "POST",
          body,
        });
        assert.equal(response.status, 400, body);
        await response.body?.cancel();
      }
      const many = await fetch(`${service.url}/api/analytics`, {
        method: "POST",
        body: JSON.stringify({
          events: Array.from({ length: 101 }, () => ({
            type: "track",
            name: "x",
          })),
        }),
      });
      assert.equal(many.status, 400);
      await many.body?.cancel();
      // Over server:maxBodySize (64 KiB), which the server enforces.
      const big = "x".repeat(70 * 1024);
      const declared = await fetch(`${service.url}/api/analytics`, {
        method: "POST",
        body: big,
      });
      assert.equal(declared.status, 413);
      await declared.body?.cancel();
      // Chunked, without Content-Length: cut off as it arrives.
      const chunked = await fetch(`${service.url}/api/analytics`, {
        method: "POST",
        body: new Blob([big]).stream(),
        duplex: "half",
      } as RequestInit);
      assert.equal(chunked.status, 413);
      assert.match(
        String((await json(chunked)).message),
        /larger than the limit of 65536 bytes/,
      );
    });
  });

  describe("example service page routes: JWT_SECRET and AUTH_TOKEN_EXPIRY", () => {
    let service: RunningService;
    before(async () => {
      service = await startService({
        JWT_SECRET: "a-test-secret-of-32-characters!!",
        AUTH_TOKEN_EXPIRY: "1",
      });
    });
    after(async () => {
      if (service) assert.equal(await service.stop(), 0, service.output());
    });

    it("tokens are signed with JWT_SECRET and expire after AUTH_TOKEN_EXPIRY seconds", async () => {
      assert.doesNotMatch(service.output(), /JWT_SECRET is not set/);
      const { token } = await signIn(service.url);
      const payload = JSON.parse(
        atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")),
      );
      assert.equal(payload.exp - payload.iat, 1);
      // Verify the signature with the secret, as another service would.
      const key = await crypto.subtle.importKey(
        "raw",
        new TextEncoder().encode("a-test-secret-of-32-characters!!"),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["verify"],
      );
      const [head, body, signature] = token.split(".");
      const bytes = Uint8Array.from(
        atob(signature.replace(/-/g, "+").replace(/_/g, "/")),
        (c) => c.charCodeAt(0),
      );
      assert.ok(
        await crypto.subtle.verify(
          "HMAC",
          key,
          bytes,
          new TextEncoder().encode(`${head}.${body}`),
        ),
      );
      // Once expired, the same token is refused.
      let last: Record<string, unknown> = {};
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const response = await me(service.url, token);
        last = await json(response);
        if (response.status === 401) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(last.message, "Sign in first: the token has expired");
    });
  });
}
