/**
 * The consumer check of issue 9: packs the eight built packages with
 * `npm pack`, installs the tarballs into two scratch projects, type-checks
 * `scripts/consumer/app.ts` there with the pinned TypeScript and runs it with
 * Node:
 *
 * - `classic`: the compiler settings of spec §9.2 and §7 (target ES2020,
 *   module CommonJS, strict, skipLibCheck, moduleResolution node,
 *   esModuleInterop, allowSyntheticDefaultImports), so `require` and the
 *   top-level `main`/`types` are used;
 * - `nodenext`: module and moduleResolution nodenext in an ES-module project,
 *   so the `exports` `import` conditions are used;
 * - then `deno bundle --platform browser` of all eight packages from the
 *   installed tarballs, so the `browser` conditions are used: the bundle must
 *   hold no `node:` module, node-redis or dotenv.
 *
 * Run after `deno task build:npm`: `deno run -A scripts/consumer_check.ts`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { PACKAGES } from "./_packages.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const TYPESCRIPT = "5.9.3";

function sh(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${
        args.join(" ")
      } failed in ${cwd}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

const work = await mkdtemp(join(tmpdir(), "kit-consumer-"));
try {
  const packs = join(work, "packs");
  await mkdir(packs);
  for (const info of PACKAGES) {
    sh("npm", [
      "pack",
      "--silent",
      "--pack-destination",
      packs,
      join(ROOT, "npm", info.dir),
    ], ROOT);
  }
  const tarballs = (await readdir(packs)).filter((f) => f.endsWith(".tgz"));
  const dependencies: Record<string, string> = {};
  for (const info of PACKAGES) {
    const base = info.name.replace("@", "").replace("/", "-");
    const file = tarballs.find((t) => t.startsWith(base + "-"));
    if (!file) throw new Error(`no tarball for ${info.name}`);
    dependencies[info.name] = `file:${join(packs, file)}`;
  }

  const projects = {
    classic: {
      type: "commonjs",
      compilerOptions: {
        target: "ES2020",
        module: "commonjs",
        strict: true,
        skipLibCheck: true,
        moduleResolution: "node",
        esModuleInterop: true,
        allowSyntheticDefaultImports: true,
        outDir: "dist",
        lib: ["ES2022", "DOM"],
      },
    },
    nodenext: {
      type: "module",
      compilerOptions: {
        target: "ES2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        skipLibCheck: true,
        outDir: "dist",
        lib: ["ES2022", "DOM"],
      },
    },
  };
  for (const [name, project] of Object.entries(projects)) {
    const dir = join(work, name);
    await mkdir(dir);
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify(
        {
          name: `kit-consumer-${name}`,
          private: true,
          type: project.type,
          dependencies,
          devDependencies: {
            typescript: TYPESCRIPT,
            "@types/node": "^20.19.0",
          },
        },
        null,
        2,
      ),
    );
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify(
        { compilerOptions: project.compilerOptions, files: ["app.ts"] },
        null,
        2,
      ),
    );
    await copyFile(
      join(ROOT, "scripts", "consumer", "app.ts"),
      join(dir, "app.ts"),
    );
    sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], dir);
    sh(join(dir, "node_modules", ".bin", "tsc"), ["-p", "."], dir);
    const output = sh("node", [join("dist", "app.js")], dir);
    if (!output.includes("consumer ok")) {
      throw new Error(`${name}: the app did not finish:\n${output}`);
    }
    console.log(
      `${name}: type-checked and ran: ${output.trim().split("\n")[0]}`,
    );
  }
  // A web bundler resolving the `browser` export conditions of the installed
  // packages: the bundle of all eight must hold no `node:` module and none of
  // node-redis or dotenv.
  const web = join(work, "nodenext");
  await writeFile(
    join(web, "browser-entry.mjs"),
    PACKAGES.map((info) => `export * from "${info.name}";\n`).join(""),
  );
  const bundle = join(work, "browser-bundle.js");
  sh(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "--output",
    bundle,
    "browser-entry.mjs",
  ], web);
  const bundled = await readFile(bundle, "utf8");
  const nodeImports = bundled.match(/["']node:[\w/]+["']/g) ?? [];
  if (
    nodeImports.length > 0 ||
    /\bfunction createClient\b|dotenv\/lib/.test(bundled)
  ) {
    throw new Error(
      `the browser bundle of all eight packages reaches Node-only code: ${
        [...new Set(nodeImports)].join(", ") || "node-redis or dotenv"
      }`,
    );
  }
  console.log(
    `browser: all eight packages bundle for the web (${
      Math.round(bundled.length / 1000)
    } kB, no node: module)`,
  );
  console.log("consumer check passed");
} catch (error) {
  console.error(String(error instanceof Error ? error.message : error));
  process.exitCode = 1;
} finally {
  await rm(work, { recursive: true, force: true });
}
