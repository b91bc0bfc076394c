// The project generator (`deno task create`), run as a user runs it: a child
// process in a scratch folder. Under Node.js and Bun (the npm passes) there
// is no checkout task to run: the generator's npm package is checked by
// scripts/create_check.ts instead.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import {
  chmod,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
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

// A Node.js project from the checkout: the generator builds Kit's eight npm
// packages in a child first (about a minute on a busy machine).
const PACK_LIMIT = 240_000;
// One from a build already made (KIT_NPM_REUSE=1): the sources hashed and
// the eight packages packed.
const REUSE_LIMIT = 120_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the generator in `cwd` with `env` over the test's environment (a
 * variable set to undefined is removed); fails after `limit` (60 s; a
 * Node.js project from the checkout builds Kit's npm packages first:
 * PACK_LIMIT).
 */
function create(
  cwd: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  limit = 60_000,
): Promise<Run> {
  // A variable given as undefined is left out of the child's environment.
  const childEnv: Record<string, string> = {};
  for (
    const [name, value] of Object.entries({
      ...process.env,
      ...env,
      INIT_CWD: cwd,
      NO_COLOR: "1",
    })
  ) if (value !== undefined) childEnv[name] = value;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["run", "-A", MAIN, ...args], {
      cwd,
      env: childEnv,
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
      reject(
        new Error(
          `create ${args.join(" ")} ran over ${limit / 1000} s:\n${stderr}`,
        ),
      );
    }, limit);
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

