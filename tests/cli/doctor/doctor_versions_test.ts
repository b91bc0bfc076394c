// The doctor's version judgements over real project folders: version ranges
// read as npm reads them (a prerelease, an upper bound, a hyphen range), a
// tsconfig.json that TypeScript accepts (comments before a closing brace,
// trailing commas), and advice that follows the TypeScript version the
// project has installed (5.9, 6.x, 7.x).
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it as nodeIt, test as nodeTest } from "node:test";
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

const env = { KIT_REGISTRY_TOKEN: "npm_versionsFixtureToken12345" };

type CheckOf = JsonReport["checks"][number];

// Installs fake copies of the two Kit packages at `version` and makes
// package.json ask `range` for kit-core.
async function kitAt(
  project: Fixture,
  version: string,
  range: string,
): Promise<void> {
  for (const name of ["kit-core", "kit-platform-configuration"]) {
    await writeFile(
      join(project.dir, "node_modules", "@vendor", name, "package.json"),
      JSON.stringify({ name: `@vendor/${name}`, version }),
    );
  }
  const manifest = JSON.parse(
    await readFile(join(project.dir, "package.json"), "utf8"),
  );
  manifest.dependencies = {
    "@vendor/kit-core": range,
    "@vendor/kit-platform-configuration": version,
  };
  await writeFile(join(project.dir, "package.json"), JSON.stringify(manifest));
}

async function versionsCheck(project: Fixture): Promise<CheckOf> {
  const { report } = await runDoctorJson([project.dir], { env });
  const check = checksOf(report, "Compiler").find((item) =>
    item.name === "Kit versions agree"
  );
  assert.ok(check, JSON.stringify(report, null, 2));
  return check;
}

// Sets the installed TypeScript version and the tsconfig.json text.
async function typescriptProject(
  project: Fixture,
  version: string,
  compilerOptions: Record<string, unknown>,
): Promise<Map<string, CheckOf>> {
  await mkdir(join(project.dir, "node_modules", "typescript"), {
    recursive: true,
  });
  await writeFile(
    join(project.dir, "node_modules", "typescript", "package.json"),
    JSON.stringify({ name: "typescript", version }),
  );
  await writeFile(
    join(project.dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions }, null, 2),
  );
  const { report } = await runDoctorJson([project.dir], { env });
  return new Map(
    checksOf(report, "Compiler").map((check) => [check.name, check]),
  );
}

const COMMON_NODE = {
  target: "ES2020",
  module: "commonjs",
  moduleResolution: "node",
  strict: true,
  skipLibCheck: true,
  esModuleInterop: true,
  allowSyntheticDefaultImports: true,
};

