// The doctor's registry checks, each over a fixture holding one install
// failure: no registry for the @vendor scope (404 Not Found), no credentials
// (401 Unauthorized), a token variable that is not set; and with --connect,
// what a loopback registry answers to the token.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it as nodeIt, test as nodeTest } from "node:test";
import { startTestServer } from "../../_support/http_server.ts";
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

const TOKEN = "npm_registryFixtureToken987654321";

if (doctorSkip !== false) {
  test("kit doctor registry checks", { skip: doctorSkip }, () => {});
} else {
  describe("kit doctor registry checks", () => {
    it("fails when no .npmrc maps the @vendor scope (404 Not Found)", async () => {
      await using project = await fixture("registry-no-scope");
      const run = await runDoctor([project.dir], {
        userNpmrc: project.userNpmrc,
      });
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /FAIL {2}scope registry: the @vendor scope is not mapped to a registry .*404 Not Found/,
      );
      assert.match(
        run.stdout,
        /fix: add `@vendor:registry=<registry-url>` to the project's \.npmrc \(or run `npm config set @vendor:registry <registry-url>`\)/,
      );
      const { report } = await runDoctorJson([project.dir], {
        userNpmrc: project.userNpmrc,
      });
      assert.deepEqual(failures(report), ["Registry/scope registry"]);
    });

    it("fails when the registry has no credentials (401 Unauthorized)", async () => {
      await using project = await fixture("registry-no-token");
      const { code, report } = await runDoctorJson([project.dir], {
        userNpmrc: project.userNpmrc,
      });
      assert.equal(code, 1);
      assert.deepEqual(failures(report), ["Registry/credentials"]);
      const [scope, credentials] = checksOf(report, "Registry");
      assert.equal(scope.status, "pass");
      assert.match(
        scope.message,
        /@vendor:registry=https:\/\/registry\.example\.test\/npm\/ \(.*\.npmrc\)/,
      );
      assert.equal(credentials.status, "fail");
      assert.match(
        credentials.message,
        /no token for \/\/registry\.example\.test\/npm\/ .*401 Unauthorized/,
      );
      assert.match(credentials.advice!, /ask an administrator for a token/);
      assert.match(
        credentials.advice!,
        /\/\/registry\.example\.test\/npm\/:_authToken=\$\{KIT_REGISTRY_TOKEN\}/,
      );
    });

    it("finds the token in the user .npmrc and says where, never what", async () => {
      await using project = await fixture(
        "registry-no-token",
        `//registry.example.test/npm/:_authToken=${TOKEN}\n`,
      );
      const run = await runDoctor([project.dir], {
        userNpmrc: project.userNpmrc,
      });
      assert.match(
        run.stdout,
        /PASS {2}credentials: a token for \/\/registry\.example\.test\/npm\/ is set \(.*user\.npmrc\); not shown/,
      );
      assert.ok(!run.stdout.includes(TOKEN));
    });

    it("fails when the token variable the .npmrc names is not set", async () => {
      await using project = await fixture("healthy");
      const { report } = await runDoctorJson([project.dir], {
        userNpmrc: project.userNpmrc,
      });
      const [credentials] = checksOf(report, "Registry", "fail");
      assert.equal(credentials.name, "credentials");
      assert.match(
        credentials.message,
        /reads \$\{KIT_REGISTRY_TOKEN\}, which is not set in this shell/,
      );
      assert.match(credentials.advice!, /export KIT_REGISTRY_TOKEN/);
    });

    it("sends _password with its username as basic credentials under --connect, and fails _password without a username", async () => {
      const password = "registry-password-fixture-3141";
      const expected = `Basic ${btoa(`ci-user:${password}`)}`;
      await using registry = await startTestServer((request, response) => {
        response.statusCode = request.headers.authorization === expected
          ? 200
          : 401;
        response.end("{}");
      });
      await using project = await fixture("healthy");
      const dart = `//${new URL(registry.url).host}/npm/`;
      const npmrc = join(project.dir, ".npmrc");
      await writeFile(
        npmrc,
        `@vendor:registry=${registry.url}/npm/\n` +
          `${dart}:username=ci-user\n` +
          `${dart}:_password=\${KIT_REGISTRY_PASSWORD}\n`,
      );
      const env = { KIT_REGISTRY_PASSWORD: btoa(password) };
      const good = await runDoctorJson([project.dir, "--connect"], { env });
      const answer = checksOf(good.report, "Registry").find((check) =>
        check.name === "registry answers"
      );
      assert.equal(answer?.status, "pass", JSON.stringify(good.report));
      assert.equal(registry.requests[0].headers.authorization, expected);
      const printed = JSON.stringify(good.report);
      assert.ok(
        !printed.includes(password) && !printed.includes(btoa(password)),
      );

      await writeFile(
        npmrc,
        `@vendor:registry=${registry.url}/npm/\n` +
          `${dart}:_password=\${KIT_REGISTRY_PASSWORD}\n`,
      );
      const alone = await runDoctorJson([project.dir, "--connect"], { env });
      const credentials = checksOf(alone.report, "Registry").find((check) =>
        check.name === "credentials"
      )!;
      assert.equal(credentials.status, "fail");
      assert.match(credentials.message, /:username is not/);
      assert.equal(alone.code, 1);
    });

    it("asks the registry with the token under --connect: 200 passes, 401 fails", async () => {
      await using registry = await startTestServer((request, response) => {
        const ok = request.headers.authorization === `Bearer ${TOKEN}`;
        response.statusCode = ok ? 200 : 401;
        response.setHeader("content-type", "application/json");
        response.end(ok ? '{"name":"@vendor/kit-core"}' : '{"error":"no"}');
      });
      await using project = await fixture("healthy");
      const npmrc = join(project.dir, ".npmrc");
      await writeFile(
        npmrc,
        (await readFile(npmrc, "utf8")).replaceAll(
          "https://registry.example.test/npm/",
          `${registry.url}/npm/`,
        ).replaceAll(
          "//registry.example.test/npm/",
          `//${new URL(registry.url).host}/npm/`,
        ),
      );
      const good = await runDoctorJson([project.dir, "--connect"], {
        env: { KIT_REGISTRY_TOKEN: TOKEN },
      });
      const answer = checksOf(good.report, "Registry").find((check) =>
        check.name === "registry answers"
      );
      assert.equal(
        answer?.status,
        "pass",
        JSON.stringify(good.report, null, 2),
      );
      assert.match(answer!.message, /\/npm\/@vendor%2fkit-core answered 200/);
      assert.equal(registry.requests[0].url, "/npm/@vendor%2fkit-core");

      const bad = await runDoctorJson([project.dir, "--connect"], {
        env: { KIT_REGISTRY_TOKEN: "npm_expiredToken000000000" },
      });
      const refused = checksOf(bad.report, "Registry", "fail")[0];
      assert.equal(refused.name, "registry answers");
      assert.match(refused.message, /answered 401/);
      assert.match(
        refused.advice!,
        /refuses the token: ask an administrator for a new one/,
      );
      assert.equal(bad.code, 1);
      assert.ok(
        !JSON.stringify(bad.report).includes("npm_expiredToken000000000"),
      );
    });
  });
}
