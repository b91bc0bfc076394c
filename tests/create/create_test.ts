// The project generator (`deno task create`), run as a user runs it: a child
// process in a scratch folder. Under Node.js and Bun (the npm passes) there
// is no checkout task to run: the generator's npm package is checked by
// scripts/create_check.ts instead.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;
const skip = isDeno
  ? false
  : "the generator runs from a checkout under Deno (its npm package: scripts/create_check.ts)";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "create", "main.ts");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the generator in `cwd`; fails after 60 seconds. */
function create(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["run", "-A", MAIN, ...args], {
      cwd,
      env: { ...process.env, ...env, INIT_CWD: cwd, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Uint8Array) => {
      stdout += new TextDecoder().decode(chunk);
    });
    child.stderr.on("data", (chunk: Uint8Array) => {
      stderr += new TextDecoder().decode(chunk);
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`create ${args.join(" ")} ran over 60 s:\n${stderr}`));
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** `deno fmt --check` in a generated project: the files it complains of. */
function unformatted(dir: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [
      "fmt",
      "--check",
      "--ignore=vendor,node_modules,dist",
    ], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const keep = (chunk: Uint8Array): void => {
      output += new TextDecoder().decode(chunk);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("deno fmt --check ran over 60 s"));
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise(
        code === 0 ? "" : [...output.matchAll(/^from (.*):$/gm)]
          .map((match) => match[1]).join(", ") || output,
      );
    });
  });
}

async function scratch(): Promise<string> {
  return await mkdtemp(join(tmpdir(), "kit-create-"));
}

async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      out.push(
        ...await listFiles(join(dir, entry.name), `${prefix}${entry.name}/`),
      );
    } else out.push(prefix + entry.name);
  }
  return out.sort();
}

const read = (dir: string, file: string): Promise<string> =>
  readFile(join(dir, file), "utf8");

describe("deno task create: the command line", () => {
  it(
    "names the valid options for an unknown one, and writes nothing",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const run = await create(cwd, ["app", "--typescript"]);
        assert.equal(run.code, 2);
        assert.match(
          run.stderr,
          /Unknown option '--typescript'\. Valid options: --runtime deno\|node, --module esm\|commonjs, --redis, --postgres, --force, --help\./,
        );
        assert.equal(existsSync(join(cwd, "app")), false);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "names the allowed runtimes for a bad --runtime value",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const run = await create(cwd, ["app", "--runtime", "bun"]);
        assert.equal(run.code, 2);
        assert.match(
          run.stderr,
          /Invalid --runtime 'bun': use one of deno, node\./,
        );
        const missing = await create(cwd, ["app", "--runtime"]);
        assert.equal(missing.code, 2);
        assert.match(
          missing.stderr,
          /--runtime needs a value: one of deno, node\./,
        );
        const format = await create(cwd, [
          "app",
          "--runtime=node",
          "--module=amd",
        ]);
        assert.match(
          format.stderr,
          /Invalid --module 'amd': use one of esm, commonjs\./,
        );
        assert.equal(existsSync(join(cwd, "app")), false);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "asks for a folder, and refuses --module without --runtime node",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const none = await create(cwd, []);
        assert.equal(none.code, 2);
        assert.match(none.stderr, /Missing the project folder/);
        const module = await create(cwd, ["app", "--module", "commonjs"]);
        assert.equal(module.code, 2);
        assert.match(
          module.stderr,
          /--module applies to Node\.js only: add --runtime node/,
        );
        const help = await create(cwd, ["--help"]);
        assert.equal(help.code, 0);
        assert.match(
          help.stdout,
          /Usage: deno task create <folder> \[options\]/,
        );
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "refuses a folder that is not empty unless --force, which keeps other files",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        await mkdir(join(cwd, "app"));
        await writeFile(join(cwd, "app", "notes.txt"), "mine\n");
        await writeFile(join(cwd, "app", "main.ts"), "// mine\n");
        const refused = await create(cwd, ["app"]);
        assert.equal(refused.code, 1);
        assert.match(
          refused.stderr,
          /the folder 'app' exists and is not empty \(2 entries: main\.ts, notes\.txt\)\. .*add --force/,
        );
        assert.equal(await read(join(cwd, "app"), "main.ts"), "// mine\n");
        assert.deepEqual(
          await readdir(join(cwd, "app")),
          ["main.ts", "notes.txt"].sort(),
        );

        const forced = await create(cwd, ["app", "--force"]);
        assert.equal(forced.code, 0, forced.stderr);
        assert.equal(await read(join(cwd, "app"), "notes.txt"), "mine\n");
        assert.match(
          await read(join(cwd, "app"), "main.ts"),
          /Application\.run/,
        );

        // An empty folder needs no --force; a file in its place is named.
        await mkdir(join(cwd, "empty"));
        assert.equal((await create(cwd, ["empty"])).code, 0);
        await writeFile(join(cwd, "file"), "");
        const file = await create(cwd, ["file"]);
        assert.equal(file.code, 1);
        assert.match(file.stderr, /'file' is a file, not a folder/);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );
});

