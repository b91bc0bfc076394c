/**
 * Checks the direction of imports between Kit's folders against the `uses`
 * of scripts/_packages.ts (scripts/_module_graph.ts), and that
 * docs/architecture.svg still draws that declaration, and that no two
 * modules define an export of the same name (scripts/_export_names.ts). Part of
 * `deno task check`; the npm build refuses the same imports.
 *
 * Run: `deno run --allow-read --allow-env --config deno.dev.json scripts/check_modules.ts`; with `--write`
 * (and `--allow-write`) it redraws docs/architecture.svg instead of
 * comparing it; `--root <dir>` checks the tree in another folder.
 *
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { checkModuleGraph } from "./_module_graph.ts";
import { checkExportNames } from "./_export_names.ts";
import { architectureSvg } from "./_architecture_svg.ts";
import { INTERNAL_USES, PACKAGES } from "./_packages.ts";

// `--root <dir>` checks another tree (the tests' scratch copies).
const rootAt = Deno.args.indexOf("--root");
const ROOT = rootAt === -1
  ? resolve(dirname(new URL(import.meta.url).pathname), "..")
  : resolve(Deno.args[rootAt + 1] ?? ".");
const PICTURE = join(ROOT, "docs", "architecture.svg");
const WRITE_COMMAND =
  "deno run -A --config deno.dev.json scripts/check_modules.ts --write";

const picture = architectureSvg(PACKAGES, INTERNAL_USES);
if (Deno.args.includes("--write")) {
  await writeFile(PICTURE, picture);
  console.log("wrote docs/architecture.svg");
  process.exit(0);
}

const problems = [
  ...await checkModuleGraph(ROOT),
  ...await checkExportNames(ROOT),
];
let current: string | undefined;
try {
  current = await readFile(PICTURE, "utf8");
} catch {
  current = undefined;
}
if (current !== picture) {
  problems.push(
    `docs/architecture.svg ${
      current === undefined ? "is missing" : "no longer draws"
    } the modules' "uses" of scripts/_packages.ts: run \`${WRITE_COMMAND}\` and commit the result`,
  );
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  console.error(
    `module check: ${problems.length} problem${
      problems.length === 1 ? "" : "s"
    } (the rules: scripts/_module_graph.ts, docs/architecture.md)`,
  );
  process.exit(1);
}
console.log(
  "module check: every import keeps the declared direction, and every exported name is one thing",
);