describe("deno task create --force: links in the folder", () => {
  it(
    "refuses a link that leads out of the folder, a file's or a folder's, naming each, and writes nothing",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const victim = join(cwd, "victim");
        await mkdir(join(victim, "private_dir"), { recursive: true });
        await chmod(join(victim, "private_dir"), 0o700);
        await writeFile(join(victim, "precious.txt"), "precious\n");
        const app = join(cwd, "app");
        await mkdir(app);
        await symlink("../victim/precious.txt", join(app, "README.md"));
        await symlink("../victim/private_dir", join(app, "logs"));
        const run = await create(cwd, ["app", "--force"]);
        assert.equal(run.code, 1, run.stdout + run.stderr);
        assert.match(
          run.stderr,
          /error: --force replaces what is in 'app', never what a link there leads to outside it: README\.md -> \.\.\/victim\/precious\.txt, logs -> \.\.\/victim\/private_dir\. Remove (these|this) links?, or choose another folder; nothing was written\./,
        );
        assert.equal(
          await readFile(join(victim, "precious.txt"), "utf8"),
          "precious\n",
        );
        assert.equal(
          (await stat(join(victim, "private_dir"))).mode & 0o777,
          0o700,
        );
        assert.deepEqual(await readdir(join(victim, "private_dir")), []);
        assert.deepEqual((await readdir(app)).sort(), ["README.md", "logs"]);
        assert.equal(
          await readlink(join(app, "README.md")),
          "../victim/precious.txt",
        );

        // Node.js from a checkout: Kit's packages go to vendor/, checked too.
        await symlink("../victim/private_dir", join(app, "vendor"));
        const node = await create(cwd, ["app", "--force", "--runtime", "node"]);
        assert.equal(node.code, 1, node.stdout + node.stderr);
        assert.match(
          node.stderr,
          /: README\.md -> \.\.\/victim\/precious\.txt, logs -> \.\.\/victim\/private_dir, vendor -> \.\.\/victim\/private_dir\. /,
        );
        assert.deepEqual(await readdir(join(victim, "private_dir")), []);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "replaces a link that stays inside the folder, and a hard-linked file, keeping what they led to",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const app = join(cwd, "app");
        await mkdir(join(app, "docs"), { recursive: true });
        await mkdir(join(app, "kept_logs"));
        await chmod(join(app, "kept_logs"), 0o750);
        await writeFile(join(app, "docs", "notes.md"), "notes\n");
        await symlink("docs/notes.md", join(app, "README.md"));
        await symlink("kept_logs", join(app, "logs"));
        // A hard link shares the file's content: writing into it would
        // change the file outside the folder too.
        await writeFile(join(cwd, "shared.txt"), "shared\n");
        await link(join(cwd, "shared.txt"), join(app, "Dockerfile"));
        const run = await create(cwd, ["app", "--force"]);
        assert.equal(run.code, 0, run.stderr);
        assert.match(
          run.stdout,
          /Replaced the link README\.md -> docs\/notes\.md\./,
        );
        assert.match(run.stdout, /Replaced the link logs -> kept_logs\./);
        assert.equal((await lstat(join(app, "README.md"))).isFile(), true);
        assert.match(await read(app, "README.md"), /^# app\n/);
        assert.equal(await read(app, "docs/notes.md"), "notes\n");
        assert.equal((await lstat(join(app, "logs"))).isDirectory(), true);
        assert.deepEqual(await readdir(join(app, "logs")), [".gitkeep"]);
        assert.equal((await stat(join(app, "logs"))).mode & 0o777, 0o777);
        assert.deepEqual(await readdir(join(app, "kept_logs")), []);
        assert.equal(
          (await stat(join(app, "kept_logs"))).mode & 0o777,
          0o750,
        );
        assert.match(await read(app, "Dockerfile"), /^FROM /m);
        assert.equal(await read(cwd, "shared.txt"), "shared\n");
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "keeps the mode of a log folder that was there, and says how to open it",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const app = join(cwd, "app");
        await mkdir(join(app, "logs"), { recursive: true });
        await chmod(join(app, "logs"), 0o750);
        const run = await create(cwd, ["app", "--force"]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal((await stat(join(app, "logs"))).mode & 0o777, 0o750);
        assert.deepEqual(await readdir(join(app, "logs")), [".gitkeep"]);
        assert.match(
          run.stdout,
          /Kept the mode of the folder logs, which was there \(750\): the container's user must be able to write its log file into it \(chmod 777 logs\)\./,
        );
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
        assert.match(
          app,
          /serve: \(_services, config\) => kit\(routes\(config\)\),/,
        );
        assert.doesNotMatch(app, /app\.use\(kit\(\)\)/);
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
    "--redis --postgres: the cache, and the database through Kit's addDatabase with a migration, PGlite in development, in compose with named volumes and credentials from the environment",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const run = await create(cwd, ["svc", "--redis", "--postgres"]);
        assert.equal(run.code, 0, run.stderr);
        const dir = join(cwd, "svc");
        const files = await listFiles(dir);
        for (const file of ["migrate.ts", "migrations/001_create_notes.sql"]) {
          assert.ok(files.includes(file), `${file} in ${files.join(", ")}`);
        }
        // No pool code of its own: Kit's database entry point is the pool.
        assert.ok(!files.includes("db.ts"), files.join(", "));
        for (const file of files.filter((name) => name.endsWith(".ts"))) {
          assert.doesNotMatch(
            await read(dir, file),
            /from "pg"|pg\.Pool/,
            `${file} uses pg itself`,
          );
        }
        const deno = JSON.parse(await read(dir, "deno.json"));
        assert.equal(deno.imports.pg, "npm:pg@^8.23.1");
        assert.equal(deno.imports["@types/pg"], "npm:@types/pg@^8.23.1");
        assert.equal(
          deno.imports["@electric-sql/pglite"],
          "npm:@electric-sql/pglite@^0.5.17",
        );
        assert.equal(deno.tasks.migrate, "deno run -A migrate.ts");
        const app = await read(dir, "app.ts");
        assert.match(
          app,
          /RemoteStoreCacheProvider\.fromConfiguration\(config\)/,
        );
        assert.match(app, /from "@vendor\/kit\/caching"/);
        assert.match(app, /from "@vendor\/kit\/platform\/database"/);
        assert.match(
          app,
          /platform: \(services, config\) =>\n\s+addDatabase\(services, config, \{ migrations: "migrations" \}\),/,
        );
        // The routes read through the request's session, typed by the
        // chain addDatabase returned: no service map, no type argument.
        assert.match(app, /await db\(\)\.query<Note>\(/);
        assert.match(
          app,
          /serve: \(services, config\) => kit\(routes\(config, \(\) => services\.get\("db"\)\)\),/,
        );
        assert.match(app, /return defineApplication\(\{/);
        assert.doesNotMatch(app, /Record<string, unknown>|get<\w+>\("/);
        assert.match(
          app,
          /services: \(services, config\) =>\n(\s+\/\/.*\n)*\s+services\.register\("cache"/,
        );
        assert.match(
          await read(dir, "migrations/001_create_notes.sql"),
          /^CREATE TABLE notes \(/m,
        );
        const migrate = await read(dir, "migrate.ts");
        assert.match(migrate, /Database\.fromConfiguration\(config\)/);
        assert.match(migrate, /db\.migrate\(\{ directory: "migrations" \}\)/);
        assert.match(migrate, /await db\?\.dispose\(\)/);
        assert.match(migrate, /^process\.exitCode = await migrate\(\);$/m);
        // The test on the embedded engine, each test's writes rolled back.
        const test = await read(dir, "app_test.ts");
        assert.match(
          test,
          /createTestDatabase\(\{ migrations: "migrations" \}\)/,
        );
        assert.match(test, /overrides: \{ database: \(\) => db \}/);
        assert.match(test, /app\.request\("\/notes"/);
        // The connection string stays required by the schema: development
        // sets the embedded engine, production DB_CONNECTION_STRING.
        assert.doesNotMatch(
          await read(dir, "config.ts"),
          /connectionString: v\.optional/,
        );
        const settings = JSON.parse(await read(dir, "appsettings.json"));
        assert.equal(settings.database.connectionString, undefined);
        assert.equal(settings.database.poolSize, 10);
        const development = JSON.parse(
          await read(dir, "appsettings.development.json"),
        );
        assert.equal(
          development.database.connectionString,
          "pglite:.data/database",
        );
        const production = JSON.parse(
          await read(dir, "appsettings.production.json"),
        );
        assert.equal(production.database?.connectionString, undefined);
        const gitignore = (await read(dir, ".gitignore")).split("\n");
        assert.ok(gitignore.includes(".data/"), gitignore.join(" "));
        const dockerignore = (await read(dir, ".dockerignore")).split("\n");
        assert.ok(dockerignore.includes(".data/"), dockerignore.join(" "));
        assert.match(
          await read(dir, "Dockerfile"),
          /^COPY migrations\/ \.\/migrations\/$/m,
        );
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
        // Copied to .env in development, it keeps the embedded engine.
        assert.match(env, /^# DB_CONNECTION_STRING=postgres:\/\//m);
        assert.match(env, /^REDIS_HOST=localhost$/m);
        assert.doesNotMatch(env, /^[A-Z_]*PASSWORD=(?!<)/m);
        assert.equal(settings.cache.redis.keyPrefix, "svc:");
        const readme = await read(dir, "README.md");
        assert.match(readme, /`deno task migrate`/);
        assert.match(readme, /`pglite:\.data\/database`/);
        assert.doesNotMatch(readme, /db\.ts/);
        // Formatted as deno fmt formats: a user's first `deno fmt` changes
        // nothing.
        assert.equal(await unformatted(dir), "");
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "Node.js: Kit's packages packed from the checkout, tsc to ES modules or CommonJS",
    // Two generated projects from one build of Kit's npm packages: the
    // first builds them (there is no build in its KIT_NPM_OUT yet), the
    // second, asked to reuse an up-to-date build, packs that one.
    { skip, timeout: PACK_LIMIT + REUSE_LIMIT + 60_000 },
    async () => {
      const cwd = await scratch();
      const npmOut = join(cwd, "npm");
      const env = { KIT_NPM_OUT: npmOut, KIT_NPM_REUSE: "1" };
      try {
        const esm = await create(
          cwd,
          ["esm", "--runtime", "node", "--redis"],
          env,
          PACK_LIMIT,
        );
        assert.equal(esm.code, 0, esm.stderr);
        assert.ok(
          esm.stdout.includes(
            `Kit's npm packages: building into ${npmOut}, since the build there cannot be reused: it has no .kit-build.json (no complete build there).`,
          ),
          esm.stdout,
        );
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
        // All eight are packed: one not imported yet is an npm install of
        // its file away, as the README says.
        assert.deepEqual(
          (await readdir(join(dir, "vendor"))).sort(),
          [
            "kit-core.tgz",
            "kit-platform-analytics.tgz",
            "kit-platform-caching.tgz",
            "kit-platform-configuration.tgz",
            "kit-platform-http.tgz",
            "kit-platform-localization.tgz",
            "kit-platform-logging.tgz",
            "kit-platform.tgz",
          ],
        );
        assert.match(
          await read(dir, "README.md"),
          /npm install \.\/vendor\/kit-platform-http\.tgz/,
        );
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

        const cjs = await create(
          cwd,
          [
            "cjs",
            "--runtime=node",
            "--module=commonjs",
            "--postgres",
          ],
          env,
          REUSE_LIMIT,
        );
        assert.equal(cjs.code, 0, cjs.stderr);
        assert.ok(
          cjs.stdout.includes(
            `Kit's npm packages: packed the build in ${npmOut}, made from the checkout's sources as they are now (KIT_NPM_REUSE=1).`,
          ),
          cjs.stdout,
        );
        // The same eight packages, packed again from that build.
        const packs = (await readdir(join(dir, "vendor"))).sort();
        assert.deepEqual(
          (await readdir(join(cwd, "cjs", "vendor"))).sort(),
          packs,
        );
        for (const pack of packs) {
          assert.deepEqual(
            await readFile(join(cwd, "cjs", "vendor", pack)),
            await readFile(join(dir, "vendor", pack)),
            pack,
          );
        }
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
        // With PostgreSQL: the drivers Kit's database loads (PGlite for
        // development and tests only), and the migrate command.
        assert.equal(cjsManifest.dependencies.pg, "^8.23.1");
        assert.equal(
          cjsManifest.devDependencies["@electric-sql/pglite"],
          "^0.5.17",
        );
        assert.equal(cjsManifest.devDependencies["@types/pg"], "^8.23.1");
        assert.equal(cjsManifest.scripts.migrate, "node dist/migrate.js");
        assert.equal(cjsManifest.scripts.premigrate, "npm run build");
        assert.match(
          await read(join(cwd, "cjs"), "src/migrate.ts"),
          /^void migrate\(\)\.then\(\(code\) => \{$/m,
        );
        const cjsDockerfile = await read(join(cwd, "cjs"), "Dockerfile");
        assert.match(cjsDockerfile, /^COPY migrations\/ \.\/migrations\/$/m);
        assert.match(
          await read(join(cwd, "cjs"), "README.md"),
          /`npm run migrate`/,
        );
        assert.equal(await unformatted(join(cwd, "cjs")), "");
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
      // The TypeScript compiler is a development dependency of Kit.
      const dev = JSON.parse(await read(ROOT, "deno.dev.json")).imports;
      assert.equal(`npm:hono@${range("hono")}`, kit.hono);
      assert.equal(`npm:valibot@${range("valibot")}`, kit.valibot);
      assert.equal(`npm:pg@${range("pg")}`, kit.pg);
      assert.equal(
        `npm:@electric-sql/pglite@${range("@electric-sql/pglite")}`,
        kit["@electric-sql/pglite"],
      );
      assert.equal(
        `npm:typescript@${range("typescript").slice(1)}`,
        dev.typescript,
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

// What a build of the npm packages records of its sources
// (scripts/_build_stamp.ts), by which KIT_NPM_REUSE=1 tells an up-to-date
// build from a stale one.
interface BuildStamps {
  STAMP_FILE: string;
  sourcesStamp(
    root: string,
    out: string,
    env?: Record<string, string | undefined>,
  ): Promise<{ sources: string; files: number }>;
  whyNotCurrent(
    root: string,
    out: string,
    env?: Record<string, string | undefined>,
  ): Promise<string | undefined>;
}

function buildStamps(): Promise<BuildStamps> {
  return import(
    new URL("../../scripts/_build_stamp.ts", import.meta.url).href
  ) as Promise<BuildStamps>;
}

describe("deno task create --runtime node: KIT_NPM_REUSE", () => {
  it(
    "a build's stamp follows every source file and build setting, not the tests",
    { skip },
    async () => {
      const { STAMP_FILE, sourcesStamp, whyNotCurrent } = await buildStamps();
      const root = await scratch();
      try {
        await mkdir(join(root, "core"), { recursive: true });
        await mkdir(join(root, "tests", "core"), { recursive: true });
        await mkdir(join(root, ".git"), { recursive: true });
        await writeFile(join(root, "deno.json"), '{ "version": "1.0.0" }\n');
        await writeFile(join(root, "core", "mod.ts"), "export const a = 1;\n");
        await writeFile(join(root, "tests", "core", "a_test.ts"), "// a\n");
        const out = join(root, "npm-out");
        await mkdir(join(out, "kit-core"), { recursive: true });
        const env = { KIT_NPM_REGISTRY: undefined };
        const first = await sourcesStamp(root, out, env);
        assert.match(first.sources, /^[0-9a-f]{64}$/);
        // deno.json and core/mod.ts: not the tests, .git or the build.
        assert.equal(first.files, 2);
        await writeFile(join(out, STAMP_FILE), JSON.stringify(first));
        assert.equal(await whyNotCurrent(root, out, env), undefined);

        // Neither the tests, nor what git keeps, nor the build itself.
        await writeFile(join(root, "tests", "core", "a_test.ts"), "// b\n");
        await writeFile(join(root, ".git", "HEAD"), "ref\n");
        await writeFile(join(out, "kit-core", "package.json"), "{}\n");
        assert.equal(
          (await sourcesStamp(root, out, env)).sources,
          first.sources,
        );

        // A setting that changes what the build writes.
        assert.notEqual(
          (await sourcesStamp(root, out, {
            KIT_NPM_REGISTRY: "https://registry.example.test/",
          })).sources,
          first.sources,
        );
        // A source changed, added, or moved.
        await writeFile(join(root, "core", "mod.ts"), "export const a = 2;\n");
        assert.equal(
          await whyNotCurrent(root, out, env),
          "it was made from other sources or settings than the checkout's now",
        );
        await writeFile(join(root, "core", "mod.ts"), "export const a = 1;\n");
        assert.equal(await whyNotCurrent(root, out, env), undefined);
        await mkdir(join(root, "cli"));
        await writeFile(join(root, "cli", "main.ts"), "\n");
        assert.notEqual(
          (await sourcesStamp(root, out, env)).sources,
          first.sources,
        );
        await rm(join(out, STAMP_FILE));
        assert.equal(
          await whyNotCurrent(root, out, env),
          `it has no ${STAMP_FILE} (no complete build there)`,
        );
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    },
  );

  it(
    "builds rather than pack a build made from other sources, and says why; without it, always builds",
    { skip, timeout: 2 * REUSE_LIMIT + 30_000 },
    async () => {
      const { STAMP_FILE, sourcesStamp } = await buildStamps();
      const cwd = await scratch();
      try {
        const npmOut = join(cwd, "npm");
        await mkdir(npmOut);
        // The build this test starts stops at once, on a variants file that
        // is not there, instead of building for a minute: its failure shows
        // the generator building rather than packing what is in npmOut.
        const env = {
          KIT_NPM_OUT: npmOut,
          KIT_NPM_VARIANTS: join(cwd, "missing_variants.json"),
        };
        const built =
          /building Kit's npm packages \(deno run -A --config deno\.dev\.json scripts\/build_npm\.ts\) failed[^]*missing_variants\.json/;
        // A stamp of the checkout as it is now, but other sources.
        const current = await sourcesStamp(ROOT, npmOut, env);
        await writeFile(
          join(npmOut, STAMP_FILE),
          JSON.stringify({ ...current, sources: "0".repeat(64) }),
        );
        const stale = await create(
          cwd,
          ["stale", "--runtime", "node"],
          { ...env, KIT_NPM_REUSE: "1" },
          REUSE_LIMIT,
        );
        assert.equal(stale.code, 1, stale.stdout + stale.stderr);
        assert.ok(
          stale.stdout.includes(
            `Kit's npm packages: building into ${npmOut}, since the build there cannot be reused: it was made from other sources or settings than the checkout's now.`,
          ),
          stale.stdout,
        );
        assert.match(stale.stderr, built);
        assert.deepEqual(await readdir(join(cwd, "stale", "vendor")), []);

        // Without KIT_NPM_REUSE, even a stamp that matches is not looked at.
        await writeFile(join(npmOut, STAMP_FILE), JSON.stringify(current));
        const plain = await create(
          cwd,
          ["plain", "--runtime", "node"],
          { ...env, KIT_NPM_REUSE: undefined },
          REUSE_LIMIT,
        );
        assert.equal(plain.code, 1, plain.stdout + plain.stderr);
        // It says it builds, and where, before the minute the build takes.
        assert.ok(
          plain.stdout.includes(
            `Kit's npm packages: building into ${npmOut} (KIT_NPM_OUT to build elsewhere; KIT_NPM_REUSE=1 to pack a build there that is up to date)…`,
          ),
          plain.stdout,
        );
        assert.doesNotMatch(plain.stdout, /packed the build|cannot be reused/);
        assert.match(plain.stderr, built);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );

  it(
    "refuses a value other than 1 or 0, naming the variable, and writes nothing",
    { skip },
    async () => {
      const cwd = await scratch();
      try {
        const run = await create(cwd, ["app", "--runtime", "node"], {
          KIT_NPM_REUSE: "yes",
          // Were the value taken, the build would stop at once.
          KIT_NPM_OUT: join(cwd, "npm"),
          KIT_NPM_VARIANTS: join(cwd, "missing_variants.json"),
        });
        assert.equal(run.code, 2, run.stdout + run.stderr);
        assert.equal(
          run.stderr.trim(),
          "error: KIT_NPM_REUSE is 'yes': set it to 1 to pack the build in KIT_NPM_OUT (or npm/) when it is up to date with the checkout, or to 0 (or leave it unset) to build Kit's packages.",
        );
        assert.deepEqual(await readdir(cwd), []);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  );
});
