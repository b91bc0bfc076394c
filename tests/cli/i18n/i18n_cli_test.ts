// The kit-i18n command, run as a real child process: `deno run -A
// scripts/i18n.ts` under `deno test`, the installed package's bin
// (bin/kit-i18n.mjs) in the npm passes.
import { describe, it, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { isNpmPass, moduleUrl, repoUrl } from "../../_support/module_url.ts";
import { denoExecutable } from "../../_support/runtimes.ts";
import { CHILD_PROCESS_LIMIT } from "../../_support/limits.ts";

const NPM = isNpmPass();
// Child processes (deno check of 20,000 keys) outlast test runners'
// default timeouts (Bun's is 5 s) on a busy machine.
const LONG = CHILD_PROCESS_LIMIT;
const FIXTURES = NPM
  ? undefined
  : fileURLToPath(new URL("./fixtures/", import.meta.url));
// The checkout (its fixtures and scripts), wherever the npm build is.
const REPO = fileURLToPath(repoUrl(""));
const FIXTURE_DIR = FIXTURES ?? join(REPO, "tests/cli/i18n/fixtures/");

function packageDir(): string | undefined {
  try {
    return dirname(
      createRequire(import.meta.url).resolve(
        "@vendor/kit-platform-localization/package.json",
      ),
    );
  } catch {
    return undefined;
  }
}

const BIN = NPM
  ? (() => {
    const dir = packageDir();
    const bin = dir === undefined ? undefined : join(dir, "bin/kit-i18n.mjs");
    return bin !== undefined && existsSync(bin) ? bin : undefined;
  })()
  : join(REPO, "scripts/i18n.ts");

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(
  args: readonly string[],
  cwd?: string,
  env?: Record<string, string>,
): Promise<Run> {
  const command = NPM
    ? [process.execPath, BIN!, ...args]
    : [process.execPath, "run", "-A", BIN!, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
      cwd,
      env: env === undefined ? undefined : { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => stdout += chunk);
    child.stderr.on("data", (chunk) => stderr += chunk);
    const timer = setTimeout(() => child.kill(), 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

if (BIN === undefined) {
  test("kit-i18n command", {
    skip: "the built package has no bin/kit-i18n.mjs",
  }, () => {});
} else {
  describe("kit-i18n check", () => {
    const clean = join(FIXTURE_DIR, "i18n_clean");
    const broken = join(FIXTURE_DIR, "i18n_broken");
    const source = join(FIXTURE_DIR, "i18n_src");

    it("exits 0 for a clean folder, with or without source folders", {
      timeout: LONG,
    }, async () => {
      const plain = await run(["check", clean]);
      assert.equal(plain.code, 0, plain.stdout + plain.stderr);
      assert.match(plain.stdout, /3 cultures checked, all good/);
      const withSource = await run(["check", clean, "--source", source]);
      assert.equal(withSource.code, 0, withSource.stdout + withSource.stderr);
    });

    it(
      "exits 1 and names missing keys, extra keys, differing arguments, invalid messages and unused keys",
      { timeout: LONG },
      async () => {
        const result = await run(["check", broken, "--source", source]);
        assert.equal(result.code, 1, result.stdout + result.stderr);
        const out = result.stdout;
        assert.match(out, /de: 1 missing key \(in en\): home\.title/);
        assert.match(out, /de: 1 key not in en: extra/);
        assert.match(
          out,
          new RegExp(
            String
              .raw`de: key .home\.greeting. takes \{name\}, but in en \{0\}`,
          ),
        );
        assert.match(
          out,
          new RegExp(
            String
              .raw`Invalid message for key .cart\.items. in culture .de. at line 1, column \d+`,
          ),
        );
        assert.match(out, /1 unused key .*: legacy\.unused/);
        assert.match(out, /5 problems in 2 cultures/);
      },
    );

    it(
      "refuses a resource or a source file that is a FIFO at once, naming it",
      {
        timeout: LONG,
        skip: process.platform === "win32" ? "no FIFOs on Windows" : false,
      },
      async () => {
        const dir = await mkdtemp(join(tmpdir(), "kit-i18n-fifo-"));
        try {
          await writeFile(join(dir, "en.json"), '{"a": "A"}');
          execFileSync("mkfifo", [join(dir, "fr.json")]);
          const started = performance.now();
          const resource = await run(["check", dir]);
          assert.equal(resource.code, 2, resource.stdout + resource.stderr);
          assert.match(
            resource.stderr,
            /^kit-i18n: cannot read .*fr\.json: not a regular file \(a FIFO\)\n/,
          );
          await rm(join(dir, "fr.json"));
          const sources = join(dir, "src");
          await mkdir(sources);
          execFileSync("mkfifo", [join(sources, "app.ts")]);
          const source = await run(["check", dir, "--source", sources]);
          assert.equal(source.code, 2, source.stdout + source.stderr);
          assert.match(
            source.stderr,
            /^kit-i18n: cannot read .*app\.ts: not a regular file \(a FIFO\)\n/,
          );
          // Each run is a child process's start-up, not a wait for a writer.
          assert.ok(performance.now() - started < 60_000);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    );

    it("reports unused keys only when source folders are given", {
      timeout: LONG,
    }, async () => {
      const result = await run(["check", broken]);
      assert.equal(result.code, 1);
      assert.doesNotMatch(result.stdout, /unused/);
    });

    it("exits 2 with the usage for bad usage", { timeout: LONG }, async () => {
      for (
        const args of [
          [],
          ["nonsense"],
          ["check"],
          ["check", clean, "--sauce", source],
          ["check", join(FIXTURE_DIR, "does_not_exist")],
          ["check", clean, "--default", "fr_FR!"],
          ["check", source],
          ["types"],
        ]
      ) {
        const result = await run(args);
        assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
        assert.match(result.stderr, /Usage:/);
      }
    });
  });

  describe("kit-i18n check and the application's configuration", () => {
    // A folder of resources beside an application's configuration, both in
    // a new temporary directory.
    async function project(
      resources: Record<string, unknown>,
      settings?: unknown,
    ): Promise<{ root: string; locales: string }> {
      const root = await mkdtemp(join(tmpdir(), "kit-i18n-config-"));
      const locales = join(root, "locales");
      await mkdir(locales);
      for (const [culture, texts] of Object.entries(resources)) {
        await writeFile(
          join(locales, `${culture}.json`),
          JSON.stringify(texts),
        );
      }
      if (settings !== undefined) {
        await writeFile(
          join(root, "appsettings.json"),
          JSON.stringify(settings),
        );
      }
      return { root, locales };
    }

    const TEXTS = { home: { title: "Hello" } };

    it(
      "names each culture of localization:supportedCultures the folder has no resource for",
      { timeout: LONG },
      async () => {
        const { root, locales } = await project(
          { en: TEXTS, fr: TEXTS, pt: TEXTS },
          {
            localization: {
              supportedCultures: ["en", "fr-CA", "de-DE", "pt-BR"],
            },
          },
        );
        try {
          const result = await run(["check", locales, "--config", root]);
          assert.equal(result.code, 1, result.stdout + result.stderr);
          assert.equal(
            result.stdout.split("\n").filter((line) => line.startsWith("✗"))
              .join("\n"),
            // fr-CA and pt-BR are served from fr and pt.
            `✗ de-DE: in localization:supportedCultures (from appsettings.json), but none of ${
              join(locales, "de-DE.json")
            }, ${join(locales, "de.json")} exists`,
          );
          assert.match(result.stdout, /1 problem in 3 cultures/);
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      },
    );

    it(
      "reads APP_LOCALIZATION__SUPPORTED_CULTURES, and the default culture from localization:defaultCulture",
      { timeout: LONG },
      async () => {
        const { root, locales } = await project({
          de: { home: { title: "Hallo" } },
          fr: { home: { title: "Bonjour" }, extra: "x" },
        });
        try {
          const result = await run(["check", locales], root, {
            KIT_CONFIG_PATH: root,
            APP_LOCALIZATION__DEFAULT_CULTURE: "de",
            APP_LOCALIZATION__SUPPORTED_CULTURES: "de, fr, it",
          });
          assert.equal(result.code, 1, result.stdout + result.stderr);
          assert.match(
            result.stdout,
            /✗ it: in localization:supportedCultures \(from env APP_LOCALIZATION__SUPPORTED_CULTURES\), but .*it\.json does not exist/,
          );
          // Compared with de, the configured default culture (no en.json).
          assert.match(result.stdout, /✗ fr: 1 key not in de: extra/);
          // --default wins over the configuration.
          const flag = await run(["check", locales, "--default", "fr"], root, {
            KIT_CONFIG_PATH: root,
            APP_LOCALIZATION__DEFAULT_CULTURE: "de",
          });
          assert.equal(flag.code, 1, flag.stdout + flag.stderr);
          assert.match(flag.stdout, /✗ de: 1 missing key \(in fr\): extra/);
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      },
    );

    it(
      "a malformed culture in the configuration is refused, naming the key, the entry and its source",
      { timeout: LONG },
      async () => {
        const { root, locales } = await project(
          { en: TEXTS },
          { localization: { supportedCultures: ["en", "fr_FR"] } },
        );
        try {
          const result = await run(["check", locales, "--config", root]);
          assert.equal(result.code, 1, result.stdout + result.stderr);
          assert.equal(
            result.stderr,
            'kit-i18n: localization:supportedCultures:1: must be a BCP 47 culture name such as "en" or "fr-CA", got "fr_FR" (from appsettings.json)\n',
          );
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      },
    );
  });

  describe("kit-i18n types", () => {
    it(
      "writes the keys grouped by the arguments they take",
      { timeout: LONG },
      async () => {
        const dir = await mkdtemp(join(tmpdir(), "kit-i18n-"));
        try {
          const out = join(dir, "keys.d.ts");
          const result = await run([
            "types",
            join(FIXTURE_DIR, "i18n_clean", "en.json"),
            "--out",
            out,
          ]);
          assert.equal(result.code, 0, result.stderr);
          const text = await readFile(out, "utf8");
          // Expected lines, quoted with JSON.stringify: test_npm.ts reads
          // quoted Kit names in this file as module specifiers.
          const q = JSON.stringify;
          // Argument types are declared once each, as `type ArgsN = …;`.
          const aliasOf = (type: string): string => {
            const line = text.split("\n").find((line) =>
              line.startsWith("type Args") && line.endsWith(` = ${type};`)
            );
            assert.ok(line, `type ${type} in:\n${text}`);
            return line.slice("type ".length, line.indexOf(" ="));
          };
          for (
            const line of [
              `declare module ${q("@vendor/kit-platform-localization")} {`,
              `      plain:\n        | ${q("common.app")}\n        | ${
                q("home.title")
              };`,
              `${q("cart.items")}: ${aliasOf("{ count: number }")};`,
              `${q("cart.owner")}: ${aliasOf("{ gender: string }")};`,
              `${q("home.greeting")}: ${aliasOf("[arg0: unknown]")};`,
            ]
          ) assert.ok(text.includes(line), `${line} in:\n${text}`);
          const other = await run([
            "types",
            join(FIXTURE_DIR, "i18n_clean", "en.json"),
            "--out",
            out,
            "--module",
            "@vendor/kit/localization",
          ]);
          assert.equal(other.code, 0);
          assert.ok(
            (await readFile(out, "utf8")).includes(
              `declare module ${JSON.stringify("@vendor/kit/localization")}`,
            ),
          );
          // Without --out: <resource>.keys.d.ts beside the resource.
          await writeFile(
            join(dir, "fr.json"),
            await readFile(join(FIXTURE_DIR, "i18n_clean", "fr.json"), "utf8"),
          );
          const beside = await run(["types", join(dir, "fr.json")]);
          assert.equal(beside.code, 0, beside.stderr);
          assert.ok(existsSync(join(dir, "fr.keys.d.ts")));
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    );
  });
}

// Generates the declarations of `resource`, then runs `deno check` over a
// temporary project whose app.ts calls t() as `code` says. Under `deno test`
// the project maps the package name to the sources; in the npm passes it
// sits in the npm build's folder and imports the built package from its
// node_modules (its declarations import `./x.js` files that exist only as
// `.d.ts`, which tsc follows and Deno does with sloppy imports).
async function typeCheck(
  resource: unknown,
  code: string,
): Promise<{ result: Run; seconds: number }> {
  const npmRoot = NPM ? dirname(packageDir()!) : undefined;
  const dir = await mkdtemp(
    npmRoot === undefined
      ? join(tmpdir(), "kit-i18n-types-")
      : join(npmRoot, ".kit-i18n-types-"),
  );
  try {
    await writeFile(join(dir, "en.json"), JSON.stringify(resource));
    const generated = await run([
      "types",
      join(dir, "en.json"),
      "--out",
      join(dir, "keys.d.ts"),
    ]);
    assert.equal(generated.code, 0, generated.stderr);
    if (NPM) {
      await writeFile(
        join(dir, "package.json"),
        JSON.stringify({
          type: "module",
          dependencies: { "@vendor/kit-platform-localization": "*" },
        }),
      );
    } else {
      await writeFile(
        join(dir, "deno.json"),
        JSON.stringify({
          imports: {
            "@vendor/kit-platform-localization": moduleUrl("localization"),
          },
        }),
      );
    }
    await writeFile(
      join(dir, "app.ts"),
      '/// <reference path="./keys.d.ts" />\n' +
        'import type { Translator } from "@vendor/kit-platform-localization";\n' +
        'export function page(t: Translator["t"]): string {\n' +
        `  return [${code}].join("\\n");\n}\n`,
    );
    const started = performance.now();
    const result = await new Promise<Run>((resolve, reject) => {
      const args = NPM
        ? ["check", "--unstable-sloppy-imports", "app.ts"]
        : ["check", "app.ts"];
      const child = spawn(denoExecutable!, args, {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1" },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => stdout += chunk);
      child.stderr.on("data", (chunk) => stderr += chunk);
      const timer = setTimeout(() => child.kill(), 300_000);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    return { result, seconds: (performance.now() - started) / 1000 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (BIN === undefined || denoExecutable === undefined) {
  test("generated key declarations make a wrong key or argument a type error", {
    skip: BIN === undefined
      ? "the built package has no bin/kit-i18n.mjs"
      : "deno is not installed (the type checks run deno check)",
  }, () => {});
} else {
  const RESOURCE = {
    home: { title: "Welcome", greeting: "Hello {0}" },
    cart: {
      items: "{count, plural, one {# item} other {# items}}",
      owner: "{gender, select, female {Her} other {Their}} cart",
    },
  };

  describe("generated key declarations", () => {
    it("accept the right keys and arguments", { timeout: LONG }, async () => {
      const { result } = await typeCheck(
        RESOURCE,
        't("home.title"), t("home.greeting", "Ada"), ' +
          't("cart.items", { count: 2 }), t("cart.owner", { gender: "female" })',
      );
      assert.equal(result.code, 0, result.stderr);
    });

    it(
      "make a wrong key, a wrong argument name or type, and a missing argument type errors",
      { timeout: LONG },
      async () => {
        const { result } = await typeCheck(
          RESOURCE,
          't("home.titel"), t("cart.items", { cout: 2 }), ' +
            't("cart.items", { count: "2" }), t("cart.items"), t("home.title", 1)',
        );
        assert.equal(result.code, 1);
        const errors = result.stderr.match(/TS\d+ \[ERROR\]/g) ?? [];
        assert.equal(errors.length, 5, result.stderr);
        assert.match(result.stderr, /home\.titel/);
      },
    );

    it("type-check 20,000 keys", { timeout: LONG }, async () => {
      const resource: Record<string, Record<string, string>> = {};
      for (let g = 0; g < 200; g++) {
        const group: Record<string, string> = {};
        for (let k = 0; k < 100; k++) {
          const i = g * 100 + k;
          group[`key${k}`] = [
            `Text ${i}`,
            `Hello {name}, item ${i}`,
            `{count, plural, one {# thing} other {# things}} ${i}`,
            `Item {0} of {1}`,
          ][i % 4];
        }
        resource[`group${g}`] = group;
      }
      const small = await typeCheck(RESOURCE, 't("home.title")');
      const { result, seconds } = await typeCheck(
        resource,
        't("group0.key0"), t("group0.key1", { name: "Ada" }), ' +
          't("group199.key98", { count: 2 }), t("group199.key99", 1, 2)',
      );
      assert.equal(result.code, 0, result.stderr);
      // Measured, not asserted (BENCHMARKS.md has the numbers).
      console.log(
        `deno check with 20,000 generated keys: ${seconds.toFixed(1)} s ` +
          `(the same project with 4 keys: ${small.seconds.toFixed(1)} s)`,
      );
    });
  });
}
