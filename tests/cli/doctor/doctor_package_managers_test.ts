// The doctor's registry checks per package manager, over real project
// folders: which tool installs the project (packageManager field, lockfile,
// the user agent of the tool that runs the doctor) decides which files hold
// the registry and the token, and whether a `${VARIABLE}` there is read.
// pnpm (from 10.34.2 and 11.5.3) ignores a variable in a credential of the
// project's .npmrc and gets 401 (ERR_PNPM_FETCH_401); Yarn 2 and later read
// .yarnrc.yml, never .npmrc; npm, Yarn 1 and Bun expand it in either .npmrc.
import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it as nodeIt, test as nodeTest } from "node:test";
import { startTestServer } from "../../_support/http_server.ts";
import {
  checksOf,
  doctorSkip,
  type Fixture,
  fixture,
  type JsonReport,
  runDoctorJson,
} from "./_doctor_run.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const TOKEN = "npm_packageManagerFixtureToken42";
const env = { KIT_REGISTRY_TOKEN: TOKEN };
const REGISTRY = "https://registry.example.test/npm/";
const DART = "//registry.example.test/npm/";

type CheckOf = JsonReport["checks"][number];

async function setPackageManager(
  project: Fixture,
  packageManager: string,
): Promise<void> {
  const path = join(project.dir, "package.json");
  const manifest = JSON.parse(await readFile(path, "utf8"));
  manifest.packageManager = packageManager;
  await writeFile(path, JSON.stringify(manifest, null, 2));
}

async function registryChecks(
  project: Fixture,
  options: { env?: Record<string, string>; userNpmrc?: string } = {},
): Promise<{ code: number; checks: Map<string, CheckOf>; text: string }> {
  const { code, report } = await runDoctorJson([project.dir], {
    env: options.env ?? env,
    userNpmrc: options.userNpmrc,
  });
  const text = JSON.stringify(report);
  assert.ok(!text.includes(TOKEN), "the token is never printed");
  return {
    code,
    text,
    checks: new Map(
      checksOf(report, "Registry").map((check) => [check.name, check]),
    ),
  };
}

