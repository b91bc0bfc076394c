/**
 * The consumer check: packs the eight built packages with
 * `npm pack`, installs the tarballs into four scratch projects, type-checks
 * `scripts/consumer/app.ts` there with the pinned TypeScript and runs it with
 * Node:
 *
 * - `classic`: the common Node.js `tsconfig` the README describes (target ES2020,
 *   module CommonJS, strict, skipLibCheck, moduleResolution node,
 *   esModuleInterop, allowSyntheticDefaultImports), so `require` and the
 *   top-level `main`/`types` are used;
 * - `nodenext`: module and moduleResolution nodenext in an ES-module project,
 *   so the `exports` `import` conditions are used;
 * - `node-libcheck-cjs` and `node-libcheck-esm`: the same two resolutions
 *   with `skipLibCheck: false` and `lib: ["ES2020"]` without the DOM library
 *   (types from `@types/node` only), so the shipped `.d.ts` files themselves
 *   must compile for a project that checks its libraries;
 * - the programs of the packages' `bin` fields (`kit-doctor`, `kit-i18n`), as
 *   npm links them into `node_modules/.bin`, print their usage for `--help`;
 * - a Deno project whose deno.json lists the checkout under `links` (the
 *   README's way to use an unpublished checkout) runs, without the
 *   benchmark folder's dependencies;
 * - then `deno bundle --platform browser` of all eight packages from the
 *   installed tarballs, so the `browser` conditions are used: the bundle must
 *   hold no `node:` module, node-redis or dotenv;
 * - then `scripts/consumer/browser_app.ts`, bundled the same way, runs in a
 *   real headless Chromium page served from a loopback server: every package
 *   works as a page uses it (configuration over HTTP, logs and analytics
 *   POSTed to the page's server, HTTP retries, localization over HTTP), and
 *   each server-only part fails with its own message. Skipped, saying so,
 *   only when Chromium is not installed (`.ci/run` installs it).
 *
 * Run after `deno task build:npm`: `deno run -A --config deno.dev.json scripts/consumer_check.ts`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  rm,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { createServer, type IncomingMessage } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { PACKAGES } from "./_packages.ts";
import type { BrowserResult } from "./consumer/browser_app.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
// The build's folder: `npm/`, or KIT_NPM_OUT (as scripts/build_npm.ts).
const NPM = resolve(ROOT, process.env.KIT_NPM_OUT ?? "npm");
const TYPESCRIPT = "5.9.3";
// Chromium as .ci/run finds it (on PATH), else Debian's place.
const CHROMIUM = spawnSync("sh", ["-c", "command -v chromium"], {
  encoding: "utf8",
}).stdout.trim() || "/usr/bin/chromium";

function sh(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${
        args.join(" ")
      } failed in ${cwd}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

const work = await mkdtemp(join(tmpdir(), "kit-consumer-"));
try {
  const packs = join(work, "packs");
  await mkdir(packs);
  for (const info of PACKAGES) {
    sh("npm", [
      "pack",
      "--silent",
      "--pack-destination",
      packs,
      join(NPM, info.dir),
    ], ROOT);
  }
  const tarballs = (await readdir(packs)).filter((f) => f.endsWith(".tgz"));
  const dependencies: Record<string, string> = {};
  for (const info of PACKAGES) {
    const base = info.name.replace("@", "").replace("/", "-");
    const file = tarballs.find((t) => t.startsWith(base + "-"));
    if (!file) throw new Error(`no tarball for ${info.name}`);
    dependencies[info.name] = `file:${join(packs, file)}`;
  }

  const projects = {
    classic: {
      type: "commonjs",
      compilerOptions: {
        target: "ES2020",
        module: "commonjs",
        strict: true,
        skipLibCheck: true,
        moduleResolution: "node",
        esModuleInterop: true,
        allowSyntheticDefaultImports: true,
        outDir: "dist",
        lib: ["ES2022", "DOM"],
      },
    },
    nodenext: {
      type: "module",
      compilerOptions: {
        target: "ES2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        skipLibCheck: true,
        outDir: "dist",
        lib: ["ES2022", "DOM"],
      },
    },
    // A Node project as @tsconfig/node20 and most Node templates set it up:
    // the shipped declarations are checked too (skipLibCheck false, the
    // compiler's default), with ES2020 and no DOM library, so they may only
    // name types that ES2020 or @types/node declare.
    "node-libcheck-cjs": {
      type: "commonjs",
      compilerOptions: {
        target: "ES2020",
        module: "commonjs",
        moduleResolution: "node",
        esModuleInterop: true,
        strict: true,
        skipLibCheck: false,
        outDir: "dist",
        lib: ["ES2020"],
        types: ["node"],
      },
    },
    "node-libcheck-esm": {
      type: "module",
      compilerOptions: {
        target: "ES2020",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        skipLibCheck: false,
        outDir: "dist",
        lib: ["ES2020"],
        types: ["node"],
      },
    },
  };
  for (const [name, project] of Object.entries(projects)) {
    const dir = join(work, name);
    await mkdir(dir);
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify(
        {
          name: `kit-consumer-${name}`,
          private: true,
          type: project.type,
          dependencies,
          devDependencies: {
            typescript: TYPESCRIPT,
            "@types/node": "^20.19.0",
          },
        },
        null,
        2,
      ),
    );
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify(
        { compilerOptions: project.compilerOptions, files: ["app.ts"] },
        null,
        2,
      ),
    );
    await copyFile(
      join(ROOT, "scripts", "consumer", "app.ts"),
      join(dir, "app.ts"),
    );
    sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], dir);
    sh(join(dir, "node_modules", ".bin", "tsc"), ["-p", "."], dir);
    const output = sh("node", [join("dist", "app.js")], dir);
    if (!output.includes("consumer ok")) {
      throw new Error(`${name}: the app did not finish:\n${output}`);
    }
    console.log(
      `${name}: type-checked and ran: ${output.trim().split("\n")[0]}`,
    );
  }
  checkPrograms(join(work, "nodenext"));
  await checkDenoLink(join(work, "deno-link"));
  // A web bundler resolving the `browser` export conditions of the installed
  // packages: the bundle of all eight must hold no `node:` module and none of
  // node-redis or dotenv.
  const web = join(work, "nodenext");
  await writeFile(
    join(web, "browser-entry.mjs"),
    PACKAGES.map((info) => `export * from "${info.name}";\n`).join(""),
  );
  const bundled = bundleForWeb(
    web,
    "browser-entry.mjs",
    join(work, "browser-bundle.js"),
    "the browser bundle of all eight packages",
  );
  // The same through `require()`: a web bundler must still take the ES
  // build (the `browser` export condition) where a package has server-only
  // parts.
  await writeFile(
    join(web, "browser-require-entry.cjs"),
    `module.exports = [${
      PACKAGES.map((info) => `require("${info.name}")`).join(", ")
    }];\n`,
  );
  bundleForWeb(
    web,
    "browser-require-entry.cjs",
    join(work, "browser-require-bundle.js"),
    "the browser bundle of all eight packages through require()",
  );
  console.log(
    `browser: all eight packages bundle for the web (${
      Math.round(bundled.length / 1000)
    } kB, no node: module, imported or required)`,
  );
  await runInChromium(web);
  console.log("consumer check passed");
} catch (error) {
  console.error(String(error instanceof Error ? error.message : error));
  process.exitCode = 1;
} finally {
  await rm(work, { recursive: true, force: true });
}

/**
 * Runs `--help` of every program the installed packages declare in their
 * package.json `bin`, through the link npm made in `node_modules/.bin`.
 */
