// Runtime variants (`#name` imports, scripts/_variants.ts): the npm build
// resolves each per runtime by the table's conditions and fails, naming the
// variant, the runtime and the importing file, when a package needs one
// that has no file for a runtime and no `default`. The build runs from a
// checkout under Deno; under Node.js and Bun (the npm passes) there is
// nothing to build.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;
const skip = isDeno ? false : "the npm build runs from a checkout under Deno";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface VariantsModule {
  VARIANTS: Record<string, Record<string, string>>;
  variantFile(
    name: string,
    runtime: "node" | "bun" | "browser",
    importer: string,
    variants?: Record<string, Record<string, string>>,
  ): string;
  checkVariants(
    imports: Record<string, string>,
    exists: (file: string) => boolean,
    variants?: Record<string, Record<string, string>>,
  ): void;
}

// Loaded by URL at run time: the npm passes transpile this file, whose
// static imports must name Kit's modules.
function variants(): Promise<VariantsModule> {
  return import(
    new URL("../../scripts/_variants.ts", import.meta.url).href
  ) as Promise<VariantsModule>;
}

/** Runs the npm build into `out`; fails after 120 seconds. */
function build(
  out: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [
      "run",
      "-A",
      "--config",
      join(ROOT, "deno.dev.json"),
      join(ROOT, "scripts", "build_npm.ts"),
    ], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", KIT_NPM_OUT: out, ...env },
    });
    let output = "";
    child.stdout.on("data", (chunk) => output += chunk);
    child.stderr.on("data", (chunk) => output += chunk);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the build did not end in 120 s:\n${output}`));
    }, 120_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

describe("runtime variants", { skip }, () => {
  it("fails the build, naming the variant, the runtime and the file, when a package needs a runtime's file and there is none and no default", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kit-variants-"));
    try {
      // The modules' timers reach #internal/unref; without its `default`, a
      // browser (which does not match `node`) has no file.
      const table = join(dir, "variants.json");
      await writeFile(
        table,
        JSON.stringify({
          "#internal/unref": { node: "internal/_unref_node.ts" },
        }),
      );
      const result = await build(join(dir, "npm"), {
        KIT_NPM_VARIANTS: table,
      });
      assert.notEqual(result.code, 0, result.output);
      assert.match(
        result.output,
        /internal\/unref_timer\.ts: the runtime variant '#internal\/unref' has no file for browser and no default \(conditions tried: browser, default\); add one to its entry in scripts\/_variants\.ts/,
      );
      assert.equal(
        existsSync(join(dir, "npm", "kit-core", "esm", "mod_browser.js")),
        false,
        "no browser bundle with the Node.js file in it",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("matches conditions as the runtimes do: Bun falls back to node, a browser only to default", async () => {
    const { variantFile } = await variants();
    const table = {
      "#x/server": { node: "x/_node.ts", browser: "x/_browser.ts" },
      "#x/loader": { node: "x/_require.ts", default: "x/_import.ts" },
      "#x/bun": { bun: "x/_bun.ts", node: "x/_node.ts" },
    };
    assert.equal(
      variantFile("#x/server", "bun", "x/a.ts", table),
      "x/_node.ts",
    );
    assert.equal(
      variantFile("#x/loader", "browser", "x/a.ts", table),
      "x/_import.ts",
    );
    assert.equal(
      variantFile("#x/loader", "node", "x/a.ts", table),
      "x/_require.ts",
    );
    assert.equal(variantFile("#x/bun", "bun", "x/a.ts", table), "x/_bun.ts");
    assert.throws(
      () => variantFile("#x/bun", "browser", "x/a.ts", table),
      /x\/a\.ts: the runtime variant '#x\/bun' has no file for browser and no default/,
    );
    assert.throws(
      () => variantFile("#x/missing", "node", "x/a.ts", table),
      /x\/a\.ts: '#x\/missing' is not a runtime variant; add it to VARIANTS in scripts\/_variants\.ts and to the imports of deno\.json/,
    );
  });

  it("lists the same names as deno.json's imports, every file present and named for its runtime, and no twin identical to the Deno file", async () => {
    const { VARIANTS, checkVariants } = await variants();
    const imports = (JSON.parse(
      await readFile(join(ROOT, "deno.json"), "utf8"),
    ) as { imports: Record<string, string> }).imports;
    checkVariants(imports, (file) => existsSync(join(ROOT, file)));
    assert.throws(
      () =>
        checkVariants(
          { "#x/a": "./deno.json" },
          () => true,
          {},
        ),
      /deno\.json maps the runtime variant '#x\/a', which scripts\/_variants\.ts does not list/,
    );
    // File names say which runtime takes the file first: Node.js's file
    // (`node`, or the `default` it falls back to) is _node even where
    // deno.json maps it too, deno.json's other file is _deno even where
    // browsers share it.
    checkVariants(
      {
        "#x/loader": "./x/_loader_deno.ts",
        "#x/server": "./x/_server_node.ts",
      },
      () => true,
      {
        "#x/loader": {
          node: "x/_loader_node.ts",
          default: "x/_loader_deno.ts",
        },
        "#x/server": {
          default: "x/_server_node.ts",
          browser: "x/_server_browser.ts",
        },
      },
    );
    assert.throws(
      () =>
        checkVariants(
          { "#x/loader": "./x/_loader_import.ts" },
          () => true,
          {
            "#x/loader": {
              node: "x/_loader_node.ts",
              default: "x/_loader_import.ts",
            },
          },
        ),
      /the runtime variant '#x\/loader' names x\/_loader_import\.ts, which deno takes first: name it x\/_loader_deno\.ts/,
    );
    assert.throws(
      () =>
        checkVariants(
          { "#x/server": "./x/_server.ts" },
          () => true,
          {
            "#x/server": {
              default: "x/_server.ts",
              browser: "x/_server_browser.ts",
            },
          },
        ),
      /the runtime variant '#x\/server' names x\/_server\.ts, which node takes first: name it x\/_server_node\.ts/,
    );
    // One file serves every runtime that runs the same code: a second file
    // equal to the Deno one but for its comments would be a copy to keep in
    // step by hand.
    const code = async (file: string): Promise<string> =>
      (await readFile(join(ROOT, file), "utf8")).split("\n")
        .filter((line) => !line.startsWith("//")).join("\n");
    for (const [name, files] of Object.entries(VARIANTS)) {
      const deno = imports[name].replace(/^\.\//, "");
      for (const [condition, file] of Object.entries(files)) {
        if (file === deno) continue;
        assert.notEqual(
          await code(file),
          await code(deno),
          `${name}: the ${condition} file ${file} is the Deno file ${deno} again; name the Deno file for ${condition} (or default)`,
        );
      }
    }
  });
});
