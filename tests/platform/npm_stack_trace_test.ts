// What a Node.js user sees when a Kit error goes uncaught: a trace of a
// normal size, whose top Kit frame names a file of the installed package and
// a line in it. Without source maps that is the built JavaScript file (which
// exists, and holds the `throw` on that line); with `--enable-source-maps` it
// is the TypeScript file the package's source map names, beside the package's
// other files, whose text the map carries. The npm passes run it against the
// built packages, as ES module and as CommonJS; Deno and Bun print their own
// traces and skip it.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isNpmPass, moduleUrl } from "../_support/module_url.ts";
import { runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
const skip = isNpmPass() && isNode
  ? false
  : "Node.js prints the trace of the built package (npm passes)";

// Far above a real trace (a dozen lines), far below a minified bundle line.
const MAX_BYTES = 4_000;

const SCRIPT = `
const { ServiceLocator } = await import(PLATFORM_URL);
new ServiceLocator().get("database");
`;

interface Frame {
  path: string;
  line: number;
}

// The frames of the printed trace: `at f (file:line:column)` or
// `at file:line:column`, as a path (ES modules print file URLs).
function frames(out: string): Frame[] {
  const found: Frame[] = [];
  for (const match of out.matchAll(/^\s+at (?:.* \()?(.+?):(\d+):\d+\)?$/gm)) {
    const path = match[1].startsWith("file://")
      ? fileURLToPath(match[1])
      : match[1];
    found.push({ path, line: Number(match[2]) });
  }
  return found;
}

// The installed package: the folder of package.json above the entry file.
const entry = fileURLToPath(moduleUrl("platform"));
const packageDir = dirname(dirname(entry));

function topKitFrame(out: string): Frame {
  const frame = frames(out).find((f) => !f.path.endsWith("child.mjs"));
  assert.ok(frame, `no frame outside the script in:\n${out}`);
  assert.ok(
    frame.path.startsWith(packageDir + "/"),
    `the top frame names ${frame.path}, outside the package ${packageDir}:\n${out}`,
  );
  return frame;
}

describe("an uncaught Kit error on Node.js", { skip }, () => {
  it("prints a trace of a few lines whose top frame is a line of a file in the package", async () => {
    const result = await runChildScript(SCRIPT);
    assert.equal(result.code, 1, result.out);
    assert.match(
      result.out,
      /ServiceNotFoundError: Service not found: database/,
    );
    assert.ok(
      result.out.length < MAX_BYTES,
      `the trace is ${result.out.length} bytes:\n${result.out.slice(0, 2000)}`,
    );
    const frame = topKitFrame(result.out);
    assert.ok(existsSync(frame.path), `${frame.path} does not exist`);
    const line = readFileSync(frame.path, "utf8").split("\n")[frame.line - 1];
    assert.match(line, /new ServiceNotFoundError\(/);
  });

  it("names the TypeScript file and line with --enable-source-maps, from the package's map", async () => {
    const result = await runChildScript(SCRIPT, {
      runtimeArgs: ["--enable-source-maps"],
    });
    assert.equal(result.code, 1, result.out);
    assert.match(
      result.out,
      /ServiceNotFoundError: Service not found: database/,
    );
    assert.ok(
      result.out.length < MAX_BYTES,
      `the trace is ${result.out.length} bytes:\n${result.out.slice(0, 2000)}`,
    );
    const frame = topKitFrame(result.out);
    assert.match(frame.path, /\/service_locator\.ts$/);
    // The map beside the entry names that file relative to itself and
    // carries its text, where the frame's line throws.
    const map = JSON.parse(readFileSync(entry + ".map", "utf8")) as {
      sources: string[];
      sourcesContent?: (string | null)[];
    };
    const index = map.sources.findIndex((source) =>
      resolve(dirname(entry), source) === frame.path
    );
    assert.ok(index >= 0, `the map does not name ${frame.path}`);
    const text = map.sourcesContent?.[index];
    assert.ok(typeof text === "string", "the map carries no source text");
    assert.match(
      text.split("\n")[frame.line - 1],
      /new ServiceNotFoundError\(/,
    );
  });
});