function checkPrograms(project: string): void {
  for (const info of PACKAGES) {
    for (const name of Object.keys(info.bins ?? {})) {
      const run = spawnSync(
        join(project, "node_modules", ".bin", name),
        ["--help"],
        { cwd: project, encoding: "utf8", timeout: 60_000 },
      );
      if (
        (run.status !== 0 && run.status !== 2) ||
        !/usage/i.test(run.stdout + run.stderr)
      ) {
        throw new Error(
          `${name} --help (from ${info.name}) exited with ${
            run.status ?? run.error
          } and no usage:\n${run.stdout}\n${run.stderr}`,
        );
      }
      console.log(`bin: ${name} --help printed its usage (exit ${run.status})`);
    }
  }
}

/**
 * The README's way to use an unpublished checkout from Deno: a project whose
 * deno.json lists the checkout under `links` imports `@vendor/kit/…` by name,
 * gets Kit's own dependencies and none of the benchmark folder's.
 */
async function checkDenoLink(dir: string): Promise<void> {
  await mkdir(dir);
  await writeFile(
    join(dir, "deno.json"),
    JSON.stringify({ links: [ROOT] }, null, 2),
  );
  await writeFile(
    join(dir, "main.ts"),
    [
      `import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";`,
      `import { HttpClient } from "@vendor/kit/http";`,
      `const config = new ConfigurationManager();`,
      `config.addProvider(new MemoryProvider({ "api:baseUrl": "http://127.0.0.1:9" }));`,
      `await config.loadConfiguration();`,
      `const client = HttpClient.fromConfiguration(config);`,
      `console.log("linked ok", typeof client.get);`,
      "",
    ].join("\n"),
  );
  const output = sh(Deno.execPath(), ["run", "-A", "main.ts"], dir);
  if (!output.includes("linked ok function")) {
    throw new Error(`deno-link: the linked project did not run:\n${output}`);
  }
  const lock = readFileSync(join(dir, "deno.lock"), "utf8");
  const leaked = ["pino", "axios", "i18next", "bentocache"].filter((name) =>
    lock.includes(`"npm:${name}@`) || lock.includes(`"${name}@`)
  );
  if (leaked.length > 0) {
    throw new Error(
      `deno-link: the linked project pulled benchmark-only packages: ${
        leaked.join(", ")
      }`,
    );
  }
  console.log(
    "deno-link: a Deno project with { links: [checkout] } ran (no benchmark packages)",
  );
}

