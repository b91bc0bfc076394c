/**
 * Measures the npm build: the wall time of building all eight packages and
 * the generator's, and the packed size (`npm pack --dry-run`, dependencies
 * excluded) of each, without its source maps (what is loaded; the goal of
 * 50 kB) and with them (what is downloaded). Prints Markdown rows for
 * BENCHMARKS.md and exits non-zero when a package is over the goal.
 *
 * Environment: `KIT_NPM_OUT` as for `scripts/build_npm.ts`;
 * `KIT_STATS_SKIP_BUILD=1` measures that folder as it is, without building.
 *
 * Run: `deno run -A --config deno.dev.json scripts/package_stats.ts`.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { buildAll } from "./build_npm.ts";
import { CREATE_PACKAGE, PACKAGES } from "./_packages.ts";
import { packedSizes } from "./_package_checks.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const LIMIT = 50 * 1000;
// The build's folder: `npm/`, or KIT_NPM_OUT (as scripts/build_npm.ts).
const NPM = resolve(ROOT, process.env.KIT_NPM_OUT ?? "npm");

const date = new Date().toISOString().slice(0, 10);
// KIT_STATS_SKIP_BUILD=1 measures the folder as it is (an earlier build
// kept for a before → after), without building or timing the build.
if (process.env.KIT_STATS_SKIP_BUILD !== "1") {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await buildAll();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(
    `| build all eight npm packages (median of 3) | ${
      Math.round(times[1])
    } ms | — | — | ${date} | dev VM |`,
  );
}

const kB = (bytes: number): string => (bytes / 1000).toFixed(1);
let over = 0;
for (const { dir } of [...PACKAGES, CREATE_PACKAGE]) {
  const size = packedSizes(join(NPM, dir));
  if (size.withoutMaps > LIMIT) over++;
  console.log(
    `| packed size, ${size.name} | ${
      kB(size.withoutMaps)
    } kB without source maps (${
      kB(size.packed)
    } kB with them) | goal < 50 kB | ${
      (size.withoutMaps / LIMIT).toFixed(2)
    } | ${date} | dev VM; npm pack --dry-run |`,
  );
}
if (over > 0) {
  console.error(`${over} package(s) over 50 kB packed without source maps`);
  process.exitCode = 1;
}
