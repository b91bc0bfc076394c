/**
 * The release check: Kit's packages published to a private registry and
 * installed from it the way a user does, with npm, pnpm and Bun.
 *
 * 1. installs its pinned tools (Verdaccio, pnpm, Bun, TypeScript 5.9 and 7)
 *    into `.ci/.tools/release` with `npm install --prefix` (kept between
 *    runs; reinstalled when the pins change);
 * 2. starts Verdaccio on a free loopback port: `@vendor/*` needs a login to
 *    read and to publish, everything else is proxied to the registry npm is
 *    configured with (`npm config get registry`); its storage is a
 *    temporary folder;
 * 3. creates a user through the registry's API, builds every package
 *    (`scripts/build_npm.ts`, into the scratch folder) and publishes all
 *    nine with `npm publish`, the token in a temporary userconfig;
 * 4. per package manager, a fresh project set up as docs/npm_packages.md
 *    says for that tool (npm and Bun: the scope line and the credential
 *    line, `${KIT_REGISTRY_TOKEN}`, in the project's `.npmrc`; pnpm: the
 *    scope line there, the credential line in the user's `.npmrc`, since
 *    pnpm ignores a project `.npmrc` credential that names a variable)
 *    installs the eight packages, then runs an ES-module script, a CommonJS
 *    script (each making a real HTTP request to a loopback server, so the
 *    dependencies loaded on first use load from that layout) and
 *    `scripts/consumer/app.ts` compiled with TypeScript 5.9 (CommonJS,
 *    `moduleResolution: node`) and TypeScript 7 (`nodenext`, `bundler`);
 *    the Bun project runs everything with Bun;
 * 5. the failure rows: no token (npm: `E401`), no scope line (npm: `E404`
 *    from the public registry), pnpm with the credential line in the
 *    project's `.npmrc` (`ERR_PNPM_FETCH_401`), TypeScript 7 with
 *    `moduleResolution: node` (`TS5108`); in each, the doctor
 *    (`scripts/doctor.ts` from this checkout) must fail the right check and
 *    say what to do;
 * 6. `npm init @vendor/kit <folder>` from the registry writes a Node.js
 *    project whose `npm install` and `npm test` pass;
 * 7. a publish with a token the registry refuses ends in an error that names
 *    the registry and the package, and not the token.
 *
 * One line per case with its time, then `release check: N passed, N failed,
 * N skipped`; exit code 1 on any failure. Every command has a time limit and
 * the whole check a deadline; the registry and anything else started is
 * stopped on the way out and the scratch folder removed. The token never
 * reaches the output.
 *
 * Run: `deno run -A scripts/release_check.ts`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { CREATE_PACKAGE, PACKAGES } from "./_packages.ts";
import {
  createUser,
  installTools,
  killAll,
  publish,
  PublishError,
  type Registry,
  type Result,
  run as runCommand,
  startRegistry,
  type Tools,
} from "./_release_registry.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TOOLS_DIR = join(ROOT, ".ci", ".tools", "release");
/** The whole check's deadline. */
const DEADLINE = Date.now() + 10 * 60_000;
const TOKEN_VARIABLE = "KIT_REGISTRY_TOKEN";
const NAMES = PACKAGES.map((info) => info.name);

/** Something that went wrong in a case, with what to look at. */
class CaseFailure extends Error {}
/** A case that cannot run, with the reason. */
class CaseSkipped extends Error {}

interface CaseReport {
  name: string;
  status: "ok" | "FAILED" | "SKIPPED";
  detail: string;
  ms: number;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** State shared by the cases, filled in by the set-up cases. */
interface Context {
  scratch: string;
  env: Record<string, string>;
  tools?: Tools;
  registry?: Registry;
  token?: string;
  /** Set once all nine packages are in the registry. */
  published?: true;
  /** An empty file: the user's `.npmrc` of a clean machine. */
  emptyUserConfig: string;
  /** Projects that installed, by package manager. */
  projects: Map<string, string>;
}

/**
 * The environment of every command: this one without npm's variables (a
 * `deno task` under `npm run` would pass them down) or a token, with npm's
 * cache in the scratch folder and an empty user `.npmrc`.
 */
function baseEnvironment(scratch: string, userconfig: string): Record<
  string,
  string
> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^npm_/i.test(key) || key === TOKEN_VARIABLE) continue;
    env[key] = value;
  }
  return {
    ...env,
    NO_COLOR: "1",
    NPM_CONFIG_USERCONFIG: userconfig,
    npm_config_cache: join(scratch, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    BUN_INSTALL_CACHE_DIR: join(scratch, "bun-cache"),
  };
}

