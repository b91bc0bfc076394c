// Cold import time of the configuration package in Node.js against node-config
// (`config`) and `convict`, in the same run (issue 9). Each iteration starts a
// fresh `node` process that imports one package and exits; an empty `node`
// process is the floor. The packages come from `npm/` (built by
// `deno task build:npm`), installed into .bench-tmp/cold-import with the peers.
// Run: deno bench -A bench/npm_bench.ts
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const DIR = join(ROOT, ".bench-tmp", "cold-import");

if (
  !existsSync(join(ROOT, "npm", "kit-platform-configuration", "package.json"))
) {
  const build = spawnSync(Deno.execPath(), [
    "run",
    "-A",
    join(ROOT, "scripts", "build_npm.ts"),
  ], {
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error("the npm build failed");
}
await mkdir(join(DIR, "config"), { recursive: true });
await writeFile(
  join(DIR, "config", "default.json"),
  JSON.stringify({ db: { host: "x" } }),
);
await writeFile(
  join(DIR, "package.json"),
  JSON.stringify({
    name: "kit-cold-import-bench",
    private: true,
    type: "module",
    dependencies: {
      "@vendor/kit-core": `file:${join(ROOT, "npm", "kit-core")}`,
      "@vendor/kit-platform": `file:${join(ROOT, "npm", "kit-platform")}`,
      "@vendor/kit-platform-configuration": `file:${
        join(ROOT, "npm", "kit-platform-configuration")
      }`,
      config: "5.0.1",
      convict: "6.2.5",
    },
  }),
);
const install = spawnSync("npm", [
  "install",
  "--no-audit",
  "--no-fund",
  "--loglevel=error",
], {
  cwd: DIR,
  stdio: "inherit",
});
if (install.status !== 0) {
  throw new Error("npm install for the cold-import bench failed");
}

function coldImport(specifier: string | undefined): void {
  const code = specifier === undefined
    ? ""
    : `await import(${JSON.stringify(specifier)});`;
  const result = spawnSync("node", ["--input-type=module", "-e", code], {
    cwd: DIR,
    env: { ...Deno.env.toObject(), NODE_CONFIG_DIR: join(DIR, "config") },
  });
  if (result.status !== 0) throw new Error(`node failed: ${result.stderr}`);
}

Deno.bench({
  name: "node, empty script (floor)",
  group: "cold-import",
  n: 20,
  warmup: 2,
  fn: () => coldImport(undefined),
});
Deno.bench({
  name: "Kit @vendor/kit-platform-configuration",
  group: "cold-import",
  n: 20,
  warmup: 2,
  fn: () => coldImport("@vendor/kit-platform-configuration"),
});
Deno.bench({
  name: "node-config (config)",
  group: "cold-import",
  baseline: true,
  n: 20,
  warmup: 2,
  fn: () => coldImport("config"),
});
Deno.bench({
  name: "convict",
  group: "cold-import",
  n: 20,
  warmup: 2,
  fn: () => coldImport("convict"),
});
