// The doctor's configuration checks (the "Configuration value not found"
// and "environment variables ignored" failures), each over a fixture
// holding one cause: no base file, a malformed file (file, line, column),
// values both validators refuse (with each value's source), misnamed
// variables, and which variable chose the environment file.
import assert from "node:assert/strict";
import { describe, it as nodeIt, test as nodeTest } from "node:test";
import {
  checksOf,
  doctorSkip,
  failures,
  fixture,
  runDoctor,
  runDoctorJson,
} from "./_doctor_run.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

if (doctorSkip !== false) {
  test("kit doctor configuration checks", { skip: doctorSkip }, () => {});
} else {
  describe("kit doctor configuration checks", () => {
    it("fails when appsettings.json is not in the folder, and follows KIT_CONFIG_PATH", async () => {
      await using project = await fixture("missing-base-file");
      const run = await runDoctor([project.dir]);
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /FAIL {2}base file: .*missing-base-file\/appsettings\.json does not exist: every getValue\(\) of a key without a default throws "Configuration value not found: <key>"/,
      );
      assert.match(
        run.stdout,
        /fix: create appsettings\.json in the application root \(paths are relative to it, not to the source file\)/,
      );
      const { report } = await runDoctorJson([project.dir]);
      assert.deepEqual(failures(report), ["Configuration/base file"]);
      const moved = await runDoctorJson([project.dir], {
        env: { KIT_CONFIG_PATH: "config" },
      });
      const [base] = checksOf(moved.report, "Configuration");
      assert.equal(base.status, "pass");
      assert.match(
        base.message,
        /config\/appsettings\.json \(KIT_CONFIG_PATH=config\)$/,
      );
      assert.equal(moved.code, 0, JSON.stringify(moved.report, null, 2));
    });

    it("names the file, line and column of a malformed file", async () => {
      await using project = await fixture("malformed-json");
      const { code, report } = await runDoctorJson([project.dir]);
      assert.equal(code, 1);
      assert.deepEqual(failures(report), ["Configuration/files parse"]);
      const [parse] = checksOf(report, "Configuration", "fail");
      assert.equal(parse.name, "files parse");
      assert.match(
        parse.message,
        /malformed-json\/appsettings\.json:4:32: .*expected ',' or '\}' after a property value/,
      );
      assert.match(parse.advice!, /fix the file at that line and column/);
    });

    it("lists both validators' failures with the source of each bad value", async () => {
      await using project = await fixture("invalid-values");
      const { code, report } = await runDoctorJson([project.dir], {
        env: {
          APP_API__TIMEOUT: "90000",
          APP_LOCALIZATION__SUPPORTED_CULTURES: "en-US,en_GB",
        },
      });
      assert.equal(code, 1);
      assert.deepEqual(failures(report), [
        "Configuration/start-up rules",
        "Configuration/schema (appConfigSchema)",
      ]);
      const [startup, schema] = checksOf(report, "Configuration", "fail");
      assert.equal(startup.name, "start-up rules");
      assert.deepEqual(startup.details, [
        "Invalid log level: verbose (allowed: debug, info, warning, error; from appsettings.json)",
        "API timeout must be between 1000 and 60000ms: 90000 (from env APP_API__TIMEOUT)",
      ]);
      assert.equal(schema.name, "schema (appConfigSchema)");
      const lines = schema.details!.join("\n");
      assert.match(
        lines,
        /database:timeout: must be at least 1000 \(from appsettings\.json\)/,
      );
      assert.match(
        lines,
        /api:timeout: must be at most 60000 \(from env APP_API__TIMEOUT\)/,
      );
      assert.match(
        lines,
        /Invalid log level: verbose .*from appsettings\.json/,
      );
      // A list of cultures, its bad entry named with its position.
      assert.match(
        lines,
        /localization:supportedCultures:1: must be a BCP 47 culture name such as "en" or "fr-CA", got "en_GB" \(from env APP_LOCALIZATION__SUPPORTED_CULTURES\)/,
      );
    });

    it("reports a single underscore and an unknown key among the prefixed variables", async () => {
      await using project = await fixture("env-naming");
      const run = await runDoctor([project.dir], {
        env: {
          APP_DATABASE_CONNECTION_STRING: "postgres://app:env-secret-pw@db/app",
          APP_FEATURES__ENABLE_ANALYTIX: "true",
        },
      });
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /FAIL {2}APP_DATABASE_CONNECTION_STRING: .*did you mean APP_DATABASE__CONNECTION_STRING \(database:connectionString\)\?/,
      );
      assert.match(
        run.stdout,
        /fix: rename APP_DATABASE_CONNECTION_STRING to APP_DATABASE__CONNECTION_STRING/,
      );
      assert.match(
        run.stdout,
        /FAIL {2}APP_FEATURES__ENABLE_ANALYTIX: APP_FEATURES__ENABLE_ANALYTIX carries the prefix APP but maps to "features:enableAnalytix", which no source or schema knows/,
      );
      assert.ok(!run.stdout.includes("env-secret-pw"));
    });

    it("warns about variables under another prefix or none, which the application ignores", async () => {
      await using project = await fixture("env-naming");
      const { code, report } = await runDoctorJson([project.dir], {
        env: {
          SHOP_DATABASE__TIMEOUT: "5000",
          DATABASE__POOL_SIZE: "3",
          UNRELATED__SETTING: "1",
        },
      });
      assert.equal(code, 0);
      const warnings = checksOf(report, "Configuration", "warn");
      assert.deepEqual(warnings.map((check) => check.name), [
        "DATABASE__POOL_SIZE",
        "SHOP_DATABASE__TIMEOUT",
      ]);
      assert.match(
        warnings[0].message,
        /looks like database:poolSize without a prefix, but the application reads APP_… variables, so it is ignored/,
      );
      assert.equal(warnings[0].advice, "rename it to APP_DATABASE__POOL_SIZE");
      assert.match(
        warnings[1].advice!,
        /rename it to APP_DATABASE__TIMEOUT, or run the doctor with --prefix SHOP/,
      );
      assert.equal(
        checksOf(report, "Configuration").some((check) =>
          check.name === "environment variables"
        ),
        false,
      );
    });

    it("follows --prefix for the application's variables", async () => {
      await using project = await fixture("env-naming");
      const { report } = await runDoctorJson(
        [project.dir, "--prefix", "SHOP"],
        {
          env: { SHOP_API_BASE_URL: "http://127.0.0.1:9/api" },
        },
      );
      const [finding] = checksOf(report, "Configuration", "fail");
      assert.equal(finding.name, "SHOP_API_BASE_URL");
      assert.match(
        finding.advice!,
        /rename SHOP_API_BASE_URL to SHOP_API__BASE_URL/,
      );
    });

    it("names the variable that chose the environment file, and warns when that file is missing", async () => {
      await using project = await fixture("env-naming");
      const chosen = await runDoctorJson([project.dir], {
        env: { RUNTIME_ENV: "production" },
      });
      assert.equal(chosen.code, 0, JSON.stringify(chosen.report, null, 2));
      const environment = checksOf(chosen.report, "Configuration").find((
        check,
      ) => check.name === "environment");
      assert.match(
        environment!.message,
        /^"production", chosen by RUNTIME_ENV=production: overrides come from .*env-naming\/appsettings\.production\.json$/,
      );
      const missing = await runDoctorJson([project.dir], {
        env: { NODE_ENV: "staging" },
      });
      assert.equal(missing.code, 0);
      const [warning] = checksOf(missing.report, "Configuration", "warn");
      assert.equal(warning.name, "environment file");
      assert.match(
        warning.message,
        /"staging" \(chosen by NODE_ENV\).*appsettings\.staging\.json does not exist/,
      );
      assert.match(warning.advice!, /create appsettings\.staging\.json/);
      assert.equal(missing.report.summary.warn, 1);
    });

    it("passes a folder whose configuration is complete", async () => {
      await using project = await fixture("env-naming");
      const run = await runDoctor([project.dir, "--environment", "production"]);
      assert.equal(run.code, 0, run.stdout);
      assert.match(
        run.stdout,
        /PASS {2}environment: "production", chosen by the environment option/,
      );
      assert.match(run.stdout, /PASS {2}start-up rules: /);
      assert.match(run.stdout, /PASS {2}schema \(appConfigSchema\): /);
      assert.match(
        run.stdout,
        /PASS {2}environment variables: no prefix, underscore or unknown-key mistakes/,
      );
    });
  });
}