function expectOk(what: string, result: Result): void {
  if (result.code !== 0) {
    throw new CaseFailure(
      `${what} exited with ${result.code}:\n${result.output.slice(-2500)}`,
    );
  }
}

/** The registry's scope line and credential line, as the docs write them. */
function scopeLine(registry: Registry): string {
  return `@vendor:registry=${registry.url}\n`;
}
function credentialLine(registry: Registry): string {
  return `${registry.authKey}:_authToken=\${${TOKEN_VARIABLE}}\n`;
}

/** The ES-module and CommonJS scripts: every package, one real request. */
function consumerScript(kind: "esm" | "cjs"): string {
  const names = {
    "@vendor/kit-core": ["format"],
    "@vendor/kit-platform": ["ServiceLocator"],
    "@vendor/kit-platform-configuration": [
      "ConfigurationManager",
      "MemoryProvider",
    ],
    "@vendor/kit-platform-logging": ["ConsoleLogProvider", "LoggerManager"],
    "@vendor/kit-platform-http": ["HttpClient"],
    "@vendor/kit-platform-localization": ["LocalizationManager"],
    "@vendor/kit-platform-caching": ["CacheManager", "MemoryCacheProvider"],
    "@vendor/kit-platform-analytics": ["AnalyticsManager"],
  };
  const imports = Object.entries(names).map(([name, exports]) =>
    kind === "esm"
      ? `import { ${exports.join(", ")} } from "${name}";`
      : `const { ${exports.join(", ")} } = require("${name}");`
  );
  const http = kind === "esm"
    ? `import { createServer } from "node:http";`
    : `const { createServer } = require("node:http");`;
  return `${http}
${imports.join("\n")}

async function main() {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ path: request.url }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const config = new ConfigurationManager();
    config.addProvider(new MemoryProvider(new Map([
      ["api:baseUrl", "http://127.0.0.1:" + server.address().port],
    ])));
    await config.loadConfiguration();
    ServiceLocator.register("config", () => config);
    const base = ServiceLocator.get("config").getValue("api:baseUrl");
    const http = new HttpClient(base, { timeout: 5000, retryAttempts: 0 });
    const answer = await http.get("/ping");
    const logging = new LoggerManager();
    logging.configure({ level: "info", providers: [new ConsoleLogProvider()] });
    logging.getLogger("check").info("logged");
    await logging.flush();
    const cache = new CacheManager(new MemoryCacheProvider({ maxSize: 10 }));
    const cached = await cache.getOrSet("answer", () => Promise.resolve(42));
    const analytics = new AnalyticsManager();
    await analytics.dispose();
    if (typeof LocalizationManager !== "function") throw new Error("no LocalizationManager");
    console.log(format("{0}: {1} {2} ok", "${kind}", answer.path, cached));
    await cache.dispose();
    await logging.dispose();
    await ServiceLocator.dispose();
  } finally {
    server.close();
  }
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;
}

/** The TypeScript consumers: a folder each, with its settings. */
const TS_CONSUMERS = {
  "TypeScript 5.9 (commonjs, node)": {
    folder: "ts59-node",
    compiler: "tsc59",
    type: "commonjs",
    compilerOptions: {
      target: "ES2020",
      module: "commonjs",
      moduleResolution: "node",
      strict: true,
      skipLibCheck: true,
      esModuleInterop: true,
      allowSyntheticDefaultImports: true,
    },
  },
  "TypeScript 7 (nodenext)": {
    folder: "ts7-nodenext",
    compiler: "tsc7",
    type: "module",
    compilerOptions: {
      target: "ES2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      strict: true,
      skipLibCheck: true,
    },
  },
  "TypeScript 7 (bundler)": {
    folder: "ts7-bundler",
    compiler: "tsc7",
    type: "module",
    compilerOptions: {
      target: "ES2022",
      module: "esnext",
      moduleResolution: "bundler",
      strict: true,
      skipLibCheck: true,
    },
  },
} as const;

/**
 * Writes a consumer project: package.json with the eight packages (and
 * `@types/node` for the compiled consumers), the two scripts and a folder
 * per TypeScript consumer.
 */
async function writeProject(
  dir: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const dependencies: Record<string, string> = {};
  const version = await kitVersion();
  for (const name of NAMES) dependencies[name] = `^${version}`;
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify(
      {
        name: "kit-release-consumer",
        private: true,
        dependencies,
        devDependencies: { "@types/node": "^20.19.0" },
        ...extra,
      },
      null,
      2,
    ) + "\n",
  );
  await writeFile(join(dir, "consumer.mjs"), consumerScript("esm"));
  await writeFile(join(dir, "consumer.cjs"), consumerScript("cjs"));
  for (const consumer of Object.values(TS_CONSUMERS)) {
    const sub = join(dir, consumer.folder);
    await mkdir(sub, { recursive: true });
    await writeFile(
      join(sub, "package.json"),
      JSON.stringify({ private: true, type: consumer.type }) + "\n",
    );
    await writeFile(
      join(sub, "tsconfig.json"),
      JSON.stringify(
        {
          compilerOptions: {
            ...consumer.compilerOptions,
            outDir: "dist",
            lib: ["ES2022", "DOM"],
            types: ["node"],
          },
          files: ["app.ts"],
        },
        null,
        2,
      ) + "\n",
    );
    await copyFile(
      join(ROOT, "scripts", "consumer", "app.ts"),
      join(sub, "app.ts"),
    );
  }
}

let versionCache: string | undefined;
async function kitVersion(): Promise<string> {
  versionCache ??= (JSON.parse(
    await readFile(join(ROOT, "deno.json"), "utf8"),
  ) as { version: string }).version;
  return versionCache;
}

/** The doctor from this checkout, as JSON. */
interface DoctorCheck {
  group: string;
  name: string;
  status: string;
  message: string;
  advice?: string;
}
async function doctor(
  ctx: Context,
  folder: string,
  env: Record<string, string>,
  program?: string,
): Promise<DoctorCheck[]> {
  const [command, args] = program === undefined
    ? [process.execPath, ["run", "-A", join(ROOT, "scripts", "doctor.ts")]]
    : [program, []];
  const result = await runCommand(command, [...args, "--json", folder], {
    cwd: folder,
    env,
    timeoutMs: 60_000,
    secrets: ctx.token === undefined ? [] : [ctx.token],
  });
  try {
    return (JSON.parse(result.output.slice(result.output.indexOf("{"))) as {
      checks: DoctorCheck[];
    }).checks;
  } catch {
    throw new CaseFailure(
      `the doctor (${command}) gave no JSON (exit ${result.code}):\n${
        result.output.slice(-2000)
      }`,
    );
  }
}

/** Throws unless the doctor failed `name` in the Registry group with a fix. */
function expectDoctorFails(
  checks: DoctorCheck[],
  name: string | RegExp,
  advice: RegExp,
): string {
  const registry = checks.filter((check) => check.group === "Registry");
  const failed = registry.find((check) =>
    check.status === "fail" &&
    (typeof name === "string" ? check.name === name : name.test(check.name))
  );
  if (failed === undefined || !advice.test(failed.advice ?? "")) {
    throw new CaseFailure(
      `the doctor should FAIL ${name} with a fix matching ${advice}; it said:\n${
        registry.map((check) =>
          `  ${check.status} ${check.name}: ${check.message}${
            check.advice ? `\n    fix: ${check.advice}` : ""
          }`
        ).join("\n")
      }`,
    );
  }
  return `doctor FAIL ${failed.name}, fix: ${failed.advice}`;
}

async function main(): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), "kit-release-check-"));
  const emptyUserConfig = join(scratch, "empty-user.npmrc");
  await writeFile(emptyUserConfig, "");
  const ctx: Context = {
    scratch,
    env: baseEnvironment(scratch, emptyUserConfig),
    emptyUserConfig,
    projects: new Map(),
  };
  const reports: CaseReport[] = [];
  const attempt = async (
    name: string,
    body: () => Promise<string>,
  ): Promise<boolean> => {
    const t0 = performance.now();
    let report: CaseReport;
    if (Date.now() > DEADLINE) {
      report = { name, status: "SKIPPED", detail: "past the deadline", ms: 0 };
    } else {
      try {
        report = { name, status: "ok", detail: await body(), ms: 0 };
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        report = {
          name,
          status: error instanceof CaseSkipped ? "SKIPPED" : "FAILED",
          detail,
          ms: 0,
        };
      }
    }
    report.ms = performance.now() - t0;
    if (ctx.token !== undefined) {
      report.detail = report.detail.split(ctx.token).join("***");
    }
    reports.push(report);
    console.log(
      `${report.status}: ${report.name} (${
        seconds(report.ms)
      }): ${report.detail}`,
    );
    return report.status === "ok";
  };
  const needs = (what: unknown, setUp: string): void => {
    if (what === undefined) throw new CaseSkipped(`needs ${setUp}`);
  };
  const secrets = (): string[] => ctx.token === undefined ? [] : [ctx.token];
  const run = (
    command: string,
    args: readonly string[],
    cwd: string,
    env: Record<string, string> = ctx.env,
    timeoutMs = 180_000,
  ): Promise<Result> =>
    runCommand(command, args, {
      cwd,
      env,
      timeoutMs: Math.max(1_000, Math.min(timeoutMs, DEADLINE - Date.now())),
      secrets: secrets(),
    });
  const withToken = (
    extra: Record<string, string> = {},
  ): Record<string, string> => ({
    ...ctx.env,
    [TOKEN_VARIABLE]: ctx.token ?? "",
    ...extra,
  });
  const npmOut = join(scratch, "npm");

  try {
    await attempt(
      "tools (Verdaccio, pnpm, Bun, TypeScript 5.9 and 7)",
      async () => {
        // npm's own settings (the registry, a proxy) for the tools' install.
        const env = { ...ctx.env };
        delete env.NPM_CONFIG_USERCONFIG;
        const { tools, installed } = await installTools(TOOLS_DIR, env);
        ctx.tools = tools;
        return `${
          installed ? "installed into" : "already in"
        } ${TOOLS_DIR} (verdaccio 6.8.0, pnpm 12.21.0, bun 1.4.5, typescript 5.9.3 and 7.0.2)`;
      },
    );

    await attempt("registry (Verdaccio on loopback)", async () => {
      needs(ctx.tools, "the tools");
      const uplink = spawnSync("npm", ["config", "get", "registry"], {
        encoding: "utf8",
        timeout: 30_000,
      }).stdout?.trim() || "https://registry.npmjs.org/";
      ctx.registry = await startRegistry(
        ctx.tools!.verdaccio,
        join(scratch, "verdaccio"),
        uplink,
        ctx.env,
      );
      const anonymous = await fetch(`${ctx.registry.url}@vendor%2fkit-core`, {
        signal: AbortSignal.timeout(10_000),
      });
      await anonymous.body?.cancel();
      if (anonymous.status !== 401) {
        throw new CaseFailure(
          `an anonymous GET of @vendor/kit-core answered ${anonymous.status}, expected 401`,
        );
      }
      const password = randomBytes(18).toString("base64url");
      ctx.token = await createUser(ctx.registry.url, "kit-release", password);
      return `${ctx.registry.url}, @vendor/* for logged-in users only (anonymous GET: 401), the rest proxied to ${uplink}; user created, token issued`;
    });

    await attempt("build and publish (nine packages)", async () => {
      needs(ctx.token, "the registry");
      const t0 = performance.now();
      expectOk(
        "scripts/build_npm.ts",
        await run(
          process.execPath,
          ["run", "-A", join(ROOT, "scripts", "build_npm.ts")],
          ROOT,
          {
            ...ctx.env,
            KIT_NPM_OUT: npmOut,
            KIT_NPM_REGISTRY: ctx.registry!.url,
          },
        ),
      );
      const built = performance.now() - t0;
      const userconfig = join(scratch, "publish.npmrc");
      await writeFile(
        userconfig,
        `${ctx.registry!.authKey}:_authToken=${ctx.token}\n`,
        { mode: 0o600 },
      );
      const published: string[] = [];
      try {
        for (const info of [...PACKAGES, CREATE_PACKAGE]) {
          published.push(
            await publish(
              join(npmOut, info.dir),
              ctx.registry!.url,
              userconfig,
              ctx.env,
              secrets(),
            ),
          );
        }
      } finally {
        await rm(userconfig, { force: true });
      }
      ctx.published = true;
      return `built in ${seconds(built)}; published ${published.join(", ")}`;
    });

    // --- Installs, one project per package manager ------------------------
    const managers: {
      name: string;
      setUp: string;
      install: (dir: string) => Promise<Result>;
      runtime: () => string;
      userconfig?: () => string;
    }[] = [
      {
        name: "npm",
        setUp: "project .npmrc: scope line and ${KIT_REGISTRY_TOKEN}",
        install: (dir) =>
          run(
            "npm",
            [
              "install",
              "--no-audit",
              "--no-fund",
              "--loglevel=error",
            ],
            dir,
            withToken(),
          ),
        runtime: () => "node",
      },
      {
        name: "pnpm",
        setUp:
          "scope line in the project .npmrc, ${KIT_REGISTRY_TOKEN} line in the user's .npmrc",
        install: (dir) =>
          run(
            ctx.tools!.pnpm,
            [
              "install",
              "--store-dir",
              join(scratch, "pnpm-store"),
            ],
            dir,
            withToken({
              NPM_CONFIG_USERCONFIG: join(dir, "..", "pnpm-user.npmrc"),
            }),
          ),
        runtime: () => "node",
      },
      {
        name: "bun",
        setUp: "project .npmrc: scope line and ${KIT_REGISTRY_TOKEN}",
        install: (dir) => run(ctx.tools!.bun, ["install"], dir, withToken()),
        runtime: () => ctx.tools!.bun,
      },
    ];
    for (const manager of managers) {
      const dir = join(scratch, `${manager.name}-project`, "app");
      await attempt(`${manager.name}: install the eight packages`, async () => {
        needs(ctx.published, "the published packages");
        await writeProject(dir);
        if (manager.name === "pnpm") {
          await writeFile(join(dir, ".npmrc"), scopeLine(ctx.registry!));
          await writeFile(
            join(dir, "..", "pnpm-user.npmrc"),
            credentialLine(ctx.registry!),
          );
        } else {
          await writeFile(
            join(dir, ".npmrc"),
            scopeLine(ctx.registry!) + credentialLine(ctx.registry!),
          );
        }
        expectOk(`${manager.name} install`, await manager.install(dir));
        for (const name of NAMES) {
          if (!existsSync(join(dir, "node_modules", name, "package.json"))) {
            throw new CaseFailure(
              `${name} is not in node_modules after the install`,
            );
          }
        }
        ctx.projects.set(manager.name, dir);
        return manager.setUp;
      });
      const project = (): string => {
        const found = ctx.projects.get(manager.name);
        if (found === undefined) {
          throw new CaseSkipped(`needs the ${manager.name} install`);
        }
        return found;
      };
      for (
        const [kind, file] of [["ESM", "consumer.mjs"], [
          "CommonJS",
          "consumer.cjs",
        ]]
      ) {
        await attempt(`${manager.name}: ${kind} script`, async () => {
          const cwd = project();
          const result = await run(
            manager.runtime(),
            [file],
            cwd,
            ctx.env,
            60_000,
          );
          expectOk(
            `${manager.name === "bun" ? "bun" : "node"} ${file}`,
            result,
          );
          const line = result.output.split("\n").find((l) =>
            / ok$/.test(l.trim())
          );
          if (line === undefined) {
            throw new CaseFailure(
              `${file} did not print its result:\n${
                result.output.slice(-2000)
              }`,
            );
          }
          return `${
            manager.name === "bun" ? "bun" : "node"
          } ${file}: ${line.trim()}`;
        });
      }
      for (const [label, consumer] of Object.entries(TS_CONSUMERS)) {
        await attempt(`${manager.name}: ${label}`, async () => {
          const cwd = join(project(), consumer.folder);
          const tsc = ctx.tools![consumer.compiler];
          const compiled = await run(
            consumer.compiler === "tsc59" ? "node" : tsc,
            consumer.compiler === "tsc59" ? [tsc, "-p", "."] : ["-p", "."],
            cwd,
            ctx.env,
            120_000,
          );
          expectOk(`tsc -p ${consumer.folder}`, compiled);
          const ran = await run(
            manager.runtime(),
            [join("dist", "app.js")],
            cwd,
            ctx.env,
            60_000,
          );
          expectOk(`${consumer.folder}/dist/app.js`, ran);
          if (!ran.output.includes("consumer ok")) {
            throw new CaseFailure(
              `the compiled app did not finish:\n${ran.output.slice(-2000)}`,
            );
          }
          return `compiled and ran with ${
            manager.name === "bun" ? "bun" : "node"
          }`;
        });
      }
      if (manager.name !== "bun") {
        await attempt(
          `${manager.name}: the doctor passes the registry checks`,
          async () => {
            const cwd = project();
            // npm links the package's program into node_modules/.bin; the
            // pnpm project asks this checkout's doctor.
            const program = manager.name === "npm"
              ? join(cwd, "node_modules", ".bin", "kit-doctor")
              : undefined;
            if (program !== undefined && !existsSync(program)) {
              throw new CaseFailure(
                `${program} does not exist: the installed @vendor/kit-platform-configuration has no kit-doctor program (its package.json bin: ${
                  JSON.stringify(
                    JSON.parse(
                      await readFile(
                        join(
                          cwd,
                          "node_modules",
                          "@vendor",
                          "kit-platform-configuration",
                          "package.json",
                        ),
                        "utf8",
                      ),
                    ).bin,
                  )
                })`,
              );
            }
            const env = manager.name === "pnpm"
              ? withToken({
                NPM_CONFIG_USERCONFIG: join(cwd, "..", "pnpm-user.npmrc"),
              })
              : withToken();
            const checks = await doctor(ctx, cwd, env, program);
            const registry = checks.filter((check) =>
              check.group === "Registry"
            );
            const bad = registry.filter((check) => check.status === "fail");
            if (registry.length === 0 || bad.length > 0) {
              throw new CaseFailure(
                `expected no failing Registry check, got: ${
                  JSON.stringify(registry)
                }`,
              );
            }
            return `${
              program === undefined
                ? "deno run -A scripts/doctor.ts"
                : "node_modules/.bin/kit-doctor"
            }: ${
              registry.map((check) =>
                `${check.status.toUpperCase()} ${check.name}`
              ).join(", ")
            }`;
          },
        );
      }
    }

    // --- The failure rows --------------------------------------------------
    await attempt(
      "npm without a token: E401, the doctor fails credentials",
      async () => {
        needs(ctx.published, "the published packages");
        const dir = join(scratch, "no-token");
        await writeProject(dir);
        await writeFile(
          join(dir, ".npmrc"),
          scopeLine(ctx.registry!) + credentialLine(ctx.registry!),
        );
        const result = await run(
          "npm",
          ["install", "--no-audit", "--no-fund"],
          dir,
        );
        if (result.code === 0 || !/npm error code E401/.test(result.output)) {
          throw new CaseFailure(
            `expected npm error code E401, got exit ${result.code}:\n${
              result.output.slice(-1500)
            }`,
          );
        }
        return `npm: E401; ${
          expectDoctorFails(
            await doctor(ctx, dir, ctx.env),
            "credentials",
            new RegExp(TOKEN_VARIABLE),
          )
        }`;
      },
    );

    await attempt(
      "npm without the scope line: E404, the doctor fails scope registry",
      async () => {
        needs(ctx.published, "the published packages");
        const dir = join(scratch, "no-scope");
        await writeProject(dir);
        await writeFile(join(dir, ".npmrc"), credentialLine(ctx.registry!));
        const result = await run(
          "npm",
          ["install", "--no-audit", "--no-fund"],
          dir,
          withToken(),
        );
        if (result.code === 0 || !/npm error code E404/.test(result.output)) {
          throw new CaseFailure(
            `expected npm error code E404, got exit ${result.code}:\n${
              result.output.slice(-1500)
            }`,
          );
        }
        const asked = result.output.match(/404 Not Found - GET (\S+)/)?.[1] ??
          "the public registry";
        return `npm: E404 (GET ${asked}); ${
          expectDoctorFails(
            await doctor(ctx, dir, withToken()),
            "scope registry",
            /@vendor:registry=/,
          )
        }`;
      },
    );

    await attempt(
      "pnpm with ${KIT_REGISTRY_TOKEN} in the project .npmrc: 401, the doctor fails",
      async () => {
        const working = ctx.projects.get("pnpm");
        needs(working, "the pnpm install");
        const dir = join(scratch, "pnpm-project-token", "app");
        await writeProject(dir);
        // The project as it was committed: its lockfile, and the npm-style
        // credential line in its own .npmrc.
        await copyFile(
          join(working!, "pnpm-lock.yaml"),
          join(dir, "pnpm-lock.yaml"),
        );
        await writeFile(
          join(dir, ".npmrc"),
          scopeLine(ctx.registry!) + credentialLine(ctx.registry!),
        );
        const result = await run(
          ctx.tools!.pnpm,
          [
            "install",
            "--frozen-lockfile",
            "--store-dir",
            join(scratch, "pnpm-store-2"),
          ],
          dir,
          withToken(),
        );
        if (result.code === 0 || !/401/.test(result.output)) {
          throw new CaseFailure(
            `expected pnpm to get 401, got exit ${result.code}:\n${
              result.output.slice(-1500)
            }`,
          );
        }
        const why = result.output.split("\n").find((line) =>
          /Ignored project-level auth/.test(line)
        )?.trim();
        return `pnpm: ${
          /ERR_PNPM_FETCH_401/.test(result.output)
            ? "ERR_PNPM_FETCH_401"
            : "401"
        }${why ? ` (${why})` : ""}; ${
          expectDoctorFails(
            await doctor(ctx, dir, withToken()),
            /credentials|pnpm/,
            /\.npmrc/,
          )
        }`;
      },
    );

    await attempt(
      "TypeScript 7 with moduleResolution node: TS5108, the doctor fails",
      async () => {
        const working = ctx.projects.get("npm");
        needs(working, "the npm install");
        const dir = join(scratch, "ts7-node");
        await writeProject(dir, {
          devDependencies: { typescript: "7.0.2", "@types/node": "^20.19.0" },
        });
        await writeFile(
          join(dir, ".npmrc"),
          scopeLine(ctx.registry!) + credentialLine(ctx.registry!),
        );
        const consumer = TS_CONSUMERS["TypeScript 5.9 (commonjs, node)"];
        await writeFile(
          join(dir, "tsconfig.json"),
          JSON.stringify(
            {
              compilerOptions: {
                ...consumer.compilerOptions,
                outDir: "dist",
                types: ["node"],
              },
              files: ["ts59-node/app.ts"],
            },
            null,
            2,
          ),
        );
        // The npm project's packages, with TypeScript 7 as the project's own.
        await mkdir(join(dir, "node_modules"));
        for (const entry of await readdir(join(working!, "node_modules"))) {
          if (entry === "typescript" || entry === ".bin") continue;
          await symlink(
            join(working!, "node_modules", entry),
            join(dir, "node_modules", entry),
          );
        }
        await symlink(
          join(TOOLS_DIR, "node_modules", "typescript-7"),
          join(dir, "node_modules", "typescript"),
        );
        const compiled = await run(
          ctx.tools!.tsc7,
          ["-p", "."],
          dir,
          ctx.env,
          60_000,
        );
        if (compiled.code === 0 || !/TS5108/.test(compiled.output)) {
          throw new CaseFailure(
            `expected tsc 7 to fail with TS5108, got exit ${compiled.code}:\n${
              compiled.output.slice(-1500)
            }`,
          );
        }
        const checks = await doctor(ctx, dir, withToken());
        const resolution = checks.find((check) =>
          check.name === "moduleResolution"
        );
        if (
          resolution?.status !== "fail" ||
          !/nodenext|bundler/.test(resolution.advice ?? "")
        ) {
          throw new CaseFailure(
            `tsc 7: TS5108; the doctor should FAIL moduleResolution and advise nodenext or bundler; it said: ${
              JSON.stringify(resolution ?? null)
            }`,
          );
        }
        return `tsc 7: TS5108; doctor FAIL moduleResolution, fix: ${resolution.advice}`;
      },
    );

    // --- The generator from the registry -----------------------------------
    await attempt("npm init @vendor/kit: install and npm test", async () => {
      needs(ctx.published, "the published packages");
      const dir = join(scratch, "init");
      await mkdir(dir, { recursive: true });
      const userconfig = join(scratch, "init-user.npmrc");
      await writeFile(
        userconfig,
        scopeLine(ctx.registry!) + credentialLine(ctx.registry!),
      );
      const env = withToken({
        NPM_CONFIG_USERCONFIG: userconfig,
        npm_config_yes: "true",
      });
      const t0 = performance.now();
      expectOk(
        "npm init @vendor/kit my-service",
        await run("npm", ["init", "@vendor/kit", "my-service"], dir, env),
      );
      const generated = performance.now() - t0;
      const app = join(dir, "my-service");
      const manifest = JSON.parse(
        await readFile(join(app, "package.json"), "utf8"),
      ) as {
        dependencies?: Record<string, string>;
      };
      const version = await kitVersion();
      const kit = Object.entries(manifest.dependencies ?? {}).filter(([name]) =>
        name.startsWith("@vendor/")
      );
      if (
        kit.length === 0 || kit.some(([, range]) => range !== `^${version}`)
      ) {
        throw new CaseFailure(
          `the generated package.json should depend on Kit at ^${version}: ${
            JSON.stringify(manifest.dependencies)
          }`,
        );
      }
      expectOk(
        "npm install",
        await run(
          "npm",
          ["install", "--no-audit", "--no-fund", "--loglevel=error"],
          app,
          env,
        ),
      );
      expectOk("npm test", await run("npm", ["test"], app, env));
      return `generated in ${
        seconds(generated)
      } (Kit at ^${version}), npm install and npm test pass`;
    });

    // --- A publish the registry refuses ------------------------------------
    await attempt(
      "publish with a refused token: the error names the registry and the package",
      async () => {
        needs(ctx.published, "the published packages");
        const wrong = randomBytes(24).toString("base64url");
        const userconfig = join(scratch, "wrong.npmrc");
        await writeFile(
          userconfig,
          `${ctx.registry!.authKey}:_authToken=${wrong}\n`,
          { mode: 0o600 },
        );
        const dir = join(npmOut, PACKAGES[0].dir);
        try {
          await publish(dir, ctx.registry!.url, userconfig, ctx.env, [
            wrong,
            ...secrets(),
          ]);
        } catch (error) {
          if (!(error instanceof PublishError)) throw error;
          const message = error.message;
          if (
            !message.includes(ctx.registry!.url) ||
            !message.includes(PACKAGES[0].name) ||
            message.includes(wrong)
          ) {
            throw new CaseFailure(
              `the error should name ${ctx.registry!.url} and ${
                PACKAGES[0].name
              }, never the token: ${message}`,
            );
          }
          return message;
        }
        throw new CaseFailure(
          `the registry accepted a publish with a wrong token`,
        );
      },
    );
  } finally {
    await ctx.registry?.stop();
    killAll();
    await rm(scratch, { recursive: true, force: true });
  }

  const count = (status: CaseReport["status"]): number =>
    reports.filter((report) => report.status === status).length;
  console.log(
    `release check: ${count("ok")} passed, ${count("FAILED")} failed, ${
      count("SKIPPED")
    } skipped`,
  );
  return count("FAILED") > 0 ? 1 : 0;
}

process.exitCode = await main();
