// A browser bundle of config/mod.ts must not pull node: modules or npm
// packages that need them: runtime-specific code is reached only through
// dynamic imports. This walks the static import graph from config/mod.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { moduleUrl } from "../_support/module_url.ts";

// The sources under `deno test`; in the npm passes the built package's
// browser bundle (esm/mod_browser.js, what the `browser` condition selects),
// since the Node.js bundle loads valibot on first use through node:module
// (CommonJS output has no static import graph to walk).
const MAIN = new URL(moduleUrl("config"));
const BROWSER = new URL("mod_browser.js", MAIN);
const ENTRY = MAIN.pathname.endsWith("/esm/mod.js") &&
    existsSync(fileURLToPath(BROWSER))
  ? BROWSER
  : MAIN;
const BROWSER_SAFE_PACKAGES = new Set([
  "valibot",
  "@vendor/kit-core",
  "@vendor/kit-platform",
  // The OpenTelemetry facade: plain JavaScript, runs in browsers.
  "@opentelemetry/api",
]);
// At a line's start, or after `;` or `}` (the npm build's bundles are
// minified: `…}import{x}from"y";var …`).
const STATIC_IMPORT =
  /(?:^|[;}])\s*(?:import|export)\s*(?:type\s+)?(?:[^;"'()]*?\s*from\s*)?["']([^"']+)["']/gm;

// In the built package, `#_x` names a server file or its browser twin
// through the package.json `imports` field; the walk follows the server file.
async function packageImports(): Promise<Record<string, { default: string }>> {
  const manifest = new URL("../package.json", ENTRY);
  if (!ENTRY.pathname.includes("/esm/") || !existsSync(manifest)) return {};
  return (JSON.parse(await readFile(manifest, "utf8")) as {
    imports?: Record<string, { default: string }>;
  }).imports ?? {};
}

// From the sources, a runtime variant (`#name`) is the file the npm build's
// browser bundle takes for it (scripts/_variants.ts).
async function browserVariant(name: string, importer: string): Promise<URL> {
  const root = new URL("../../", import.meta.url);
  const { variantFile } = await import(
    new URL("scripts/_variants.ts", root).href
  ) as {
    variantFile(name: string, runtime: "browser", importer: string): string;
  };
  return new URL(variantFile(name, "browser", importer), root);
}

async function staticGraph(): Promise<Map<string, string[]>> {
  const imports = await packageImports();
  const graph = new Map<string, string[]>();
  const pending = [ENTRY.href];
  while (pending.length > 0) {
    const href = pending.pop()!;
    if (graph.has(href)) continue;
    const source = await readFile(fileURLToPath(href), "utf8");
    const specifiers: string[] = [];
    for (const match of source.matchAll(STATIC_IMPORT)) {
      const statement = match[0];
      // `import type` and `export type` vanish from a bundle.
      if (/^[;}]?\s*(?:import|export)\s+type\s/.test(statement)) continue;
      const internal = imports[match[1]]?.default;
      if (internal !== undefined) {
        pending.push(new URL(`../${internal}`, ENTRY).href);
        continue;
      }
      if (match[1].startsWith("#")) {
        pending.push((await browserVariant(match[1], href)).href);
        continue;
      }
      specifiers.push(match[1]);
      if (match[1].startsWith(".")) {
        pending.push(new URL(match[1], href).href);
      }
    }
    graph.set(href, specifiers);
  }
  return graph;
}

test(
  "config/mod.ts statically imports no node: module and no Node-only package",
  {
    skip: ENTRY.pathname.includes("/script/")
      ? "CommonJS output: the ES-module passes walk the import graph"
      : existsSync(fileURLToPath(ENTRY))
      ? false
      : "the module's entry file is missing",
  },
  async () => {
    const graph = await staticGraph();
    // The sources are many files; the npm build's ES module is one bundle.
    const bundled = !ENTRY.pathname.endsWith(".ts");
    assert.ok(
      bundled ? graph.size >= 1 : graph.size > 10,
      "the walk found the package's files",
    );
    if (bundled) {
      assert.ok(
        [...graph.values()].flat().includes("@vendor/kit-core"),
        "the walk read the bundle's imports",
      );
    }
    for (const [file, specifiers] of graph) {
      for (const specifier of specifiers) {
        if (specifier.startsWith(".")) continue;
        assert.ok(
          BROWSER_SAFE_PACKAGES.has(specifier),
          `${file} statically imports ${specifier}`,
        );
      }
    }
  },
);
