// The example service's browser page (examples/service/public/) in real
// headless Chromium (Debian's chromium driven by playwright-core), against
// the service running from the sources on Deno, which bundles the page with
// esbuild and forwards the page's analytics events to a collector here. The
// npm passes skip it: the service runs from the packages in
// scripts/service_check.ts.
import {
  after,
  before,
  describe,
  it as nodeIt,
  test as nodeTest,
} from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Browser,
  chromium,
  type Page,
  type Request as PlaywrightRequest,
} from "playwright-core";
import { isNpmPass } from "../_support/module_url.ts";
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  type CollectedEvent,
  type Collector,
  hasChromium,
  ROOT,
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
  ? "the page is served by the service from the sources on Deno; scripts/service_check.ts runs the Node.js build"
  : !hasChromium
  ? `Chromium is not installed at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`
  : false;

/** Where the screenshot goes (git-ignored). */
const OUTPUT = join(ROOT, ".test-output", "service-page");

interface Metafile {
  inputs: Record<
    string,
    { imports: { path: string; kind: string; external?: boolean }[] }
  >;
}
interface PageBuilder {
  buildPage(options: { root: string; from: "sources" }): Promise<{
    code: string;
    metafile: Metafile;
  }>;
}

// Loaded at run time (esbuild belongs to the service's build), so the npm
// passes, which transpile tests/ for Node.js, never resolve it.
async function pageBuilder(): Promise<PageBuilder> {
  const url = new URL(
    "../../examples/service/build_page.ts",
    import.meta.url,
  ).href;
  return await import(url) as PageBuilder;
}

interface VariantTable {
  VARIANTS: Record<string, Record<string, string>>;
  variantFile(name: string, runtime: "browser", importer: string): string;
}

// The runtime variants' table (scripts/_variants.ts), loaded at run time like
// the page builder.
async function variantTable(): Promise<VariantTable> {
  const url = new URL("../../scripts/_variants.ts", import.meta.url).href;
  return await import(url) as VariantTable;
}

function claimsOf(token: string): Record<string, unknown> {
  const payload = token.split(".")[1];
  return JSON.parse(
    atob(payload.replace(/-/g, "+").replace(/_/g, "/")),
  ) as Record<string, unknown>;
}

function count(text: string, pattern: RegExp): number {
  return [...text.matchAll(new RegExp(pattern.source, "g"))].length;
}

