// The install cases of the release check (scripts/release_check.ts): per
// package manager, a fresh project set up as docs/npm_packages.md says for
// that tool installs the eight packages from the private registry, then runs
// an ES-module script, a CommonJS script and the TypeScript consumers, and
// the doctor must pass its registry checks there.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  CaseFailure,
  CaseSkipped,
  type Check,
  credentialLine,
  doctor,
  expectOk,
  scopeLine,
} from "./_release_check_support.ts";
import { NAMES, TS_CONSUMERS, writeProject } from "./_release_projects.ts";
import type { Result } from "./_release_registry.ts";

/**
 * Runs the install cases for npm, pnpm and Bun; a project that installed is
 * recorded in `check.ctx.projects` for the failure rows.
 *
 * @param check The check.
 * @returns When all have run.
 */
export async function installCases(check: Check): Promise<void> {
  const ctx = check.ctx;
  const managers: {
    name: string;
    setUp: string;
    install: (dir: string) => Promise<Result>;
    runtime: () => string;
  }[] = [
    {
      name: "npm",
      setUp: "project .npmrc: scope line and ${KIT_REGISTRY_TOKEN}",
      install: (dir) =>
        check.run(
          "npm",
          [
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
          ],
          dir,
          check.withToken(),
        ),
      runtime: () => "node",
    },
    {
      name: "pnpm",
      setUp:
        "scope line in the project .npmrc, ${KIT_REGISTRY_TOKEN} line in the user's .npmrc",
      install: (dir) =>
        check.run(
          ctx.tools!.pnpm,
          [
            "install",
            "--store-dir",
            join(ctx.scratch, "pnpm-store"),
          ],
          dir,
          check.withToken({
            NPM_CONFIG_USERCONFIG: join(dir, "..", "pnpm-user.npmrc"),
          }),
        ),
      runtime: () => "node",
    },
    {
      name: "bun",
      setUp: "project .npmrc: scope line and ${KIT_REGISTRY_TOKEN}",
      install: (dir) =>
        check.run(ctx.tools!.bun, ["install"], dir, check.withToken()),
      runtime: () => ctx.tools!.bun,
    },
  ];
  for (const manager of managers) {
    const dir = join(ctx.scratch, `${manager.name}-project`, "app");
    await check.attempt(
      `${manager.name}: install the eight packages`,
      async () => {
        check.needs(ctx.published, "the published packages");
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
      },
    );
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
      await check.attempt(`${manager.name}: ${kind} script`, async () => {
        const cwd = project();
        const result = await check.run(
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
            `${file} did not print its result:\n${result.output.slice(-2000)}`,
          );
        }
        return `${
          manager.name === "bun" ? "bun" : "node"
        } ${file}: ${line.trim()}`;
      });
    }
    for (const [label, consumer] of Object.entries(TS_CONSUMERS)) {
      await check.attempt(`${manager.name}: ${label}`, async () => {
        const cwd = join(project(), consumer.folder);
        const tsc = ctx.tools![consumer.compiler];
        const compiled = await check.run(
          consumer.compiler === "tsc59" ? "node" : tsc,
          consumer.compiler === "tsc59" ? [tsc, "-p", "."] : ["-p", "."],
          cwd,
          ctx.env,
          120_000,
        );
        expectOk(`tsc -p ${consumer.folder}`, compiled);
        const ran = await check.run(
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
    await check.attempt(
      `${manager.name}: the installed kit-doctor passes the registry checks`,
      async () => {
        const cwd = project();
        // The program the package manager linked into node_modules/.bin,
        // run the way that tool's users run it (Bun: with Bun).
        const bin = join(cwd, "node_modules", ".bin", "kit-doctor");
        if (!existsSync(bin)) {
          throw new CaseFailure(
            `${bin} does not exist: the installed @vendor/kit-platform-configuration declares no kit-doctor program (its package.json bin: ${
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
        const program = manager.name === "bun" ? [ctx.tools!.bun, bin] : [bin];
        const env = manager.name === "pnpm"
          ? check.withToken({
            NPM_CONFIG_USERCONFIG: join(cwd, "..", "pnpm-user.npmrc"),
          })
          : check.withToken();
        const checks = await doctor(check, cwd, env, program);
        const registry = checks.filter((check) => check.group === "Registry");
        const bad = registry.filter((check) => check.status === "fail");
        if (registry.length === 0 || bad.length > 0) {
          throw new CaseFailure(
            `expected no failing Registry check, got: ${
              JSON.stringify(registry)
            }`,
          );
        }
        return `${
          manager.name === "bun" ? "bun " : ""
        }node_modules/.bin/kit-doctor: ${
          registry.map((check) => `${check.status.toUpperCase()} ${check.name}`)
            .join(", ")
        }`;
      },
    );
  }
}
