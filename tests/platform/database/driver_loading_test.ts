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
import { moduleUrl } from "../../_support/module_url.ts";
import { runWithModulesReplaced } from "../../_support/replaced_modules.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../../_support/limits.ts";

// The test waits on a child process: it has an explicit limit on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

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

interface Report {
  atImport: string[];
  afterConstruction: string[];
  afterEmbeddedQuery: string[];
  afterServerQuery: string[];
  errors: string[];
}

test("the database entry point loads a driver on its first use, not on import", async () => {
  const platform = moduleUrl("platform");
  const database = new URL(
    `database/mod.${platform.endsWith(".ts") ? "ts" : "js"}`,
    platform,
  ).href;
  const result = await runWithModulesReplaced(
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
    {
      pg: stubSource("pg"),
      "@electric-sql/pglite": stubSource("@electric-sql/pglite"),
    },
  );
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
});
