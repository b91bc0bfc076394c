// The logging package loads its heavy npm dependencies when first needed,
// not when it is imported: LogTape when the first console provider (or
// "simple" text formatter) is built, @opentelemetry/api only once an SDK
// part is registered. Node.js lists what require() and require(esm) loaded
// in require.cache, so the npm pass for Node.js checks what importing the
// package added there; every runtime checks that the providers still work
// after the late load.
// (A static ES import would not show in require.cache; the npm package
// check, scripts/check_packages.ts, looks for those in the bundles.)
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { isNpmPass, moduleUrl } from "../_support/module_url.ts";
import { type ChildResult, runChild } from "./_helpers.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

// The JSON the child printed last.
function printed(result: ChildResult): unknown {
  const lines = result.out.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

// Gives the child the entry points of the packages logging depends on.
function withDependencies(source: string): string {
  return source
    .replace("CORE_URL", JSON.stringify(moduleUrl("core")))
    .replace("PLATFORM_URL", JSON.stringify(moduleUrl("platform")))
    .replace("CONFIG_URL", JSON.stringify(moduleUrl("config")));
}

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);

describe("the logging package's npm dependencies", () => {
  it(
    "are not loaded by importing the package in Node.js: LogTape comes with the first console provider",
    {
      skip: isNpmPass() && isNode
        ? false
        : "only the npm package for Node.js defers them (Deno imports them with the module)",
    },
    async () => {
      const result = await runChild(withDependencies(`
import { createRequire } from "node:module";
const cache = createRequire(process.argv[1]).cache;
const loaded = (name) =>
  Object.keys(cache).some((file) => file.includes("/node_modules/" + name + "/"));
const names = ["@logtape/logtape", "@opentelemetry/api", "ky"];
const state = () => Object.fromEntries(names.map((name) => [name, loaded(name)]));
// What the packages logging depends on loaded is theirs, not logging's.
await import(CORE_URL);
await import(PLATFORM_URL);
await import(CONFIG_URL);
const dependencies = state();
const logging = await import(LOGGING);
const atImport = state();
const manager = new logging.LoggerManager().configure({
  level: "info",
  providers: [new logging.ConsoleLogProvider({ console: { debug() {}, info() {}, warn() {}, error() {} } })],
});
manager.getLogger("child").info("hello");
console.log(JSON.stringify({ dependencies, atImport, afterConsole: state() }));
`));
      assert.equal(result.code, 0, result.out);
      const { dependencies, atImport, afterConsole } = printed(
        result,
      ) as Record<
        string,
        Record<string, boolean>
      >;
      assert.equal(atImport["@logtape/logtape"], false);
      assert.equal(atImport.ky, false);
      // No package on the way loads @opentelemetry/api without an SDK.
      assert.equal(dependencies["@opentelemetry/api"], false);
      assert.equal(atImport["@opentelemetry/api"], false);
      assert.equal(afterConsole["@logtape/logtape"], true);
      assert.equal(
        afterConsole["@opentelemetry/api"],
        false,
        "logging without an SDK does not load the API",
      );
      assert.equal(afterConsole.ky, false);
    },
  );

  it("formats lines of a console and a file provider built after the import", async () => {
    const result = await runChild(`
const logging = await import(LOGGING);
const { mkdtemp, readFile, rm } = await import("node:fs/promises");
const { tmpdir } = await import("node:os");
const { join } = await import("node:path");
const lines = [];
const sink = (...data) => lines.push(data.join(" "));
const dir = await mkdtemp(join(tmpdir(), "kit-deferred-"));
const filename = join(dir, "app.log");
const file = new logging.FileLogProvider({ filename, format: "simple" });
const manager = new logging.LoggerManager().configure({
  level: "info",
  providers: [
    new logging.ConsoleLogProvider({
      timestamp: false,
      colorize: true,
      isTerminal: true,
      console: { debug: sink, info: sink, warn: sink, error: sink },
    }),
    file,
  ],
});
manager.getLogger("orders").warning("Order placed", { orderId: 42 });
await manager.flush();
await file.dispose();
const written = (await readFile(filename, "utf8")).trim();
await rm(dir, { recursive: true, force: true });
console.log(JSON.stringify({ lines, written }));
`);
    assert.equal(result.code, 0, result.out);
    const { lines, written } = printed(result) as {
      lines: string[];
      written: string;
    };
    assert.equal(lines.length, 1);
    // Coloured by LogTape's ANSI formatter (the level), Kit's suffix dimmed.
    // deno-lint-ignore no-control-regex
    const sgr = /\x1b\[[0-9;]*m/g;
    assert.match(lines[0], sgr);
    const plain = lines[0].replace(sgr, "");
    assert.equal(plain, 'WARNING [orders] Order placed {"orderId":42}');
    assert.match(
      written,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARNING \[orders\] Order placed \{"orderId":42\}$/,
    );
  });
});