if (SKIP) {
  console.warn(`\n!!! SKIPPING the example service page tests: ${SKIP}\n`);
  test("example service page in Chromium", { skip: SKIP }, () => {});
} else {
  describe("example service page in Chromium", () => {
    let collector: Collector;
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    const pages = (): CollectedEvent[] =>
      collector.events().filter((e) => e.type === "page")
        .sort((a, b) => a.timestamp - b.timestamp);
    const text = async (selector: string): Promise<string> =>
      (await page.textContent(selector))?.trim() ?? "";
    // Locator waits: the page's Content-Security-Policy forbids the eval
    // that a waitForFunction predicate would need.
    const textIs = async (selector: string, value: string): Promise<void> => {
      const exact = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      await page.locator(selector, {
        hasText: new RegExp(`^\\s*${exact}\\s*$`),
      })
        .waitFor();
    };
    const textHas = async (selector: string, value: string): Promise<void> => {
      await page.locator(selector, { hasText: value }).waitFor();
    };

    before(async () => {
      collector = await startCollector();
      service = await startService({
        APP_ANALYTICS__ENDPOINT: `${collector.server.url}/collect`,
        ANALYTICS_API_KEY: "test-key",
        APP_ANALYTICS__BATCH_SIZE: "1",
        APP_ANALYTICS__FLUSH_INTERVAL: "50",
      });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: CHROMIUM_ARGS,
      });
      page = await browser.newPage({ viewport: { width: 1000, height: 820 } });
      page.on("pageerror", (error) => pageErrors.push(error.message));
    });

    after(async () => {
      await browser?.close();
      if (service) assert.equal(await service.stop(), 0, service.output());
      await collector?.server.close();
    });

    it("the bundle's module graph has no node: module, no Deno flavour and no Deno use; the service serves that bundle", async () => {
      // What the service serves (built on this first request), then the
      // same build here for its module graph.
      const served = await fetch(`${service.url}/app.js`);
      assert.equal(served.status, 200);
      assert.match(served.headers.get("content-type") ?? "", /javascript/);
      const servedCode = await served.text();
      const { buildPage } = await pageBuilder();
      const bundle = await buildPage({
        root: join(ROOT, "examples", "service"),
        from: "sources",
      });
      assert.ok(
        servedCode === bundle.code,
        "the served bundle is the one built here (unless a source file changed in between)",
      );
      const inputs = Object.keys(bundle.metafile.inputs);
      const kit = inputs.filter((path) => !path.includes("/npm/"));
      assert.ok(inputs.some((p) => p.endsWith("public/app.ts")), "the entry");
      // Kit's modules came in, each with its browser flavour.
      for (
        const file of [
          "http/auth/auth_interceptor.ts",
          "localization/loading/_fs_browser.ts",
          "platform/server/_async_context_browser.ts",
          "analytics/_browser_tracking.ts",
        ]
      ) {
        assert.ok(kit.some((p) => p.endsWith(file)), `${file} in ${kit}`);
      }
      assert.deepEqual(inputs.filter((p) => p.startsWith("node:")), []);
      // Of each runtime variant, only the file the browser takes: no file
      // only Deno, Node.js or Bun takes (a Deno file named _deno may be the
      // browser's too, through `default`).
      const { VARIANTS, variantFile } = await variantTable();
      const denoImports = (JSON.parse(
        await readFile(join(ROOT, "deno.json"), "utf8"),
      ) as { imports: Record<string, string> }).imports;
      const serverFiles = Object.entries(VARIANTS).flatMap(([name, files]) => {
        const browser = variantFile(name, "browser", "app.ts");
        return [denoImports[name].replace(/^\.\//, ""), ...Object.values(files)]
          .filter((file) => file !== browser);
      });
      assert.ok(serverFiles.includes("localization/loading/_fs_node.ts"));
      assert.deepEqual(
        kit.filter((p) => serverFiles.some((file) => p.endsWith(file))),
        [],
        "variant files the browser does not take",
      );
      const imports = Object.values(bundle.metafile.inputs).flatMap((input) =>
        input.imports
      );
      assert.deepEqual(
        imports.filter((i) => i.path.startsWith("node:") || i.external),
        [],
      );
      // `Deno.x`, `Deno?.x`, `globalThis.Deno`, `globalThis["Deno"]`: none
      // (an error message may name Deno in words).
      assert.deepEqual(
        bundle.code.match(/\bDeno\s*(\?\.|\.|\[)|\.Deno\b|["'`]Deno["'`]/g),
        null,
      );
    });

    it("the page loads in en-US with one page event", async () => {
      await page.goto(`${service.url}/`);
      await page.waitForSelector("body[data-ready=true]");
      assert.equal(await text("#title"), "Kit example service");
      assert.equal(await text("#view-title"), "Welcome");
      await waitFor(
        () => pages().length === 1,
        "the page event of the load",
        15_000,
      );
      const [load] = pages();
      assert.equal(load.properties.path, "/");
      assert.equal(load.properties.navigationType, "load");
    });

    it("switching the culture re-renders the text through cultureChanged", async () => {
      await page.click("#culture-fr-FR");
      await textIs("#title", "Service d’exemple Kit");
      assert.equal(await text("#view-title"), "Bienvenue");
      assert.equal(await text("#sign-in"), "Se connecter");
      assert.equal(
        await page.getAttribute("html", "lang"),
        "fr-FR",
      );
      await page.click("#culture-en-US");
      await textIs("#title", "Kit example service");
      assert.equal(await text("#auth-status"), "Not signed in");
      assert.equal(
        await page.evaluate<string | null>(`localStorage.getItem("culture")`),
        "en-US",
      );
    });

    it("each navigation sends one page event", async () => {
      await page.click("a[href='/about']");
      await textIs("#view-title", "About");
      await page.click("a[href='/']");
      await page.waitForURL(`${service.url}/`);
      await page.goBack();
      await textIs("#view-title", "About");
      await page.goto(`${service.url}/about`);
      await page.waitForSelector("body[data-ready=true]");
      assert.equal(await text("#view-title"), "About");
      await waitFor(() => pages().length >= 5, "five page events", 15_000);
      assert.deepEqual(
        pages().map((e) => [e.properties.path, e.properties.navigationType]),
        [
          ["/", "load"],
          ["/about", "pushState"],
          ["/", "pushState"],
          ["/about", "popstate"],
          ["/about", "load"],
        ],
      );
      assert.ok(
        pages().every((e) => e.anonymousId === pages()[0].anonymousId),
        "one visitor id",
      );
    });

    it("sign-in stores authToken; the call carries the bearer and an X-Request-ID to the server", async () => {
      await page.fill("#name", "Ada");
      await page.click("#sign-in");
      await textIs("#auth-status", "Signed in as Ada");
      const token = await page.evaluate<string | null>(
        `localStorage.getItem("authToken")`,
      );
      assert.match(token ?? "", /^[\w-]+\.[\w-]+\.[\w-]+$/);
      assert.equal(claimsOf(token!).sub, "Ada");

      const [request, response] = await Promise.all([
        page.waitForRequest((r) => new URL(r.url()).pathname === "/api/me"),
        page.waitForResponse((r) => new URL(r.url()).pathname === "/api/me"),
        page.click("#call"),
      ]);
      const headers = request.headers();
      assert.equal(headers["authorization"], `Bearer ${token}`);
      const requestId = headers["x-request-id"];
      assert.match(requestId ?? "", /^[0-9a-f-]{36}$/);
      assert.equal(response.status(), 200);
      // What the server saw: the token it verified and the request id.
      const answer = await response.json() as Record<string, string>;
      assert.equal(answer.name, "Ada");
      assert.equal(answer.tokenId, claimsOf(token!).jti);
      assert.equal(answer.requestId, requestId);
      assert.equal(response.headers()["x-request-id"], requestId);
      assert.match(
        service.output(),
        new RegExp(`GET /api/me 200 .*requestId="${requestId}"`),
      );
      await textHas("#call-result", "Hello, Ada!");
      assert.ok((await text("#call-result")).includes(requestId));
    });

    it("a 401 triggers exactly one token refresh, then the call is replayed", async () => {
      const refreshesBefore = count(service.output(), /Access token refreshed/);
      const signed = await page.evaluate<string | null>(
        `localStorage.getItem("authToken")`,
      );
      // Same claims (not expired), a signature the service refuses.
      const forged = `${signed!.split(".").slice(0, 2).join(".")}.${
        "A".repeat(43)
      }`;
      await page.evaluate(`localStorage.setItem("authToken", "${forged}")`);
      const seen: PlaywrightRequest[] = [];
      const record = (r: PlaywrightRequest): void => {
        if (/\/api\/(me|auth\/refresh)$/.test(new URL(r.url()).pathname)) {
          seen.push(r);
        }
      };
      page.on("request", record);
      await page.evaluate(
        `document.getElementById("call-result").textContent = ""`,
      );
      await page.click("#call");
      await textHas("#call-result", "Hello, Ada!");
      page.off("request", record);
      const paths = seen.map((r) => new URL(r.url()).pathname);
      assert.deepEqual(paths, ["/api/me", "/api/auth/refresh", "/api/me"]);
      const [first, , replay] = seen;
      assert.equal(first.headers()["authorization"], `Bearer ${forged}`);
      assert.equal((await first.response())?.status(), 401);
      const renewed = await page.evaluate<string | null>(
        `localStorage.getItem("authToken")`,
      );
      assert.notEqual(renewed, forged);
      assert.equal(replay.headers()["authorization"], `Bearer ${renewed}`);
      assert.equal((await replay.response())?.status(), 200);
      // One id for the call, kept on its replay.
      assert.equal(
        replay.headers()["x-request-id"],
        first.headers()["x-request-id"],
      );
      assert.equal(
        count(service.output(), /Access token refreshed/) - refreshesBefore,
        1,
      );
      assert.match(
        service.output(),
        /Refused a bearer token: the token's signature does not match/,
      );
    });

    it("a thrown error reaches the collector as an exception event", async () => {
      await page.click("#throw");
      const exceptions = (): CollectedEvent[] =>
        collector.events().filter((e) => e.name === "exception");
      await waitFor(
        () => exceptions().length === 1,
        "the exception event",
        15_000,
      );
      const [exception] = exceptions();
      assert.equal(exception.type, "track");
      assert.match(
        String(exception.properties.description),
        /Test error from the Kit example page/,
      );
      assert.equal(exception.properties.source, "error");
      // Not swallowed: the browser reports it too.
      assert.ok(
        pageErrors.some((m) => m.includes("Test error")),
        pageErrors.join("; "),
      );
    });

    it("performance tracking reports the navigation timing", async () => {
      await waitFor(
        () =>
          collector.events().some((e) =>
            e.name === "performance" && e.properties.metric === "navigation"
          ),
        "a navigation timing event",
        15_000,
      );
      const timing = collector.events().find((e) =>
        e.name === "performance" && e.properties.metric === "navigation"
      )!;
      assert.ok(Number(timing.properties.load) > 0);
      // Still one page event per navigation.
      assert.equal(pages().length, 5);
    });

    it("saves a screenshot of the page in fr-FR after a call", async () => {
      await page.goto(`${service.url}/`);
      await page.waitForSelector("body[data-ready=true]");
      await page.click("#culture-fr-FR");
      await textIs("#title", "Service d’exemple Kit");
      await page.click("#call");
      await textHas("#call-result", "Bonjour, Ada !");
      await mkdir(OUTPUT, { recursive: true });
      const path = join(OUTPUT, "page-fr-FR.png");
      await page.screenshot({ path, fullPage: true });
      console.log(`screenshot: ${path}`);
    });
  });
}