/**
 * Bundles `entry` in `project` for the web with `deno bundle --platform
 * browser` (so the installed packages' `browser` conditions apply) and fails
 * when the bundle reaches Node-only code: a `node:` module, node-redis or
 * dotenv.
 *
 * @returns The bundle's text.
 */
function bundleForWeb(
  project: string,
  entry: string,
  output: string,
  what: string,
): string {
  sh(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "--output",
    output,
    entry,
  ], project);
  const bundled = readFileSync(output, "utf8");
  const nodeImports = bundled.match(/["']node:[\w/]+["']/g) ?? [];
  if (
    nodeImports.length > 0 ||
    /\bfunction createClient\b|dotenv\/lib/.test(bundled)
  ) {
    throw new Error(
      `${what} reaches Node-only code: ${
        [...new Set(nodeImports)].join(", ") || "node-redis or dotenv"
      }`,
    );
  }
  return bundled;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => resolve(body));
    request.on("error", reject);
  });
}

/**
 * Bundles scripts/consumer/browser_app.ts against the installed tarballs for
 * the web and runs it in headless Chromium; checks what the page reports and
 * what the loopback server received.
 */
async function runInChromium(project: string): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    // .ci/run counts this line among the skipped checks.
    console.log(
      `SKIPPED: the Chromium run of the browser app: Chromium is not installed (apt-get install chromium; .ci/run installs it)`,
    );
    return;
  }
  await copyFile(
    join(ROOT, "scripts", "consumer", "browser_app.ts"),
    join(project, "browser_app.ts"),
  );
  const script = bundleForWeb(
    project,
    "browser_app.ts",
    join(project, "browser-app.js"),
    "the browser app bundle",
  );
  const received: {
    method: string;
    path: string;
    headers: IncomingMessage["headers"];
    body: string;
  }[] = [];
  let flakyCalls = 0;
  const json = (value: unknown) => JSON.stringify(value);
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://page").pathname;
    const body = await readBody(request);
    received.push({
      method: request.method ?? "GET",
      path,
      headers: request.headers,
      body,
    });
    const send = (status: number, type: string, text: string) => {
      response.writeHead(status, { "content-type": type });
      response.end(text);
    };
    if (path === "/") {
      send(
        200,
        "text/html; charset=utf-8",
        `<!doctype html><html><head><meta charset="utf-8"><title>Kit</title></head><body><h1>Kit in a browser</h1><script type="module" src="/app.js"></script></body></html>`,
      );
    } else if (path === "/app.js") {
      send(200, "text/javascript", script);
    } else if (path === "/config/appsettings.json") {
      send(
        200,
        "application/json",
        json({
          api: {
            baseUrl: "http://kit.test/api",
            pagePath: "/api",
            timeout: 2500,
          },
          logging: { level: "debug", providers: [{ type: "console" }] },
        }),
      );
    } else if (path === "/api/users/1") {
      send(200, "application/json", json({ id: 1, name: "Ada" }));
    } else if (path === "/api/flaky") {
      flakyCalls++;
      if (flakyCalls === 1) {
        send(503, "application/json", json({ error: "busy" }));
      } else send(200, "application/json", json({ attempt: flakyCalls }));
    } else if (path === "/api/locales/en.json") {
      send(200, "application/json", json({ greeting: "Hello {0}" }));
    } else if (path === "/api/locales/fr.json") {
      send(200, "application/json", json({ greeting: "Bonjour {0}" }));
    } else if (
      request.method === "POST" && (path === "/logs" || path === "/collect")
    ) {
      send(200, "application/json", "{}");
    } else {
      send(404, "text/plain", "not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${
    typeof address === "object" && address ? address.port : 0
  }/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const page = await browser.newPage({ locale: "en-US" });
    const consoleLines: string[] = [];
    page.on("console", (line) => consoleLines.push(line.text()));
    page.on(
      "pageerror",
      (error) => consoleLines.push(`pageerror: ${error.message}`),
    );
    await page.goto(url);
    await page.waitForFunction(
      () =>
        (globalThis as { kitBrowserResult?: unknown }).kitBrowserResult !==
          undefined,
      undefined,
      { timeout: 30_000 },
    );
    const result = await page.evaluate(() =>
      (globalThis as unknown as { kitBrowserResult: BrowserResult })
        .kitBrowserResult
    );
    if (!result.ok) {
      throw new Error(
        `the browser app failed in Chromium: ${result.error}\npage console:\n${
          consoleLines.join("\n")
        }`,
      );
    }
    // What the page's server received.
    const logBodies = received.filter((r) => r.path === "/logs").map((r) =>
      r.body
    ).join("\n");
    const logsOk = logBodies.includes('"message":"page started"') &&
      !logBodies.includes("hunter2") &&
      received.some((r) =>
        r.path === "/logs" && r.headers["x-api-key"] === "browser-key"
      );
    const events = received.filter((r) => r.path === "/collect")
      .flatMap((r) =>
        (JSON.parse(r.body) as { events: { type: string; name?: string }[] })
          .events
      );
    const eventsOk = events.some((e) => e.type === "page") &&
      events.some((e) => e.type === "track" && e.name === "signed_up");
    const consoleOk = consoleLines.some((line) =>
      line.includes("page started")
    );
    if (!logsOk || !eventsOk || !consoleOk || flakyCalls !== 2) {
      throw new Error(
        `the browser app's server saw the wrong traffic: logs ${logsOk}, events ${eventsOk}, console ${consoleOk}, flaky calls ${flakyCalls}\n${logBodies}\n${
          json(events)
        }`,
      );
    }
    for (const line of result.lines) console.log(`chromium: ${line}`);
    console.log(
      `browser: the app using all eight packages ran in Chromium (${result.lines.length} checks; logs and events reached the page's server)`,
    );
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
