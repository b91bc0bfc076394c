// The database entry point loads its drivers (pg, @electric-sql/pglite) on
// their first use, never when it is imported: an application that imports
// @vendor/kit-platform/database (or the package's main entry) but has not
// made a query yet pays nothing for them, and one that only uses the
// embedded engine never loads pg. A child process of the runtime running
// the tests gets drivers that record their own loading on a global (an
// import map in Deno, a resolve hook in Node.js, a load plugin in Bun) and
// fail when used; it reports what was loaded after each step.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { moduleUrl } from "../../_support/module_url.ts";
import { runProcess } from "../../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../../_support/limits.ts";

// The test waits on a child process: it has an explicit limit on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const versions = process.versions as Record<string, string | undefined>;

const DRIVERS = {
  pg: "stub_pg.mjs",
  "@electric-sql/pglite": "stub_pglite.mjs",
} as const;

// A driver that records its loading, and whose use fails at once.
function stubSource(name: string): string {
  return `(globalThis.__kitDriversLoaded ??= []).push(${JSON.stringify(name)});
const unusable = () => new Error(${
    JSON.stringify(`${name} is a stub that records its loading (test)`)
  });
export class Pool { constructor() { throw unusable(); } }
export class PGlite { static create() { throw unusable(); } }
export default { Pool };
`;
}

// Arguments that give the child the recording drivers, for the runtime
// running this.
async function stubDriverArgs(dir: string): Promise<string[]> {
  const stubs: Record<string, string> = {};
  for (const [name, file] of Object.entries(DRIVERS)) {
    stubs[name] = join(dir, file);
    await writeFile(stubs[name], stubSource(name));
  }
  if (versions.deno !== undefined) {
    const config = new URL("../../../deno.json", import.meta.url);
    const { imports } = JSON.parse(await readFile(config, "utf8")) as {
      imports: Record<string, string>;
    };
    const absolute: Record<string, string> = {};
    for (const [name, target] of Object.entries(imports)) {
      absolute[name] = target.startsWith(".")
        ? new URL(target, config).href
        : target;
    }
    for (const [name, file] of Object.entries(stubs)) {
      absolute[name] = pathToFileURL(file).href;
    }
    const map = join(dir, "import_map.json");
    await writeFile(map, JSON.stringify({ imports: absolute }));
    return [
      "run",
      "-A",
      "--config",
      fileURLToPath(config),
      "--import-map",
      map,
    ];
  }
  if (versions.bun !== undefined) {
    // Every file of the installed driver packages (the npm passes install
    // both) is the stub, so their entry points are too.
    const preload = join(dir, "preload.mjs");
    await writeFile(
      preload,
      `import { readFileSync } from "node:fs";
Bun.plugin({
  name: "recording-drivers",
  setup(build) {
    build.onLoad({ filter: /[\\\\/]node_modules[\\\\/]pg[\\\\/].*\\.js$/ }, () => ({
      contents: readFileSync(${JSON.stringify(stubs.pg)}, "utf8"),
      loader: "js",
    }));
    build.onLoad({ filter: /[\\\\/]node_modules[\\\\/]@electric-sql[\\\\/]pglite[\\\\/].*\\.js$/ }, () => ({
      contents: readFileSync(${
        JSON.stringify(stubs["@electric-sql/pglite"])
      }, "utf8"),
      loader: "js",
    }));
  },
});
`,
    );
    return ["--preload", preload];
  }
  const urls = Object.fromEntries(
    Object.entries(stubs).map(([name, file]) => [
      name,
      pathToFileURL(file).href,
    ]),
  );
  const hook = `const stubs = ${JSON.stringify(urls)};
export async function resolve(specifier, context, next) {
  if (Object.hasOwn(stubs, specifier)) {
    return { url: stubs[specifier], shortCircuit: true };
  }
  return next(specifier, context);
}`;
  const register = join(dir, "register.mjs");
  await writeFile(
    register,
    `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));
`,
  );
  return ["--import", pathToFileURL(register).href];
}

interface Report {
  atImport: string[];
  afterConstruction: string[];
  afterEmbeddedQuery: string[];
  afterServerQuery: string[];
  errors: string[];
}

test("the database entry point loads a driver on its first use, not on import", async () => {
  const dir = await mkdtemp(join(tmpdir(), "kit-driver-load-"));
  try {
    const platform = moduleUrl("platform");
    const database = new URL(
      `database/mod.${platform.endsWith(".ts") ? "ts" : "js"}`,
      platform,
    ).href;
    const script = join(dir, "child.mjs");
    await writeFile(
      script,
      `const loaded = () => [...(globalThis.__kitDriversLoaded ?? [])];
await import(${JSON.stringify(platform)});
const { Database } = await import(${JSON.stringify(database)});
const atImport = loaded();
const errors = [];
const embedded = new Database({ connectionString: "pglite:memory" });
const server = new Database({ connectionString: "postgres://kit@127.0.0.1:9/kit" });
const afterConstruction = loaded();
await embedded.query("SELECT 1").then(() => errors.push("no error"), (error) => errors.push(String(error?.message)));
const afterEmbeddedQuery = loaded();
await server.query("SELECT 1").then(() => errors.push("no error"), (error) => errors.push(String(error?.message)));
const afterServerQuery = loaded();
console.log(JSON.stringify({ atImport, afterConstruction, afterEmbeddedQuery, afterServerQuery, errors }));
process.exit(0);
`,
    );
    const args = [...await stubDriverArgs(dir), script];
    const result = await runProcess(process.execPath, args);
    assert.equal(result.code, 0, result.out);
    const report = JSON.parse(
      result.out.trim().split("\n").at(-1)!,
    ) as Report;
    assert.deepEqual(report.atImport, [], result.out);
    assert.deepEqual(report.afterConstruction, [], result.out);
    assert.deepEqual(
      report.afterEmbeddedQuery,
      ["@electric-sql/pglite"],
      result.out,
    );
    assert.deepEqual(
      report.afterServerQuery,
      ["@electric-sql/pglite", "pg"],
      result.out,
    );
    // Each first query reached the driver it loaded (the stub's failure).
    assert.equal(report.errors.length, 2, result.out);
    assert.match(report.errors[0], /@electric-sql\/pglite is a stub/);
    assert.match(report.errors[1], /pg is a stub/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
