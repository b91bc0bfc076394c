// `kit doctor` as a command: usage and exit codes, the readable report and
// its summary line, colour only on a terminal and never with NO_COLOR,
// `--json`, `--report`, and no secret in any output. Runs the real command
// (deno run scripts/doctor.ts, or the npm bin in the npm passes).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it as nodeIt, test as nodeTest } from "node:test";
import {
  checksOf,
  doctorSkip,
  fixture,
  lineOf,
  runDoctor,
  runDoctorJson,
} from "./_doctor_run.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const TOKEN = "npm_fixtureTokenValue1234567890";
const ESC = "\x1b[";

if (doctorSkip !== false) {
  test("kit doctor command line", { skip: doctorSkip }, () => {});
} else {
  describe("kit doctor command line", () => {
    it("exits 2 with the usage for an unknown option", async () => {
      const run = await runDoctor(["--frobnicate"]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /unknown option --frobnicate/);
      assert.match(run.stderr, /Usage: kit-doctor/);
      assert.equal(run.stdout, "");
    });

    it("exits 2 for a missing option value, a bad timeout and two folders", async () => {
      const missing = await runDoctor(["--prefix"]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--prefix needs a value/);
      const timeout = await runDoctor(["--timeout", "soon"]);
      assert.equal(timeout.code, 2);
      assert.match(timeout.stderr, /--timeout must be a whole number/);
      const two = await runDoctor(["a", "b"]);
      assert.equal(two.code, 2);
      assert.match(two.stderr, /one folder at a time/);
    });

    it("exits 2 when the folder does not exist", async () => {
      const run = await runDoctor(["/nonexistent/kit-doctor-folder"]);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /\/nonexistent\/kit-doctor-folder is not a folder/,
      );
    });

    it("prints the usage and exits 0 for --help", async () => {
      const run = await runDoctor(["--help"]);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /--connect/);
      assert.match(run.stdout, /Exit code: 0 when no check fails/);
    });

    it("shows the install-free way to run it, never the unscoped npx kit-doctor", async () => {
      const run = await runDoctor(["--help"]);
      assert.match(
        run.stdout,
        /npx -p @vendor\/kit-platform-configuration kit-doctor \[options\] \[folder\]/,
      );
      // `npx kit-doctor` outside a project that has the package installed
      // asks the public registry for an unscoped package anyone could take.
      assert.doesNotMatch(run.stdout, /npx kit-doctor/);
    });

    it("exits 0 on a healthy project, with every group and a summary line", async () => {
      await using project = await fixture("healthy");
      const run = await runDoctor([project.dir], {
        env: { KIT_REGISTRY_TOKEN: TOKEN },
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      for (
        const group of ["Registry", "Compiler", "Configuration", "Services"]
      ) {
        assert.match(run.stdout, new RegExp(`^${group}$`, "m"));
      }
      assert.match(
        run.stdout,
        /PASS {2}scope registry: @vendor:registry=https:\/\/registry\.example\.test\/npm\//,
      );
      assert.match(
        run.stdout,
        /PASS {2}credentials: a token for \/\/registry\.example\.test\/npm\/ is set .*; not shown/,
      );
      assert.match(run.stdout, /PASS {2}moduleResolution: node in /);
      assert.match(
        run.stdout,
        /PASS {2}Kit versions agree: @vendor\/kit-core@0\.0\.1, @vendor\/kit-platform-configuration@0\.0\.1/,
      );
      assert.match(
        run.stdout,
        /SKIP {2}services: not contacted; run with --connect/,
      );
      assert.match(
        run.stdout.trimEnd().split("\n").at(-1)!,
        /^\d+ passed, 0 failed(, \d+ skipped)?$/,
      );
    });

    it("checks the working directory when no folder is given", async () => {
      await using project = await fixture("healthy");
      const run = await runDoctor([], {
        cwd: project.dir,
        env: { KIT_REGISTRY_TOKEN: TOKEN },
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /^kit doctor: .*healthy$/m);
    });

    it("resolves the folder against INIT_CWD, where deno task and npm scripts were started", async () => {
      await using project = await fixture("healthy");
      const run = await runDoctor(["."], {
        env: { KIT_REGISTRY_TOKEN: TOKEN, INIT_CWD: project.dir },
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /^kit doctor: .*healthy$/m);
    });

    it("never prints the token, the database password or a Redis password", async () => {
      await using project = await fixture("healthy");
      const secret = "redis-fixture-secret-42";
      const run = await runDoctor([
        project.dir,
        "--report",
        "--connect",
        "--timeout",
        "500",
      ], {
        env: {
          KIT_REGISTRY_TOKEN: TOKEN,
          REDIS_HOST: "127.0.0.1",
          REDIS_PORT: "9",
          REDIS_PASSWORD: secret,
        },
      });
      const json = await runDoctorJson([
        project.dir,
        "--connect",
        "--timeout",
        "500",
      ], {
        env: {
          KIT_REGISTRY_TOKEN: TOKEN,
          REDIS_HOST: "127.0.0.1",
          REDIS_PORT: "9",
          REDIS_PASSWORD: secret,
        },
      });
      for (
        const output of [run.stdout, run.stderr, JSON.stringify(json.report)]
      ) {
        assert.ok(!output.includes(TOKEN), "token printed");
        assert.ok(!output.includes(secret), "Redis password printed");
        assert.ok(
          !output.includes("fixture-db-password"),
          "database password printed",
        );
      }
      assert.match(run.stdout, /Redis: 127\.0\.0\.1:9 .*did not answer/);
    });

    it("prints no colour when piped", async () => {
      await using project = await fixture("registry-no-scope");
      const run = await runDoctor([project.dir]);
      assert.equal(run.code, 1);
      assert.ok(!run.stdout.includes(ESC), "escape codes in piped output");
    });

    const ttySkip = existsSync("/usr/bin/script") || existsSync("/bin/script")
      ? false
      : "util-linux's script (a pseudo-terminal) is not installed";
    it("colours the report on a terminal, and not with NO_COLOR", {
      skip: ttySkip,
    }, async () => {
      await using project = await fixture("registry-no-scope");
      const coloured = await runDoctor([project.dir], { tty: true });
      assert.equal(coloured.code, 1, coloured.stdout);
      assert.ok(
        coloured.stdout.includes(`${ESC}31mFAIL${ESC}39m`),
        coloured.stdout,
      );
      const plain = await runDoctor([project.dir], {
        tty: true,
        env: { NO_COLOR: "1" },
      });
      assert.equal(plain.code, 1);
      assert.match(plain.stdout, /FAIL {2}scope registry/);
      assert.ok(!plain.stdout.includes(ESC), "escape codes despite NO_COLOR");
    });

    it("prints JSON with --json: checks, summary and ok", async () => {
      await using project = await fixture("registry-no-scope");
      const { code, report } = await runDoctorJson([project.dir]);
      assert.equal(code, 1);
      assert.equal(report.ok, false);
      assert.equal(
        report.summary.fail,
        checksOf(report, "Registry", "fail").length +
          report.checks.filter((c) =>
            c.group !== "Registry" && c.status === "fail"
          ).length,
      );
      const [scope] = checksOf(report, "Registry", "fail");
      assert.equal(scope.name, "scope registry");
      assert.match(scope.advice!, /@vendor:registry=<registry-url>/);
    });

    it("prints a paste-ready bug report with --report", async () => {
      await using project = await fixture("healthy");
      const run = await runDoctor([project.dir, "--report"], {
        env: { KIT_REGISTRY_TOKEN: TOKEN },
      });
      assert.equal(run.code, 0, run.stdout);
      const block = /```text\n([\s\S]*?)\n```/.exec(run.stdout)?.[1];
      assert.ok(block !== undefined, run.stdout);
      assert.match(
        lineOf(block, /^Runtime:/),
        /^Runtime: +(Deno |Node\.js v|Bun )\d+\.\d+/,
      );
      assert.match(lineOf(block, /^TypeScript:/), /5\.9\.3 \(node_modules\)/);
      assert.match(
        lineOf(block, /^Kit packages:/),
        /@vendor\/kit-core@0\.0\.1, @vendor\/kit-platform-configuration@0\.0\.1/,
      );
      assert.match(
        lineOf(block, /^Operating system:/),
        /\((linux|darwin|win32) /,
      );
      const json = await runDoctorJson([project.dir, "--report"], {
        env: { KIT_REGISTRY_TOKEN: TOKEN },
      });
      assert.equal(
        json.report.report?.["Kit packages"],
        "@vendor/kit-core@0.0.1, @vendor/kit-platform-configuration@0.0.1",
      );
    });
  });
}
