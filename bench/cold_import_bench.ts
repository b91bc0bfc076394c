// Cold import of each of Kit's eight npm packages in Node.js against the
// configuration peers node-config (`config`) and `convict`, in the same run.
// Each measurement starts a fresh `node` process that imports (or requires)
// one package and exits; an empty `node` process is the floor, and a
// package's cost is its median minus the floor's.
//
// The packages are built when npm/ is missing (`deno task build:npm`), then
// packed with `npm pack` and installed from the tarballs together with the
// peers and `@opentelemetry/api` (measured on its own, since packages may
// depend on it) into .bench-tmp/cold-import: the layout a user's
// `npm install` gives.
//
// Two measurements:
// 1. at load, 15 interleaved rounds per way of loading (`import`, then
//    `require`): each round runs every target once, the starting target
//    rotating from round to round, and the table printed gives the median
//    cost above the floor per target and Kit's ratio to each peer (the goal:
//    every package below both, same run), both in wall time (what a user
//    waits) and in the CPU time the process reports for itself (user +
//    system, all threads), which moves far less when other work shares the
//    machine;
// 2. `Deno.bench` groups (ES `import`, fewer iterations), node-config as the
//    baseline, so `deno bench` prints its own ratios too.
//
// Environment: KIT_COLD_ROUNDS sets the rounds of step 1 (15 by default);
// KIT_COLD_SKIP_INSTALL=1 reuses .bench-tmp/cold-import as it is;
// KIT_NPM_OUT packs the build of another folder than npm/ (as
// scripts/build_npm.ts); KIT_COLD_COMPARE names a folder holding an earlier
// install of this bench (a copy of .bench-tmp/cold-import), whose eight
// packages join the rounds as "before" rows, for before → after in one run.
//
// Run: deno bench -A --config deno.dev.json bench/cold_import_bench.ts
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGES } from "../scripts/_packages.ts";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const DIR = join(ROOT, ".bench-tmp", "cold-import");
const ROUNDS = Number(Deno.env.get("KIT_COLD_ROUNDS") ?? 15);
const NPM = resolve(ROOT, Deno.env.get("KIT_NPM_OUT") ?? "npm");
const COMPARE = Deno.env.get("KIT_COLD_COMPARE");

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}`);
  }
}

async function install(): Promise<void> {
  if (!existsSync(join(NPM, "kit-core", "package.json"))) {
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
  for (const info of PACKAGES) {
    run("npm", [
      "pack",
      "--silent",
      "--pack-destination",
      packs,
      join(NPM, info.dir),
    ], DIR);
  }
  const tarballs = await readdir(packs);
  const dependencies: Record<string, string> = {};
  for (const info of PACKAGES) {
    const base = info.name.replace("@", "").replace("/", "-") + "-";
    const file = tarballs.find((name) => name.startsWith(base));
    if (file === undefined) throw new Error(`no tarball for ${info.name}`);
    dependencies[info.name] = `file:${join(packs, file)}`;
  }
  const imports = (JSON.parse(
    await readFile(join(ROOT, "deno.json"), "utf8"),
  ) as { imports: Record<string, string> }).imports;
  const otel = /@([^@]+)$/.exec(imports["@opentelemetry/api"] ?? "")?.[1];
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
        ...dependencies,
        config: "5.0.1",
        convict: "6.2.5",
        "@opentelemetry/api": otel ?? "^1.9.0",
      },
    }),
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], DIR);
}

if (Deno.env.get("KIT_COLD_SKIP_INSTALL") !== "1") await install();

type Way = "import" | "require";

/** What one cold load cost, in milliseconds. */
interface Sample {
  /** Wall time of the whole process, as the parent sees it. */
  wall: number;
  /** CPU time (user + system) of the whole process, as it reports it. */
  cpu: number;
}

// The child's last line: its own CPU time so far, all threads.
const REPORT_CPU =
  "{const c=process.cpuUsage();console.log(String(c.user+c.system));}";

/** Runs one fresh `node` that loads `specifier` and exits. */
function coldLoad(
  specifier: string | undefined,
  way: Way,
  cwd: string = DIR,
): Sample {
  const load = specifier === undefined
    ? ""
    : way === "import"
    ? `await import(${JSON.stringify(specifier)});`
    : `require(${JSON.stringify(specifier)});`;
  const code = load + REPORT_CPU;
  const args = way === "import" ? ["--input-type=module", "-e", code] : [
    "-e",
    code,
  ];
  const started = performance.now();
  const result = spawnSync("node", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...Deno.env.toObject(),
      NODE_CONFIG_DIR: join(DIR, "config"),
      SUPPRESS_NO_CONFIG_WARNING: "1",
    },
  });
  const wall = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`node failed to ${way} ${specifier}: ${result.stderr}`);
  }
  const cpu = Number(result.stdout.trim().split("\n").at(-1)) / 1000;
  return { wall, cpu };
}

interface Target {
  label: string;
  specifier: string | undefined;
  peer?: boolean;
  /** The install to load it from, when not this bench's. */
  cwd?: string;
}

const FLOOR: Target = { label: "node, empty script (floor)", specifier: "" };
const TARGETS: Target[] = [
  FLOOR,
  ...PACKAGES.map((info) => ({ label: info.name, specifier: info.name })),
  { label: "node-config (config)", specifier: "config", peer: true },
  { label: "convict", specifier: "convict", peer: true },
  { label: "@opentelemetry/api", specifier: "@opentelemetry/api" },
  ...(COMPARE === undefined ? [] : PACKAGES.map((info) => ({
    label: `before: ${info.name}`,
    specifier: info.name,
    cwd: resolve(COMPARE),
  }))),
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
}

function measure(way: Way): Map<Target, Sample> {
  const samples = new Map<Target, Sample[]>(TARGETS.map((t) => [t, []]));
  for (const target of TARGETS) {
    coldLoad(target.specifier || undefined, way, target.cwd);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < TARGETS.length; i++) {
      const target = TARGETS[(i + round) % TARGETS.length];
      samples.get(target)!.push(
        coldLoad(target.specifier || undefined, way, target.cwd),
      );
    }
  }
  return new Map(TARGETS.map((t) => {
    const list = samples.get(t)!;
    return [t, {
      wall: median(list.map((s) => s.wall)),
      cpu: median(list.map((s) => s.cpu)),
    }];
  }));
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const cost = (value: number): string =>
  `${value >= 0 ? "+" : ""}${value.toFixed(1)} ms`;
const verdicts: string[] = [];
for (const way of ["import", "require"] as const) {
  const medians = measure(way);
  const floor = medians.get(FLOOR)!;
  const above = (target: Target, kind: keyof Sample): number =>
    medians.get(target)![kind] - floor[kind];
  const peers = TARGETS.filter((t) => t.peer);
  console.log(
    `\ncold ${way} in Node, medians of ${ROUNDS} interleaved runs; floor ${
      ms(floor.wall)
    } wall, ${ms(floor.cpu)} CPU`,
  );
  console.log(
    `| package | wall above the floor | ${
      peers.map((p) => `÷ ${p.label}`).join(" | ")
    } | CPU above the floor | ${
      peers.map((p) => `÷ ${p.label}`).join(" | ")
    } |`,
  );
  console.log(
    `|---|---|${peers.map(() => "---|").join("")}---|${
      peers.map(() => "---|").join("")
    }`,
  );
  for (const kind of ["wall", "cpu"] as const) {
    const slower = TARGETS.filter((target) =>
      !target.peer && target.cwd === undefined &&
      target.specifier?.startsWith("@vendor/") &&
      peers.some((peer) => above(target, kind) >= above(peer, kind))
    );
    verdicts.push(
      `${way}, ${kind}: ${
        slower.length === 0
          ? "every Kit package below both peers (met)"
          : `NOT met for ${slower.map((t) => t.label).join(", ")}`
      }`,
    );
  }
  for (const target of TARGETS.slice(1)) {
    const ratios = (kind: keyof Sample): string =>
      peers.map((peer) =>
        target.peer ? "—" : (above(target, kind) / above(peer, kind)).toFixed(2)
      ).join(" | ");
    console.log(
      `| ${target.label} | ${cost(above(target, "wall"))} | ${
        ratios("wall")
      } | ${cost(above(target, "cpu"))} | ${ratios("cpu")} |`,
    );
  }
}
console.log(`\ngoal, every Kit package's cold load below both peers:`);
for (const verdict of verdicts) console.log(`- ${verdict}`);

for (const target of TARGETS.filter((t) => t.cwd === undefined)) {
  Deno.bench({
    name: target.label,
    group: "cold import (ES import)",
    baseline: target.specifier === "config",
    n: 5,
    warmup: 1,
    fn: () => {
      coldLoad(target.specifier || undefined, "import");
    },
  });
}