if (doctorSkip !== false) {
  test("kit doctor package managers", { skip: doctorSkip }, () => {});
} else {
  describe("kit doctor package managers: pnpm", () => {
    it("fails ${KIT_REGISTRY_TOKEN} in the project .npmrc when pnpm-lock.yaml says pnpm (ERR_PNPM_FETCH_401)", async () => {
      await using project = await fixture("healthy");
      await writeFile(
        join(project.dir, "pnpm-lock.yaml"),
        "lockfileVersion: '9.0'\n",
      );
      const { code, checks } = await registryChecks(project);
      assert.equal(code, 1);
      assert.match(checks.get("package manager")!.message, /^pnpm/);
      const credentials = checks.get("credentials")!;
      assert.equal(credentials.status, "fail");
      assert.match(credentials.message, /pnpm/);
      assert.match(credentials.message, /ERR_PNPM_FETCH_401/);
      assert.match(credentials.message, /401 Unauthorized/);
      assert.match(credentials.advice!, /~\/\.npmrc/);
      assert.match(
        credentials.advice!,
        /\/\/registry\.example\.test\/npm\/:_authToken=\$\{KIT_REGISTRY_TOKEN\}/,
      );
      assert.match(
        credentials.advice!,
        /pnpm config set "\/\/registry\.example\.test\/npm\/:_authToken" "\$KIT_REGISTRY_TOKEN"/,
      );
    });

    it("fails it when package.json's packageManager names pnpm 10.34.9, and when pnpm runs the doctor", async () => {
      await using project = await fixture("healthy");
      await setPackageManager(project, "pnpm@10.34.9+sha512.abc");
      const field = await registryChecks(project);
      assert.equal(field.checks.get("credentials")?.status, "fail");
      assert.match(
        field.checks.get("package manager")!.message,
        /pnpm 10\.34\.9 \(package\.json packageManager\)/,
      );

      await using bare = await fixture("healthy");
      const agent = await registryChecks(bare, {
        env: {
          ...env,
          npm_config_user_agent: "pnpm/11.6.0 npm/? node/v22.13.0 linux x64",
        },
      });
      assert.equal(agent.checks.get("credentials")?.status, "fail");
      assert.match(
        agent.checks.get("package manager")!.message,
        /pnpm 11\.6\.0 \(the user agent/,
      );
    });

    it("only warns with a pnpm that still expands it (10.34.1)", async () => {
      await using project = await fixture("healthy");
      await setPackageManager(project, "pnpm@10.34.1");
      const { code, checks } = await registryChecks(project);
      assert.equal(code, 0);
      const credentials = checks.get("credentials")!;
      assert.equal(credentials.status, "warn");
      assert.match(credentials.message, /10\.34\.2/);
    });

    it("passes pnpm with the token line in the user's ~/.npmrc", async () => {
      await using project = await fixture(
        "healthy",
        `${DART}:_authToken=\${KIT_REGISTRY_TOKEN}\n`,
      );
      await writeFile(
        join(project.dir, ".npmrc"),
        `@vendor:registry=${REGISTRY}\n`,
      );
      await writeFile(
        join(project.dir, "pnpm-lock.yaml"),
        "lockfileVersion: '9.0'\n",
      );
      const { code, checks } = await registryChecks(project, {
        userNpmrc: project.userNpmrc,
      });
      assert.equal(checks.get("credentials")?.status, "pass");
      assert.match(checks.get("credentials")!.message, /user\.npmrc/);
      assert.equal(code, 0);
    });
  });

  describe("kit doctor package managers: Yarn, Bun, npm", () => {
    it("fails Yarn 4 with only an .npmrc: Yarn 2 and later never read it (404 from the public registry)", async () => {
      await using project = await fixture("healthy");
      await setPackageManager(project, "yarn@4.18.1");
      const { code, checks } = await registryChecks(project);
      assert.equal(code, 1);
      const scope = checks.get("scope registry")!;
      assert.equal(scope.status, "fail");
      assert.match(scope.message, /Yarn 4\.18\.1 does not read \.npmrc/);
      assert.match(scope.message, /404 Not Found/);
      assert.match(scope.advice!, /\.yarnrc\.yml/);
      assert.match(scope.advice!, /npmScopes/);
      assert.match(scope.advice!, /npmAuthToken: "\$\{KIT_REGISTRY_TOKEN\}"/);
    });

    it("passes Yarn 4 with npmScopes in .yarnrc.yml, and fails it when the token variable is not set", async () => {
      await using project = await fixture("healthy");
      await setPackageManager(project, "yarn@4.18.1");
      await rm(join(project.dir, ".npmrc"));
      await writeFile(
        join(project.dir, ".yarnrc.yml"),
        [
          "# the private registry",
          "npmScopes:",
          "  vendor:",
          `    npmRegistryServer: "${REGISTRY}"`,
          '    npmAuthToken: "${KIT_REGISTRY_TOKEN}"',
          "nodeLinker: node-modules",
          "",
        ].join("\n"),
      );
      const good = await registryChecks(project);
      assert.equal(good.checks.get("scope registry")?.status, "pass");
      assert.match(
        good.checks.get("scope registry")!.message,
        /npmScopes\.vendor\.npmRegistryServer/,
      );
      assert.equal(good.checks.get("credentials")?.status, "pass");
      assert.equal(good.code, 0);

      const unset = await registryChecks(project, { env: {} });
      const credentials = unset.checks.get("credentials")!;
      assert.equal(credentials.status, "fail");
      assert.match(
        credentials.message,
        /Environment variable not found \(KIT_REGISTRY_TOKEN\)/,
      );
      assert.match(credentials.advice!, /export KIT_REGISTRY_TOKEN/);
    });

    it("sends a Yarn npmAuthIdent written as user:password base64-encoded under --connect, as Yarn does, and never prints it", async () => {
      const ident = "ci-user:ident-password-fixture-2718";
      const expected = `Basic ${btoa(ident)}`;
      await using registry = await startTestServer((request, response) => {
        response.statusCode = request.headers.authorization === expected
          ? 200
          : 401;
        response.end("{}");
      });
      await using project = await fixture("healthy");
      await setPackageManager(project, "yarn@4.18.1");
      await rm(join(project.dir, ".npmrc"));
      await writeFile(
        join(project.dir, ".yarnrc.yml"),
        [
          "npmScopes:",
          "  vendor:",
          `    npmRegistryServer: "${registry.url}/npm/"`,
          '    npmAuthIdent: "${KIT_REGISTRY_IDENT}"',
          "",
        ].join("\n"),
      );
      const { report } = await runDoctorJson([project.dir, "--connect"], {
        env: { KIT_REGISTRY_IDENT: ident },
      });
      const answer = checksOf(report, "Registry").find((check) =>
        check.name === "registry answers"
      );
      assert.equal(answer?.status, "pass", JSON.stringify(report));
      assert.equal(registry.requests[0].headers.authorization, expected);
      const printed = JSON.stringify(report);
      assert.ok(!printed.includes(ident) && !printed.includes(btoa(ident)));
    });

    it("passes Yarn 1 (yarn.lock v1) and Bun (bun.lock) with ${KIT_REGISTRY_TOKEN} in the project .npmrc", async () => {
      for (
        const [file, text, tool] of [
          ["yarn.lock", "# yarn lockfile v1\n\n", /^Yarn 1/],
          ["bun.lock", '{ "lockfileVersion": 1 }\n', /^Bun/],
          ["package-lock.json", '{ "lockfileVersion": 3 }\n', /^npm/],
        ] as const
      ) {
        await using project = await fixture("healthy");
        await writeFile(join(project.dir, file), text);
        const { code, checks } = await registryChecks(project);
        assert.match(checks.get("package manager")!.message, tool);
        assert.equal(checks.get("credentials")?.status, "pass", file);
        assert.equal(code, 0, file);
      }
    });
  });
}
