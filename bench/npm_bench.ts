// Cold import time of the configuration package in Node.js against node-config
// (`config`) and `convict`, in the same run (issue 9). Each iteration starts a
// fresh `node` process that imports one package and exits; an empty `node`
// process is the floor.
//
// Kit's packages are built (`deno task build:npm`, when npm/ is missing),
// packed with `npm pack` and installed from the tarballs with the peers into
// .bench-tmp/cold-import, the layout a user's `npm install` gives (no
// symlinks; valibot hoisted).
//
// One more row is an experiment, not something Kit ships: the same built ES
// modules of the configuration package and of kit-core and kit-platform
// joined into one file by `deno bundle` (valibot and dotenv left as imports).
// The difference between it and the shipped package is what Node.js 20's ES
// module loader spends on the ~40 separate files (resolve, read, compile,
// link each), the layout issue 9 asks for (one output file per source file).
// Run: deno bench -A bench/npm_bench.ts
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const DIR = join(ROOT, ".bench-tmp", "cold-import");
const KIT = ["kit-core", "kit-platform", "kit-platform-configuration"];

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}`);
  }
}

if (
  !existsSync(join(ROOT, "npm", "kit-platform-configuration", "package.json"))
) {
  run(
    Deno.execPath(),
    ["run", "-A", join(ROOT, "scripts", "build_npm.ts")],
    ROOT,
  );
}
await rm(DIR, { recursive: true, force: true });
const packs = join(DIR, "packs");
await mkdir(packs, { recursive: true });
await mkdir(join(DIR, "config"), { recursive: true });
for (const dir of KIT) {
  run("npm", [
    "pack",
    "--silent",
    "--pack-destination",
    packs,
    join(ROOT, "npm", dir),
  ], DIR);
}
const tarballs = await readdir(packs);
const version = (JSON.parse(
  await readFile(join(ROOT, "npm", "kit-core", "package.json"), "utf8"),
) as { version: string }).version;
const tarball = (dir: string): string => {
  const name = `vendor-${dir}-${version}.tgz`;
  if (!tarballs.includes(name)) throw new Error(`no tarball ${name}`);
  return `file:${join(packs, name)}`;
};
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
      "@vendor/kit-core": tarball("kit-core"),
      "@vendor/kit-platform": tarball("kit-platform"),
      "@vendor/kit-platform-configuration": tarball(
        "kit-platform-configuration",
      ),
      config: "5.0.1",
      convict: "6.2.5",
    },
  }),
);
run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], DIR);
// The experiment: the installed ES modules of the three Kit packages as one
// file, valibot and dotenv still imported from node_modules.
await writeFile(
  join(DIR, "entry.mjs"),
  'export * from "@vendor/kit-platform-configuration";\n',
);
run(Deno.execPath(), [
  "bundle",
  "--quiet",
  "--platform",
  "deno",
  "--external",
  "valibot",
  "--external",
  "dotenv",
  "--external",
  "node:*",
  "--output",
  "one-file.mjs",
  "entry.mjs",
], DIR);

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
  n: 40,
  warmup: 2,
  fn: () => coldImport(undefined),
});
Deno.bench({
  name: "Kit @vendor/kit-platform-configuration",
  group: "cold-import",
  n: 40,
  warmup: 2,
  fn: () => coldImport("@vendor/kit-platform-configuration"),
});
Deno.bench({
  name: "experiment, not shipped: the same Kit code as one bundled file",
  group: "cold-import",
  n: 40,
  warmup: 2,
  fn: () => coldImport("./one-file.mjs"),
});
Deno.bench({
  name: "node-config (config)",
  group: "cold-import",
  baseline: true,
  n: 40,
  warmup: 2,
  fn: () => coldImport("config"),
});
Deno.bench({
  name: "convict",
  group: "cold-import",
  n: 40,
  warmup: 2,
  fn: () => coldImport("convict"),
});
