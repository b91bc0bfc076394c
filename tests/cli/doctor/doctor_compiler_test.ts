// The doctor's compiler checks (the "Cannot find module … or its
// corresponding type declarations" failure), each over a fixture holding
// one cause: a resolver that cannot load the packages and no interop
// settings, a stale compiler cache, Kit versions that disagree (in
// node_modules, and with deno.json), a package listed but not installed.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it as nodeIt, test as nodeTest } from "node:test";
import {
  checksOf,
  doctorSkip,
  failures,
  fixture,
  runDoctor,
  runDoctorJson,
  touch,
} from "./_doctor_run.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const env = { KIT_REGISTRY_TOKEN: "npm_compilerFixtureToken12345" };

if (doctorSkip !== false) {
  test("kit doctor compiler checks", { skip: doctorSkip }, () => {});
} else {
  describe("kit doctor compiler checks", () => {
    it("fails a tsconfig.json whose module makes TypeScript use the classic resolver, without interop", async () => {
      await using project = await fixture("tsconfig-resolution");
      const run = await runDoctor([project.dir], { env });
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /FAIL {2}moduleResolution: classic \(not set; module esnext makes TypeScript use classic\) in .*tsconfig\.json/,
      );
      assert.match(
        run.stdout,
        /fix: set "moduleResolution" to "node" \(with "module": "commonjs"\), "node16", "nodenext" or "bundler"/,
      );
      assert.match(run.stdout, /FAIL {2}esModuleInterop: not set/);
      assert.match(run.stdout, /fix: set "esModuleInterop": true in /);
      assert.match(run.stdout, /FAIL {2}allowSyntheticDefaultImports: not set/);
      const { report } = await runDoctorJson([project.dir], { env });
      assert.deepEqual(
        checksOf(report, "Compiler", "fail").map((check) => check.name),
        ["moduleResolution", "esModuleInterop", "allowSyntheticDefaultImports"],
      );
      assert.deepEqual(failures(report), [
        "Compiler/moduleResolution",
        "Compiler/esModuleInterop",
        "Compiler/allowSyntheticDefaultImports",
      ]);
    });

    it("derives the resolver as TypeScript does when neither moduleResolution nor module is set (the target decides)", async () => {
      await using project = await fixture("healthy");
      const tsconfig = join(project.dir, "tsconfig.json");
      const resolutionOf = async (
        compilerOptions: Record<string, unknown>,
      ): Promise<{ status: string; message: string }> => {
        await writeFile(
          tsconfig,
          JSON.stringify({
            compilerOptions: { esModuleInterop: true, ...compilerOptions },
          }),
        );
        const { report } = await runDoctorJson([project.dir], { env });
        return checksOf(report, "Compiler").find((check) =>
          check.name === "moduleResolution"
        )!;
      };
      // target ES2015 or later without module: ES2015 modules, classic.
      const modern = await resolutionOf({ target: "ES2020" });
      assert.equal(modern.status, "fail");
      assert.match(
        modern.message,
        /^classic \(not set; module not set, target es2020 makes TypeScript use classic\)/,
      );
      // module none: classic as well.
      const none = await resolutionOf({ module: "none" });
      assert.equal(none.status, "fail");
      assert.match(none.message, /^classic \(not set; module none makes/);
      // Neither set: an ES5 target, CommonJS, node10.
      const bare = await resolutionOf({});
      assert.equal(bare.status, "pass");
      assert.match(
        bare.message,
        /^node10 \(not set; module not set, target not set/,
      );
    });

    it("passes the settings of a common Node.js tsconfig.json (comments allowed)", async () => {
      await using project = await fixture("healthy");
      const { code, report } = await runDoctorJson([project.dir], { env });
      assert.equal(code, 0);
      const byName = new Map(
        checksOf(report, "Compiler").map((check) => [check.name, check]),
      );
      assert.equal(byName.get("moduleResolution")?.status, "pass");
      assert.equal(byName.get("esModuleInterop")?.status, "pass");
      assert.equal(byName.get("allowSyntheticDefaultImports")?.status, "pass");
      assert.equal(
        byName.get("compiler cache")?.message,
        "no *.tsbuildinfo files",
      );
    });

    it("fails a *.tsbuildinfo written by another TypeScript version", async () => {
      await using project = await fixture("stale-buildinfo");
      const { code, report } = await runDoctorJson([project.dir], { env });
      assert.equal(code, 1);
      assert.deepEqual(failures(report), ["Compiler/compiler cache"]);
      const [cache] = checksOf(report, "Compiler", "fail");
      assert.equal(cache.name, "compiler cache");
      assert.match(
        cache.message,
        /tsconfig\.tsbuildinfo is stale: written by TypeScript 5\.4\.5, but 5\.9\.3 is installed/,
      );
      assert.match(
        cache.advice!,
        /delete tsconfig\.tsbuildinfo .*restart the editor's TypeScript server/,
      );
    });

    it("fails a *.tsbuildinfo older than the Kit packages installed since", async () => {
      await using project = await fixture("healthy");
      const info = join(project.dir, "dist", "app.tsbuildinfo");
      await mkdir(join(project.dir, "dist"));
      await writeFile(info, '{"version":"5.9.3"}');
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      await touch(info, hourAgo - 60);
      await touch(join(project.dir, "tsconfig.json"), hourAgo - 120);
      const { report } = await runDoctorJson([project.dir], { env });
      const [cache] = checksOf(report, "Compiler", "fail");
      assert.match(
        cache.message,
        /dist\/app\.tsbuildinfo is stale: older than the installed @vendor\/kit-core@0\.0\.1, @vendor\/kit-platform-configuration@0\.0\.1/,
      );
    });

    it("fails when two Kit versions are installed side by side", async () => {
      await using project = await fixture("versions-disagree");
      const { code, report } = await runDoctorJson([project.dir], { env });
      assert.equal(code, 1);
      assert.deepEqual(failures(report), ["Compiler/Kit versions agree"]);
      const [versions] = checksOf(report, "Compiler", "fail");
      assert.match(
        versions.details!.join("\n"),
        /installed versions differ: @vendor\/kit-core@0\.0\.1 \(node_modules\/@vendor\/kit-core\), @vendor\/kit-platform-configuration@0\.0\.1 .*@vendor\/kit-core@0\.0\.2 \(node_modules\/@vendor\/kit-platform-configuration\/node_modules\/@vendor\/kit-core\)/,
      );
      assert.match(versions.advice!, /same version .*npm ls @vendor\/kit-core/);
    });

    it("fails when package.json lists a Kit package node_modules lacks", async () => {
      await using project = await fixture("not-installed");
      const run = await runDoctor([project.dir], { env });
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /FAIL {2}Kit packages installed: package\.json lists @vendor\/kit-platform-configuration, but it is not in node_modules: TypeScript reports "Cannot find module … or its corresponding type declarations"/,
      );
      assert.match(run.stdout, /fix: run `npm install`/);
      const { report } = await runDoctorJson([project.dir], { env });
      assert.deepEqual(failures(report), ["Compiler/Kit packages installed"]);
    });

    it("fails when deno.json asks for other Kit versions than node_modules holds", async () => {
      await using project = await fixture("deno-versions");
      const { code, report } = await runDoctorJson([project.dir], { env });
      assert.equal(code, 1);
      assert.deepEqual(failures(report), ["Compiler/Kit versions agree"]);
      const [versions] = checksOf(report, "Compiler", "fail");
      assert.match(
        versions.details!.join("\n"),
        /deno\.json imports "@vendor\/kit-core" as npm:@vendor\/kit-core@\^0\.0\.2, but node_modules holds @vendor\/kit-core@0\.0\.1/,
      );
      assert.equal(
        checksOf(report, "Compiler").find((check) =>
          check.name === "tsconfig.json"
        )?.status,
        "skip",
      );
    });
  });
}
