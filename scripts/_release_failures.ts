// The failure rows of the release check (scripts/release_check.ts): what a
// user sees without a token, without the scope line, with pnpm and the
// credential line in the project's .npmrc, and with TypeScript 7 and
// moduleResolution node, each with the doctor's verdict; then the generator
// from the registry, and a publish the registry refuses.
import { randomBytes } from "node:crypto";
import {
  copyFile,
  mkdir,
  readdir,
  readFile,
  symlink,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { PACKAGES } from "./_packages.ts";
import {
  CaseFailure,
  type Check,
  credentialLine,
  doctor,
  expectDoctorFails,
  expectOk,
  kitVersion,
  scopeLine,
  seconds,
  TOKEN_VARIABLE,
} from "./_release_check_support.ts";
import { TS_CONSUMERS, writeProject } from "./_release_projects.ts";
import { publish, PublishError } from "./_release_registry.ts";

/**
 * Runs the failure rows, the generator case and the refused publish.
 *
 * @param check The check.
 * @param toolsDir The tools folder (TypeScript 7 is linked from there).
 * @returns When all have run.
 */
export async function failureCases(
  check: Check,
  toolsDir: string,
): Promise<void> {
  const ctx = check.ctx;
  // --- The failure rows --------------------------------------------------
  await check.attempt(
    "npm without a token: E401, the doctor fails credentials",
    async () => {
      check.needs(ctx.published, "the published packages");
      const dir = join(ctx.scratch, "no-token");
      await writeProject(dir);
      await writeFile(
        join(dir, ".npmrc"),
        scopeLine(ctx.registry!) + credentialLine(ctx.registry!),
      );
      const result = await check.run(
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
          await doctor(check, dir, ctx.env),
          "credentials",
          new RegExp(TOKEN_VARIABLE),
        )
      }`;
    },
  );

  await check.attempt(
    "npm without the scope line: E404, the doctor fails scope registry",
    async () => {
      check.needs(ctx.published, "the published packages");
      const dir = join(ctx.scratch, "no-scope");
      await writeProject(dir);
      await writeFile(join(dir, ".npmrc"), credentialLine(ctx.registry!));
      const result = await check.run(
        "npm",
        ["install", "--no-audit", "--no-fund"],
        dir,
        check.withToken(),
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
          await doctor(check, dir, check.withToken()),
          "scope registry",
          /@vendor:registry=/,
        )
      }`;
    },
  );

  await check.attempt(
    "pnpm with ${KIT_REGISTRY_TOKEN} in the project .npmrc: 401, the doctor fails",
    async () => {
      const working = ctx.projects.get("pnpm");
      check.needs(working, "the pnpm install");
      const dir = join(ctx.scratch, "pnpm-project-token", "app");
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
      const result = await check.run(
        ctx.tools!.pnpm,
        [
          "install",
          "--frozen-lockfile",
          "--store-dir",
          join(ctx.scratch, "pnpm-store-2"),
        ],
        dir,
        check.withToken(),
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
        /ERR_PNPM_FETCH_401/.test(result.output) ? "ERR_PNPM_FETCH_401" : "401"
      }${why ? ` (${why})` : ""}; ${
        expectDoctorFails(
          await doctor(check, dir, check.withToken()),
          /credentials|pnpm/,
          /\.npmrc/,
        )
      }`;
    },
  );

  await check.attempt(
    "TypeScript 7 with moduleResolution node: TS5108, the doctor fails",
    async () => {
      const working = ctx.projects.get("npm");
      check.needs(working, "the npm install");
      const dir = join(ctx.scratch, "ts7-node");
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
        join(toolsDir, "node_modules", "typescript-7"),
        join(dir, "node_modules", "typescript"),
      );
      const compiled = await check.run(
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
      const checks = await doctor(check, dir, check.withToken());
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
  await check.attempt(
    "npm init @vendor/kit: install and npm test",
    async () => {
      check.needs(ctx.published, "the published packages");
      const dir = join(ctx.scratch, "init");
      await mkdir(dir, { recursive: true });
      const userconfig = join(ctx.scratch, "init-user.npmrc");
      await writeFile(
        userconfig,
        scopeLine(ctx.registry!) + credentialLine(ctx.registry!),
      );
      const env = check.withToken({
        NPM_CONFIG_USERCONFIG: userconfig,
        npm_config_yes: "true",
      });
      const t0 = performance.now();
      expectOk(
        "npm init @vendor/kit my-service",
        await check.run("npm", ["init", "@vendor/kit", "my-service"], dir, env),
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
        await check.run(
          "npm",
          ["install", "--no-audit", "--no-fund", "--loglevel=error"],
          app,
          env,
        ),
      );
      expectOk("npm test", await check.run("npm", ["test"], app, env));
      return `generated in ${
        seconds(generated)
      } (Kit at ^${version}), npm install and npm test pass`;
    },
  );

  // --- A publish the registry refuses ------------------------------------
  await check.attempt(
    "publish with a refused token: the error names the registry and the package",
    async () => {
      check.needs(ctx.published, "the published packages");
      const wrong = randomBytes(24).toString("base64url");
      const userconfig = join(ctx.scratch, "wrong.npmrc");
      await writeFile(
        userconfig,
        `${ctx.registry!.authKey}:_authToken=${wrong}\n`,
        { mode: 0o600 },
      );
      const dir = join(ctx.npmOut, PACKAGES[0].dir);
      try {
        await publish(dir, ctx.registry!.url, userconfig, ctx.env, [
          wrong,
          ...check.secrets(),
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
}
