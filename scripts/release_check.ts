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
 *    the Bun project runs everything with Bun; and the `kit-doctor` the
 *    install linked into `node_modules/.bin` must pass its registry checks;
 * 5. the failure rows: no token (npm: `E401`), no scope line (npm: `E404`
 *    from the public registry), pnpm with the credential line in the
 *    project's `.npmrc` (pnpm: 401, the line ignored), TypeScript 7 with
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
 * Run: `deno run -A --config deno.dev.json scripts/release_check.ts`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { CREATE_PACKAGE, PACKAGES } from "./_packages.ts";
import {
  baseEnvironment,
  CaseFailure,
  Check,
  type Context,
  expectOk,
  ROOT,
  seconds,
} from "./_release_check_support.ts";
import { failureCases } from "./_release_failures.ts";
import { installCases } from "./_release_installs.ts";
import {
  createUser,
  installTools,
  killAll,
  publish,
  startRegistry,
} from "./_release_registry.ts";

const TOOLS_DIR = join(ROOT, ".ci", ".tools", "release");
/** The whole check's deadline. */
const DEADLINE = Date.now() + 10 * 60_000;

async function main(): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), "kit-release-check-"));
  const emptyUserConfig = join(scratch, "empty-user.npmrc");
  await writeFile(emptyUserConfig, "");
  const ctx: Context = {
    scratch,
    env: baseEnvironment(scratch, emptyUserConfig),
    npmOut: join(scratch, "npm"),
    projects: new Map(),
  };
  const check = new Check(ctx, DEADLINE);
  try {
    await check.attempt(
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

    await check.attempt("registry (Verdaccio on loopback)", async () => {
      check.needs(ctx.tools, "the tools");
      const uplink = spawnSync("npm", ["config", "get", "registry"], {
        encoding: "utf8",
        timeout: 30_000,
      }).stdout?.trim() || "https://registry.npmjs.org/";
      ctx.registry = await startRegistry(
        ctx.tools!.verdaccio,
        join(ctx.scratch, "verdaccio"),
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

    await check.attempt("build and publish (nine packages)", async () => {
      check.needs(ctx.token, "the registry");
      const t0 = performance.now();
      expectOk(
        "scripts/build_npm.ts",
        await check.run(
          process.execPath,
          [
            "run",
            "-A",
            "--config",
            join(ROOT, "deno.dev.json"),
            join(ROOT, "scripts", "build_npm.ts"),
          ],
          ROOT,
          {
            ...ctx.env,
            KIT_NPM_OUT: ctx.npmOut,
            KIT_NPM_REGISTRY: ctx.registry!.url,
          },
        ),
      );
      const built = performance.now() - t0;
      const userconfig = join(ctx.scratch, "publish.npmrc");
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
              join(ctx.npmOut, info.dir),
              ctx.registry!.url,
              userconfig,
              ctx.env,
              check.secrets(),
            ),
          );
        }
      } finally {
        await rm(userconfig, { force: true });
      }
      ctx.published = true;
      return `built in ${seconds(built)}; published ${published.join(", ")}`;
    });

    await installCases(check);
    await failureCases(check, TOOLS_DIR);
  } finally {
    await ctx.registry?.stop();
    killAll();
    await rm(scratch, { recursive: true, force: true });
  }
  return check.summary();
}

process.exitCode = await main();
