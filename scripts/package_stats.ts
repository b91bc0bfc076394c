/**
 * Measures the npm build (issue 9): the wall time of building all eight
 * packages and the packed size (`npm pack --dry-run`, dependencies excluded)
 * of each, and checks the goal of every package under 50 kB packed. Prints
 * Markdown rows for BENCHMARKS.md and exits non-zero when a package is over.
 *
 * Run: `deno run -A scripts/package_stats.ts`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { buildAll } from "./build_npm.ts";
import { PACKAGES } from "./_packages.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const LIMIT = 50 * 1000;
// The build's folder: `npm/`, or KIT_NPM_OUT (as scripts/build_npm.ts).
const NPM = resolve(ROOT, process.env.KIT_NPM_OUT ?? "npm");

const times: number[] = [];
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  await buildAll();
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
const date = new Date().toISOString().slice(0, 10);
console.log(
  `| build all eight npm packages (median of 3) | ${
    Math.round(times[1])
  } ms | — | — | ${date} | dev VM |`,
);

let over = 0;
for (const { dir } of PACKAGES) {
  const result = spawnSync("npm", [
    "pack",
    "--dry-run",
    "--json",
    join(NPM, dir),
  ], {
    encoding: "utf8",
  });
  const [info] = JSON.parse(result.stdout) as {
    name: string;
    size: number;
    unpackedSize: number;
  }[];
  if (info.size > LIMIT) over++;
  console.log(
    `| packed size of ${info.name} | ${
      (info.size / 1000).toFixed(1)
    } kB (unpacked ${
      (info.unpackedSize / 1000).toFixed(1)
    } kB) | goal < 50 kB | ${
      (info.size / LIMIT).toFixed(2)
    } | ${date} | npm pack --dry-run |`,
  );
}
if (over > 0) {
  console.error(`${over} package(s) over 50 kB packed`);
  process.exitCode = 1;
}
