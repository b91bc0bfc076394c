// Automatic tracking in a real headless Chromium (Debian's /usr/bin/chromium
// driven by playwright-core) against pages served from a local server. The
// page loads a browser bundle of analytics/mod.ts made with `deno bundle` and
// sends to the same server through CustomAnalyticsProvider.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { chromium } from "playwright-core";
import { sendJson, startTestServer } from "../_support/http_server.ts";
import { receivedEvents, type TestServer } from "./_helpers.ts";
import { waitFor } from "../_support/wait_for.ts";
import { bundleAnalytics, denoExecutable, tempDir } from "./_subprocess.ts";
import type { AnalyticsEvent } from "../../analytics/mod.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

// Chromium as .ci/run finds it (on PATH), else Debian's place.
const CHROMIUM = spawnSync("sh", ["-c", "command -v chromium"], {
  encoding: "utf8",
}).stdout?.trim() || "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const skip = !existsSync(CHROMIUM)
  ? `Chromium is not installed (apt-get install chromium; .ci/run installs it)`
  : denoExecutable === undefined
  ? "deno is needed to bundle analytics/mod.ts for the page"
  : false;
if (skip) {
  console.warn(`\n!!! SKIPPING the browser auto-tracking tests: ${skip}\n`);
}

function html(title: string, options: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title></head>
<body>
<h1>${title}</h1>
<p>Kit analytics browser test page: enough text to paint a largest contentful element.</p>
<button id="slow" onclick="const end = performance.now() + 80; while (performance.now() < end) {}">Slow</button>
<script type="module">
import { AnalyticsManager, CustomAnalyticsProvider } from "/analytics.js";
const analytics = new AnalyticsManager({ anonymousId: "browser-test", ${options} });
analytics.addProvider(new CustomAnalyticsProvider({
  endpoint: "/collect", batchSize: 1, flushInterval: 20, retryDelay: 50,
}));
window.analytics = analytics;
</script>
</body></html>`;
}

interface Site {
  server: TestServer;
  url: string;
  events(): AnalyticsEvent[];
  close(): Promise<void>;
}

async function site(options: string): Promise<Site> {
  const dir = await tempDir();
  const bundle = await readFile(await bundleAnalytics(dir.path));
  await dir.remove();
  const server = await startTestServer((request, response) => {
    const path = new URL(request.url, "http://x").pathname;
    if (request.method === "POST" && path === "/collect") {
      sendJson(response, 200, {});
    } else if (path === "/analytics.js") {
      response.writeHead(200, { "content-type": "text/javascript" });
      response.end(bundle);
    } else if (path === "/" || path === "/page2") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(html(path === "/" ? "Home" : "Page 2", options));
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  return {
    server,
    url: server.url,
    events: () =>
      receivedEvents({
        ...server,
        requests: server.requests.filter((r) => r.url === "/collect"),
      }),
    close: () => server.close(),
  };
}

async function launch() {
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
}

test(
  "Browser: a page view per navigation (load, pushState, replaceState, popstate, full load)",
  {
    skip,
  },
  async () => {
    const s = await site("enableAutoPageTracking: true");
    const browser = await launch();
    try {
      const page = await browser.newPage();
      const pages = () => s.events().filter((e) => e.type === "page");
      await page.goto(`${s.url}/`);
      await waitFor(() => pages().length === 1, "page view on load", 15_000);
      await page.evaluate(`history.pushState({}, "", "/spa/a")`);
      await waitFor(() => pages().length === 2, "pushState page view", 15_000);
      await page.evaluate(`history.replaceState({}, "", "/spa/b")`);
      await waitFor(
        () => pages().length === 3,
        "replaceState page view",
        15_000,
      );
      // Same URL again: not a navigation.
      await page.evaluate(`history.replaceState({ x: 1 }, "", "/spa/b")`);
      await page.evaluate(`history.back()`);
      await waitFor(() => pages().length === 4, "popstate page view", 15_000);
      await page.goto(`${s.url}/page2`);
      await waitFor(() => pages().length === 5, "second document", 15_000);
      const summary = pages().map((e) => [
        e.properties.path,
        e.properties.navigationType,
        e.name,
      ]);
      assert.deepEqual(summary, [
        ["/", "load", "Home"],
        ["/spa/a", "pushState", "Home"],
        ["/spa/b", "replaceState", "Home"],
        ["/", "popstate", "Home"],
        ["/page2", "load", "Page 2"],
      ]);
      assert.equal(pages()[1].properties.referrer, `${s.url}/`);
      assert.equal(pages()[1].properties.url, `${s.url}/spa/a`);
      assert.ok(pages().every((e) => e.anonymousId === "browser-test"));
    } finally {
      await browser.close();
      await s.close();
    }
  },
);

test(
  "Browser: history methods are wrapped on the instance only and restored on dispose",
  {
    skip,
  },
  async () => {
    const s = await site("enableAutoPageTracking: true");
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.goto(`${s.url}/`);
      await page.waitForFunction(() =>
        (globalThis as { analytics?: unknown }).analytics !== undefined
      );
      const during = await page.evaluate(`({
      own: Object.prototype.hasOwnProperty.call(history, "pushState"),
      prototypeNative: History.prototype.pushState.toString()
        .includes("[native code]"),
    })`);
      assert.deepEqual(during, { own: true, prototypeNative: true });
      const after = await page.evaluate(`(async () => {
      await window.analytics.dispose();
      return {
        own: Object.prototype.hasOwnProperty.call(history, "pushState") ||
          Object.prototype.hasOwnProperty.call(history, "replaceState"),
        same: history.pushState === History.prototype.pushState,
      };
    })()`);
      assert.deepEqual(after, { own: false, same: true });
      const before = s.events().length;
      await page.evaluate(`history.pushState({}, "", "/after-dispose")`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(s.events().length, before, "no tracking after dispose");
    } finally {
      await browser.close();
      await s.close();
    }
  },
);

test(
  "Browser: thrown errors and unhandled rejections become exception events",
  {
    skip,
  },
  async () => {
    const s = await site("enableErrorTracking: true");
    const browser = await launch();
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.goto(`${s.url}/`);
      await page.waitForFunction(() =>
        (globalThis as { analytics?: unknown }).analytics !== undefined
      );
      await page.evaluate(() => {
        setTimeout(() => {
          throw new TypeError("boom from the page");
        }, 0);
      });
      await page.evaluate(() => {
        void Promise.reject(new Error("rejected in the page"));
      });
      const exceptions = () => s.events().filter((e) => e.name === "exception");
      await waitFor(() => exceptions().length === 2, "two exceptions", 15_000);
      const [thrown, rejected] = exceptions();
      assert.equal(thrown.properties.source, "error");
      assert.match(String(thrown.properties.description), /boom from the page/);
      assert.equal(thrown.properties.errorName, "TypeError");
      assert.equal(thrown.properties.fatal, false);
      assert.equal(rejected.properties.source, "unhandledrejection");
      assert.equal(rejected.properties.description, "rejected in the page");
      // Not swallowed: the browser still reports the error itself.
      assert.ok(pageErrors.some((m) => m.includes("boom from the page")));
    } finally {
      await browser.close();
      await s.close();
    }
  },
);

test(
  "Browser: performance events for navigation timing, then LCP, CLS and INP on dispose",
  {
    skip,
  },
  async () => {
    const s = await site("enablePerformanceTracking: true");
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.goto(`${s.url}/`);
      const performance = () =>
        s.events().filter((e) => e.name === "performance");
      await waitFor(
        () => performance().some((e) => e.properties.metric === "navigation"),
        "navigation timing",
        15_000,
      );
      const navigation = performance().find((e) =>
        e.properties.metric === "navigation"
      )!;
      assert.equal(typeof navigation.properties.value, "number");
      assert.ok(Number(navigation.properties.load) > 0);
      assert.ok(
        Number(navigation.properties.ttfb) <=
          Number(navigation.properties.load),
      );
      // A slow interaction (an 80 ms click handler) for INP.
      await page.click("#slow");
      await page.waitForTimeout(200);
      await page.evaluate(`window.analytics.dispose()`);
      const metrics = performance().map((e) => e.properties.metric);
      assert.ok(metrics.includes("INP"), `metrics: ${metrics}`);
      const inp = performance().find((e) => e.properties.metric === "INP")!;
      assert.ok(
        Number(inp.properties.value) >= 80,
        `INP ${inp.properties.value}`,
      );
      assert.ok(metrics.includes("LCP"), `metrics: ${metrics}`);
      assert.ok(metrics.includes("CLS"), `metrics: ${metrics}`);
      const lcp = performance().find((e) => e.properties.metric === "LCP")!;
      assert.ok(Number(lcp.properties.value) > 0);
    } finally {
      await browser.close();
      await s.close();
    }
  },
);