describe("deno task create: the files written", () => {
  it(
    "Deno: links the checkout, extends Kit's schema, serves with Hono and kit()",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const run = await create(cwd, ["My Service"]);
        assert.equal(run.code, 0, run.stderr);
        assert.match(
          run.stdout,
          /cd My Service\n\s+deno task test\n\s+deno task start/,
        );
        const dir = join(cwd, "My Service");
        assert.deepEqual(await listFiles(dir), [
          ".dockerignore",
          ".env.example",
          ".gitignore",
          "Dockerfile",
          "README.md",
          "app.ts",
          "app_test.ts",
          "appsettings.development.json",
          "appsettings.json",
          "appsettings.production.json",
          "compose.yaml",
          "config.ts",
          "deno.json",
          "logs/.gitkeep",
          "main.ts",
        ]);
        // The container's unprivileged user writes logs/service.log through
        // compose.yaml's ./logs mount: the folder is there, writable by it,
        // and kept by git while its log files are not.
        assert.equal((await stat(join(dir, "logs"))).mode & 0o777, 0o777);
        const gitignore = (await read(dir, ".gitignore")).split("\n");
        assert.ok(gitignore.includes("logs/*"), gitignore.join(" "));
        assert.ok(gitignore.includes("!logs/.gitkeep"), gitignore.join(" "));
        assert.ok(!gitignore.includes("logs/"), gitignore.join(" "));
        const deno = JSON.parse(await read(dir, "deno.json"));
        assert.equal(deno.links.length, 1);
        assert.equal(resolve(dir, deno.links[0]), resolve(ROOT));
        assert.deepEqual(Object.keys(deno.imports), ["hono", "valibot"]);
        assert.deepEqual(Object.keys(deno.tasks), ["start", "test"]);
        const config = await read(dir, "config.ts");
        assert.match(
          config,
          /v\.object\(\{\n\s+\.\.\.appConfigSchema\.entries,/,
        );
        assert.match(config, /from "@vendor\/kit\/config"/);
        const app = await read(dir, "app.ts");
        assert.match(app, /createConfiguration\(\{ schema \}\)/);
        assert.match(app, /app\.use\(kit\(\)\)/);
        assert.match(
          app,
          /serve: \(_services, config\) => routes\(config\)\.fetch/,
        );
        assert.doesNotMatch(app, /caching|Database/);
        assert.match(
          await read(dir, "main.ts"),
          /^await Application\.run\(appOptions\(\)\);$/m,
        );
        // The test: the test kit, requests in memory, a setting by colon key.
        const test = await read(dir, "app_test.ts");
        assert.match(
          test,
          /import \{ createTestApplication \} from "@vendor\/kit\/testing";/,
        );
        assert.match(test, /app\.request\("\/hello\/Ada"/);
        assert.match(test, /config: \{ "greeting:text": "Hi" \}/);
        const settings = JSON.parse(await read(dir, "appsettings.json"));
        assert.equal(settings.greeting.text, "Hello");
        assert.equal(settings.cache, undefined);
        const production = JSON.parse(
          await read(dir, "appsettings.production.json"),
        );
        assert.equal(
          production.logging.providers[1].options.filename,
          "logs/service.log",
        );
        const dockerfile = await read(dir, "Dockerfile");
        assert.match(
          dockerfile,
          /HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \\\n\s+CMD .*'http:\/\/127\.0\.0\.1:' \+ \(Deno\.env\.get\('PORT'\) \?\? '3000'\) \+ '\/health'/,
        );
        const compose = await read(dir, "compose.yaml");
        assert.match(compose, /- \.\/logs:\/app\/logs/);
        assert.doesNotMatch(compose, /postgres|redis|volumes:\n\s+[a-z]/);
        // The package name is npm-safe.
        assert.match(await read(dir, "README.md"), /^# my-service\n/);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "--redis --postgres: the cache and the database, in compose with named volumes and credentials from the environment",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const run = await create(cwd, ["svc", "--redis", "--postgres"]);
        assert.equal(run.code, 0, run.stderr);
        const dir = join(cwd, "svc");
        assert.ok((await listFiles(dir)).includes("db.ts"));
        const deno = JSON.parse(await read(dir, "deno.json"));
        assert.equal(deno.imports.pg, "npm:pg@^8.23.1");
        const app = await read(dir, "app.ts");
        assert.match(
          app,
          /RemoteStoreCacheProvider\.fromConfiguration\(config\)/,
        );
        assert.match(app, /from "@vendor\/kit\/caching"/);
        assert.match(app, /new Database\(/);
        assert.match(await read(dir, "db.ts"), /SELECT 1/);
        const compose = await read(dir, "compose.yaml");
        assert.match(
          compose,
          /DB_CONNECTION_STRING: postgres:\/\/\$\{DB_USER:\?set DB_USER\}:\$\{DB_PASSWORD:\?set DB_PASSWORD\}@db:5432\/svc/,
        );
        assert.match(
          compose,
          /POSTGRES_PASSWORD: \$\{DB_PASSWORD:\?set DB_PASSWORD\}/,
        );
        assert.match(compose, /REDIS_HOST: cache/);
        assert.match(compose, /- db-data:\/var\/lib\/postgresql\/data/);
        assert.match(compose, /- cache-data:\/data/);
        assert.ok(compose.includes("\nvolumes:\n  db-data:\n  cache-data:\n"));
        const env = await read(dir, ".env.example");
        assert.match(env, /^DB_USER=<DB_USER>$/m);
        assert.match(env, /^REDIS_HOST=localhost$/m);
        assert.doesNotMatch(env, /^[A-Z_]*PASSWORD=(?!<)/m);
        const settings = JSON.parse(await read(dir, "appsettings.json"));
        assert.equal(settings.cache.redis.keyPrefix, "svc:");
        // Formatted as deno fmt formats: a user's first `deno fmt` changes
        // nothing.
        assert.equal(await unformatted(dir), "");
        assert.equal(settings.database.poolSize, 10);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "Node.js: Kit's packages packed from the checkout, tsc to ES modules or CommonJS",
    { skip },
    async () => {
      const cwd = await scratch();
      const env = { KIT_NPM_OUT: join(cwd, "npm") };
      try {
        const esm = await create(
          cwd,
          ["esm", "--runtime", "node", "--redis"],
          env,
        );
        assert.equal(esm.code, 0, esm.stderr);
        assert.match(esm.stdout, /npm install\n\s+npm test\n\s+npm start/);
        const dir = join(cwd, "esm");
        const files = await listFiles(dir);
        for (
          const file of [
            "package.json",
            "tsconfig.json",
            "src/app.ts",
            "src/app.test.ts",
            "src/config.ts",
            "src/main.ts",
          ]
        ) assert.ok(files.includes(file), `${file} in ${files.join(", ")}`);
        const manifest = JSON.parse(await read(dir, "package.json"));
        assert.equal(manifest.type, "module");
        assert.equal(manifest.scripts.test, "node --test dist/app.test.js");
        assert.equal(manifest.scripts.start, "node dist/main.js");
        assert.deepEqual(
          Object.keys(manifest.dependencies).filter((name) =>
            name.startsWith("@vendor/")
          ),
          [
            "@vendor/kit-core",
            "@vendor/kit-platform",
            "@vendor/kit-platform-caching",
            "@vendor/kit-platform-configuration",
            "@vendor/kit-platform-logging",
          ],
        );
        for (const [name, spec] of Object.entries(manifest.dependencies)) {
          if (!name.startsWith("@vendor/")) continue;
          assert.match(spec as string, /^file:vendor\/kit-[a-z-]+\.tgz$/);
          assert.ok(
            existsSync(join(dir, (spec as string).slice(5))),
            `${spec}`,
          );
        }
        assert.ok(manifest.devDependencies.typescript);
        const app = await read(dir, "src/app.ts");
        assert.match(app, /from "@vendor\/kit-platform\/hono"/);
        assert.match(app, /from "\.\/config\.js"/);
        assert.match(
          await read(dir, "src/main.ts"),
          /^await Application\.run/m,
        );
        assert.match(
          await read(dir, "src/app.test.ts"),
          /import \{ createTestApplication \} from "@vendor\/kit-platform\/testing";/,
        );
        const dockerfile = await read(dir, "Dockerfile");
        assert.match(dockerfile, /COPY vendor\/ \.\/vendor\//);
        assert.match(dockerfile, /CMD \["node", "dist\/main\.js"\]/);
        assert.match(
          dockerfile,
          /--interval=30s --timeout=3s --start-period=5s --retries=3/,
        );
        // The probe follows PORT (3000 in the image), as the service does.
        assert.match(
          dockerfile,
          /CMD \["node", "-e", "fetch\('http:\/\/127\.0\.0\.1:' \+ \(process\.env\.PORT \|\| '3000'\) \+ '\/health'/,
        );

        assert.equal(await unformatted(dir), "");

        const cjs = await create(cwd, [
          "cjs",
          "--runtime=node",
          "--module=commonjs",
        ], env);
        assert.equal(cjs.code, 0, cjs.stderr);
        const cjsManifest = JSON.parse(
          await read(join(cwd, "cjs"), "package.json"),
        );
        assert.equal(cjsManifest.type, "commonjs");
        assert.equal(
          cjsManifest.dependencies["@vendor/kit-platform-caching"],
          undefined,
        );
        assert.match(
          await read(join(cwd, "cjs"), "src/main.ts"),
          /^void Application\.run\(appOptions\(\)\);$/m,
        );
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "depends on the ranges Kit itself is built and tested with",
    { skip },
    async () => {
      const source = await read(ROOT, "create/_versions.ts");
      const range = (name: string): string =>
        new RegExp(`"?${name.replace("/", "\\/")}"?: "([^"]+)"`).exec(
          source,
        )![1];
      const kit = JSON.parse(await read(ROOT, "deno.json")).imports;
      const example =
        JSON.parse(await read(ROOT, "examples/service/deno.json")).imports;
      assert.equal(`npm:hono@${range("hono")}`, kit.hono);
      assert.equal(`npm:valibot@${range("valibot")}`, kit.valibot);
      assert.equal(`npm:pg@${range("pg")}`, example.pg);
      assert.equal(
        `npm:typescript@${range("typescript").slice(1)}`,
        kit.typescript,
      );
      const denoVersion =
        (await read(ROOT, ".ci/deno_version")).match(/(\d+\.\d+\.\d+)/)![1];
      assert.match(
        source,
        new RegExp(`denoland/deno:${denoVersion.replaceAll(".", "\\.")}"`),
      );
    },
  );
});
