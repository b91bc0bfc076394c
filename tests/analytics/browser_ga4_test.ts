// ExternalAnalyticsProvider in a real headless Chromium page given only the
// tracking id and the two mapping switches (no API secret): it sends with the
// page-side protocol of Google's tag to a local stand-in collector on another
// origin (so without CORS, as to Google), and by default to Google's page
// address (intercepted by the browser driver, never reaching Google).
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { chromium } from "playwright-core";
import { startTestServer } from "../_support/http_server.ts";
import { waitFor } from "../_support/wait_for.ts";
import { bundleAnalytics, denoExecutable, tempDir } from "./_subprocess.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const CHROMIUM = spawnSync("sh", ["-c", "command -v chromium"], {
  encoding: "utf8",
}).stdout?.trim() || "/usr/bin/chromium";

const skip = !existsSync(CHROMIUM)
  ? `Chromium is not installed (apt-get install chromium; .ci/run installs it)`
  : denoExecutable === undefined
  ? "deno is needed to bundle analytics/mod.ts for the page"
  : false;

function html(endpoint: string | undefined): string {
  const where = endpoint === undefined
    ? ""
    : `endpoint: ${JSON.stringify(endpoint)},`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1>
<script type="module">
import { AnalyticsManager, ExternalAnalyticsProvider } from "/analytics.js";
const errors = [];
const analytics = new AnalyticsManager({
  anonymousId: "page-client",
  onError: (error) => errors.push(String(error && error.message)),
});
analytics.addProvider(new ExternalAnalyticsProvider({
  trackingId: "G-PAGE123",
  enableEnhancedEcommerce: true,
  anonymizeIp: true,
  ${where}
}));
analytics.page("Shop", { url: location.href });
analytics.track("purchase", {
  transactionId: "T-1001",
  currency: "EUR",
  value: 25,
  ip: "10.1.2.3",
  items: [{ id: "SKU-1", name: "Mug", price: 12.5, quantity: 2 }],
});
const result = await analytics.flush();
window.kitResult = { result, errors };
</script></body></html>`;
}

interface Hit {
  url: URL;
  lines: URLSearchParams[];
}

function hitOf(url: string, body: string): Hit {
  return {
    url: new URL(url),
    lines: body.split("\n").filter((line) => line !== "").map((line) =>
      new URLSearchParams(line)
    ),
  };
}

function checkHit(hit: Hit, path: string): void {
  assert.equal(hit.url.pathname, path);
  assert.equal(hit.url.searchParams.get("v"), "2");
  assert.equal(hit.url.searchParams.get("tid"), "G-PAGE123");
  assert.equal(hit.url.searchParams.get("cid"), "page-client");
  assert.equal(hit.url.searchParams.get("api_secret"), null);
  assert.equal(hit.lines.length, 2);
  const [page, purchase] = hit.lines;
  assert.equal(page.get("en"), "page_view");
  assert.equal(page.get("dt"), "Shop");
  assert.match(page.get("dl") ?? "", /^http:\/\/127\.0\.0\.1:\d+\/(default)?$/);
  assert.equal(purchase.get("en"), "purchase");
  assert.equal(purchase.get("cu"), "EUR");
  assert.equal(purchase.get("epn.value"), "25");
  assert.equal(purchase.get("ep.transaction_id"), "T-1001");
  assert.equal(purchase.get("pr1"), "idSKU-1~nmMug~pr12.5~qt2");
  // anonymizeIp: the IP-like property never leaves the page.
  assert.ok(![...purchase.values()].includes("10.1.2.3"));
}

test(
  "Browser: ExternalAnalyticsProvider with only trackingId, enableEnhancedEcommerce and anonymizeIp sends with the page protocol",
  { skip },
  async () => {
    const dir = await tempDir();
    const bundle = await readFile(await bundleAnalytics(dir.path));
    await dir.remove();
    // The stand-in collector, on another origin than the page.
    const collector = await startTestServer((_request, response) => {
      response.writeHead(204);
      response.end();
    });
    const endpoint = `${collector.url}/g/collect`;
    const site = await startTestServer((request, response) => {
      const path = new URL(request.url, "http://x").pathname;
      if (path === "/analytics.js") {
        response.writeHead(200, { "content-type": "text/javascript" });
        response.end(bundle);
      } else if (path === "/" || path === "/default") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        response.end(html(path === "/" ? endpoint : undefined));
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
    try {
      const page = await browser.newPage();
      const logs: string[] = [];
      page.on("console", (line) => logs.push(line.text()));
      page.on("pageerror", (error) => logs.push(`pageerror: ${error.message}`));
      await page.goto(`${site.url}/`);
      await page.waitForFunction(
        () => (globalThis as { kitResult?: unknown }).kitResult !== undefined,
        undefined,
        { timeout: 30_000 },
      );
      const outcome = await page.evaluate(() =>
        (globalThis as unknown as {
          kitResult: {
            result: { delivered: number; dropped: number };
            errors: string[];
          };
        }).kitResult
      );
      assert.deepEqual(outcome, {
        result: { delivered: 2, dropped: 0 },
        errors: [],
      }, logs.join("\n"));
      await waitFor(
        () => collector.requests.length === 1,
        "the collector's request",
        10_000,
      );
      const request = collector.requests[0];
      assert.equal(request.method, "POST");
      assert.match(String(request.headers["content-type"]), /^text\/plain/);
      checkHit(
        hitOf(new URL(request.url, collector.url).href, request.body),
        "/g/collect",
      );

      // With no endpoint at all: Google's page address, intercepted here.
      const google: Hit[] = [];
      const second = await browser.newPage();
      await second.route(
        "https://www.google-analytics.com/**",
        async (route) => {
          const sent = route.request();
          google.push(hitOf(sent.url(), sent.postData() ?? ""));
          await route.fulfill({ status: 204, body: "" });
        },
      );
      await second.goto(`${site.url}/default`);
      await second.waitForFunction(
        () => (globalThis as { kitResult?: unknown }).kitResult !== undefined,
        undefined,
        { timeout: 30_000 },
      );
      assert.equal(google.length, 1);
      assert.equal(google[0].url.origin, "https://www.google-analytics.com");
      checkHit(google[0], "/g/collect");
    } finally {
      await browser.close();
      await site.close();
      await collector.close();
    }
  },
);
