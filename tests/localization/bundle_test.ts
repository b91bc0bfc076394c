import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { moduleUrl } from "../_support/module_url.ts";

// The sources under `deno test`; the built package's output in the npm passes.
const ENTRY = fileURLToPath(moduleUrl("localization"));
const MODULE_DIR = ENTRY.slice(0, ENTRY.lastIndexOf("/") + 1);
const EXT = ENTRY.endsWith(".ts") ? ".ts" : ".js";

// A browser bundle of localization/mod.ts must not pull node: modules or
// touch Deno: the file system is reached only through a dynamic import in
// Kit's bounded file reader (internal/bounded_file.ts), which only the _fs_node.ts
// adapter imports. The kit-i18n command (cli/i18n/) is a program, not
// part of the module: it may use node: modules, and no module file imports it.
test("localization/ has no static node: import and no Deno global; node:fs only via dynamic import in the bounded file reader", async () => {
  // Every file, in the module's concept folders too.
  const files = (await readdir(MODULE_DIR, { recursive: true }))
    .map((name) => name.replaceAll("\\", "/"))
    .filter((name) => name.endsWith(EXT) && !name.endsWith(".d.ts"));
  assert.ok(files.includes("mod" + EXT));
  if (EXT === ".ts") {
    // The sources: the folders were read (the adapters live in them).
    for (const name of ["loading/_fs_node.ts", "messages/_icu.ts"]) {
      assert.ok(files.includes(name), `${name} was not read`);
    }
  }
  // The npm build may bundle the module into mod.js (and mod_browser.js):
  // then the reader's dynamic import is in mod.js. In the sources it is in
  // internal/bounded_file.ts, and no file of the module names node:.
  const adapterName = EXT === ".ts"
    ? undefined
    : files.includes("_fs" + EXT)
    ? "_fs" + EXT
    : "mod" + EXT;
  const dynamicFs =
    /import\("node:fs\/promises"\)|require\("node:fs\/promises"\)/g;
  for (const name of files) {
    // Code only: comment lines may name node:fs in prose.
    const source = (await readFile(MODULE_DIR + name, "utf8"))
      .split("\n")
      .filter((line) => !/^\s*(?:\*|\/\/|\/\*\*)/.test(line))
      .join("\n");
    assert.doesNotMatch(
      source,
      /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']node:/m,
      `${name} has a static node: import`,
    );
    assert.doesNotMatch(source, /\bDeno\./, `${name} uses Deno.*`);
    assert.doesNotMatch(source, /cli\/i18n\//, `${name} imports the command`);
    assert.doesNotMatch(
      name === adapterName ? source.replace(dynamicFs, "") : source,
      /["']node:/,
      `${name} mentions node:`,
    );
  }
  const adapter = await readFile(
    adapterName === undefined
      ? fileURLToPath(
        new URL("../internal/bounded_file.ts", moduleUrl("localization")),
      )
      : MODULE_DIR + adapterName,
    "utf8",
  );
  if (adapterName === undefined) {
    assert.doesNotMatch(
      adapter,
      /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']node:/m,
      "internal/bounded_file.ts has a static node: import",
    );
  }
  // CommonJS output turns the dynamic import into a deferred require().
  assert.match(
    adapter,
    /import\("node:fs\/promises"\)|require\("node:fs\/promises"\)/,
  );
});
