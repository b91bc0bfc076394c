// Importing a Kit module does only what the import needs: it does not read
// the global Response, Request, Headers or FormData (on Node.js the first
// read of any of them loads the whole fetch implementation, undici with
// node:http2, node:tls and node:zlib, which was most of a package's import
// time), and, on Node.js, loads none of the network built-ins (node:http,
// node:net…): a server, a client or a store loads what it needs on its
// first use. A child Node.js process watches the globals and its list of
// loaded built-ins while it imports the eight modules (the built packages
// in the npm passes) one after the other. Deno and Bun build those globals
// in (reading one costs nothing), and Deno's variants read Response at
// import, so the test runs on Node.js only.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// The test waits on a child process: it has an explicit limit on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const versions = process.versions as Record<string, string | undefined>;
const ON_NODE = versions.deno === undefined && versions.bun === undefined;

const MODULES = [
  "CORE_URL",
  "PLATFORM_URL",
  "CONFIG_URL",
  "LOGGING_URL",
  "HTTP_URL",
  "LOCALIZATION_URL",
  "CACHING_URL",
  "ANALYTICS_URL",
];

// Built-ins of Node.js an import must not load (each of them, with what it
// pulls in, costs milliseconds).
const HEAVY_BUILTINS = [
  "http",
  "https",
  "http2",
  "net",
  "tls",
  "zlib",
  "worker_threads",
  "internal/deps/undici/undici",
];

interface Step {
  module: string;
  globalsRead: string[];
  builtinsLoaded: string[];
}

test(
  "importing each module reads no fetch global and loads no network built-in",
  {
    skip: ON_NODE
      ? false
      : "Node.js only: other runtimes build the fetch globals in",
  },
  async () => {
    const result = await runChildScript(`const reads = [];
for (const name of ["Response", "Request", "Headers", "FormData"]) {
  const original = Object.getOwnPropertyDescriptor(globalThis, name);
  if (original === undefined) continue;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: original.enumerable,
    get() {
      reads.push(name);
      Object.defineProperty(globalThis, name, original);
      return globalThis[name];
    },
    set(value) {
      Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: original.enumerable });
    },
  });
}
const heavy = new Set(${
      JSON.stringify(HEAVY_BUILTINS.map((name) => `NativeModule ${name}`))
    });
const builtins = () => process.moduleLoadList.filter((entry) => heavy.has(entry));
const names = ${
      JSON.stringify(MODULES.map((name) => name.slice(0, -4).toLowerCase()))
    };
const urls = [${MODULES.join(", ")}];
const report = [];
for (let i = 0; i < urls.length; i++) {
  await import(urls[i]);
  report.push({ module: names[i], globalsRead: [...reads], builtinsLoaded: builtins() });
}
console.log(JSON.stringify(report));
`);
    assert.equal(result.code, 0, result.out);
    const steps = JSON.parse(result.out.trim().split("\n").at(-1)!) as Step[];
    assert.equal(steps.length, MODULES.length, result.out);
    for (const step of steps) {
      assert.deepEqual(
        step.globalsRead,
        [],
        `after importing ${step.module}: ${result.out}`,
      );
      assert.deepEqual(
        step.builtinsLoaded,
        [],
        `after importing ${step.module}: ${result.out}`,
      );
    }
  },
);

test("a package's CommonJS bundle resolves each package it requires once", {
  skip: ON_NODE ? false : "Node.js only: it watches Node.js's module resolver",
}, async () => {
  // Node.js remembers what a name resolved to for the module that first
  // loaded it, not for a module that finds it loaded already: a bundle
  // that wrote require("@vendor/kit-core") once per source file resolved
  // the name through the package's exports map each time (the platform
  // package, a dozen times), when another package had loaded it first.
  const result = await runChildScript(
    `import Module, { createRequire } from "node:module";
const counts = {};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const from = /(kit-[a-z-]+)[\\\\/]script[\\\\/]/.exec(parent?.filename ?? "")?.[1];
  if (from !== undefined) {
    const key = from + " requires " + request;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
// The script itself as the base (the paths required are absolute).
const require = createRequire(process.argv[1]);
for (const url of [${MODULES.join(", ")}]) {
  require(new URL(url.replace(/[/]esm[/]mod[.]js$/, "/script/mod.js")).pathname);
}
console.log(JSON.stringify(counts));
`,
  );
  assert.equal(result.code, 0, result.out);
  const counts = JSON.parse(result.out.trim().split("\n").at(-1)!) as Record<
    string,
    number
  >;
  // The packages do require their siblings (else this watched nothing).
  assert.ok(
    counts["kit-platform requires @vendor/kit-core"] !== undefined,
    result.out,
  );
  for (const [key, count] of Object.entries(counts)) {
    assert.equal(count, 1, `${key}: resolved ${count} times; ${result.out}`);
  }
});
