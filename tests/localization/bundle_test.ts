import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const MODULE_DIR = fileURLToPath(
  new URL("../../localization/", import.meta.url),
);

// A browser bundle of localization/mod.ts must not pull node: modules or
// touch Deno: the file system is reached only through a dynamic import in
// the _fs.ts adapter.
test("localization/ has no static node: import and no Deno global; node:fs only via dynamic import in _fs.ts", async () => {
  const files = (await readdir(MODULE_DIR)).filter((name) =>
    name.endsWith(".ts")
  );
  assert.ok(files.includes("mod.ts"));
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
    if (name !== "_fs.ts") {
      assert.doesNotMatch(source, /["']node:/, `${name} mentions node:`);
    }
  }
  const adapter = await readFile(MODULE_DIR + "_fs.ts", "utf8");
  assert.match(adapter, /import\("node:fs\/promises"\)/);
});