if (doctorSkip !== false) {
  test("kit doctor version judgements", { skip: doctorSkip }, () => {});
} else {
  describe("kit doctor version ranges", () => {
    it("fails 2.0.0 against <2.0.0", async () => {
      await using project = await fixture("healthy");
      await kitAt(project, "2.0.0", "<2.0.0");
      const check = await versionsCheck(project);
      assert.equal(check.status, "fail");
      assert.match(
        check.details!.join("\n"),
        /@vendor\/kit-core: package\.json asks <2\.0\.0, 2\.0\.0 is installed/,
      );
    });

    it("fails 1.4.0 against the hyphen range 1.2.3 - 1.3.0", async () => {
      await using project = await fixture("healthy");
      await kitAt(project, "1.4.0", "1.2.3 - 1.3.0");
      const check = await versionsCheck(project);
      assert.equal(check.status, "fail");
      assert.match(
        check.details!.join("\n"),
        /package\.json asks 1\.2\.3 - 1\.3\.0, 1\.4\.0 is installed/,
      );
    });

    it("fails the prerelease 1.2.3-beta.1 against ^1.2.0", async () => {
      await using project = await fixture("healthy");
      await kitAt(project, "1.2.3-beta.1", "^1.2.0");
      const check = await versionsCheck(project);
      assert.equal(check.status, "fail");
      assert.match(
        check.details!.join("\n"),
        /package\.json asks \^1\.2\.0, 1\.2\.3-beta\.1 is installed/,
      );
    });

    it("passes versions inside their ranges (a bounded range, an x-range, a prerelease its range names)", async () => {
      for (
        const [version, range] of [
          ["1.4.0", ">=1.2.0 <1.5.0"],
          ["1.4.0", "1.x"],
          ["1.2.3-beta.2", "^1.2.3-beta.1"],
          ["0.0.1", "^0.0.1"],
        ]
      ) {
        await using project = await fixture("healthy");
        await kitAt(project, version, range);
        const check = await versionsCheck(project);
        assert.equal(
          check.status,
          "pass",
          `${version} against ${range}: ${JSON.stringify(check)}`,
        );
      }
    });
  });

  describe("kit doctor tsconfig.json reading", () => {
    it("passes a valid tsconfig.json with a comment before } and trailing commas", async () => {
      await using project = await fixture("healthy");
      await writeFile(
        join(project.dir, "tsconfig.json"),
        [
          "{",
          "  // A common Node.js setup.",
          '  "compilerOptions": {',
          '    "target": "ES2020",',
          '    "module": "commonjs",',
          '    "moduleResolution": "node",',
          '    "esModuleInterop": true,',
          '    "allowSyntheticDefaultImports": true, // trailing comma',
          "    /* closing comment */",
          "  },",
          '  "include": ["src",],',
          "  // the end",
          "}",
          "",
        ].join("\n"),
      );
      const { code, report } = await runDoctorJson([project.dir], { env });
      const byName = new Map(
        checksOf(report, "Compiler").map((check) => [check.name, check]),
      );
      assert.equal(byName.get("tsconfig.json"), undefined);
      assert.equal(byName.get("moduleResolution")?.status, "pass");
      assert.equal(code, 0, JSON.stringify(report, null, 2));
    });
  });

  describe("kit doctor advice by TypeScript version", () => {
    it("passes moduleResolution node with TypeScript 5.9", async () => {
      await using project = await fixture("healthy");
      const checks = await typescriptProject(project, "5.9.3", COMMON_NODE);
      assert.equal(checks.get("moduleResolution")?.status, "pass");
      assert.match(
        checks.get("moduleResolution")!.message,
        /TypeScript 5\.9\.3/,
      );
    });

    it("fails moduleResolution node with TypeScript 6 (TS5107, deprecated)", async () => {
      await using project = await fixture("healthy");
      const checks = await typescriptProject(project, "6.0.3", COMMON_NODE);
      const check = checks.get("moduleResolution")!;
      assert.equal(check.status, "fail");
      assert.match(check.message, /TS5107/);
      assert.match(check.message, /TypeScript 6\.0\.3/);
      assert.match(
        check.advice!,
        /use `nodenext` \(or `bundler` with a bundler\)/,
      );
      assert.doesNotMatch(check.advice!, /"node"|`node`/);
    });

    it("warns (not fails) for node with TypeScript 6 when ignoreDeprecations is 6.0", async () => {
      await using project = await fixture("healthy");
      const checks = await typescriptProject(project, "6.0.3", {
        ...COMMON_NODE,
        ignoreDeprecations: "6.0",
      });
      const check = checks.get("moduleResolution")!;
      assert.equal(check.status, "warn");
      assert.match(check.message, /TypeScript 7/);
    });

    it("fails moduleResolution node and node10 with TypeScript 7.0.2 (TS5108, removed)", async () => {
      for (const resolution of ["node", "node10"]) {
        await using project = await fixture("healthy");
        const checks = await typescriptProject(project, "7.0.2", {
          ...COMMON_NODE,
          moduleResolution: resolution,
          ignoreDeprecations: "6.0",
        });
        const check = checks.get("moduleResolution")!;
        assert.equal(check.status, "fail", resolution);
        assert.match(check.message, /TS5108/);
        assert.match(check.message, /TypeScript 7\.0\.2/);
        assert.match(
          check.advice!,
          /use `nodenext` \(or `bundler` with a bundler\)/,
        );
      }
    });

    it("passes nodenext and bundler with TypeScript 7.0.2, and knows 7 picks bundler when nothing is set", async () => {
      await using project = await fixture("healthy");
      const nodenext = await typescriptProject(project, "7.0.2", {
        module: "nodenext",
        strict: true,
      });
      assert.equal(nodenext.get("moduleResolution")?.status, "pass");
      assert.match(
        nodenext.get("moduleResolution")!.message,
        /^nodenext \(not set; module nodenext/,
      );
      assert.equal(nodenext.get("esModuleInterop")?.status, "pass");
      assert.equal(
        nodenext.get("allowSyntheticDefaultImports")?.status,
        "pass",
      );
      const bare = await typescriptProject(project, "7.0.2", {
        module: "commonjs",
        target: "ES2020",
      });
      assert.equal(bare.get("moduleResolution")?.status, "pass");
      assert.match(
        bare.get("moduleResolution")!.message,
        /^bundler \(not set; TypeScript 7\.0\.2 uses bundler/,
      );
      // From TypeScript 6 on both interop settings are on unless set false.
      assert.equal(bare.get("esModuleInterop")?.status, "pass");
      assert.equal(bare.get("allowSyntheticDefaultImports")?.status, "pass");
    });

    it("fails esModuleInterop false with TypeScript 7.0.2 (TS5108)", async () => {
      await using project = await fixture("healthy");
      const checks = await typescriptProject(project, "7.0.2", {
        module: "nodenext",
        esModuleInterop: false,
      });
      const check = checks.get("esModuleInterop")!;
      assert.equal(check.status, "fail");
      assert.match(check.message, /TS5108/);
    });

    it("gives TypeScript-5 projects both answers when it advises", async () => {
      await using project = await fixture("healthy");
      const checks = await typescriptProject(project, "5.9.3", {
        module: "esnext",
      });
      const check = checks.get("moduleResolution")!;
      assert.equal(check.status, "fail");
      assert.match(check.advice!, /before TypeScript 6/i);
      assert.match(check.advice!, /nodenext/);
    });
  });
}
