// The TypeScript sources of a generated project: the settings schema, the
// application's start-up and routes, the entry point, the test and, with
// PostgreSQL, the migrate command and the first migration (the pool, its
// health check and its disposal are Kit's: addDatabase). One text serves
// Deno and Node.js; only the import specifiers and the entry points' last
// lines differ.
import type { CreateOptions } from "./_options.ts";

/** What the source templates need to know. */
export type SourceContext = Pick<
  CreateOptions,
  "runtime" | "module" | "redis" | "postgres"
>;

const NPM_NAMES: Record<string, string> = {
  platform: "@vendor/kit-platform",
  "platform/hono": "@vendor/kit-platform/hono",
  "platform/database": "@vendor/kit-platform/database",
  config: "@vendor/kit-platform-configuration",
  logging: "@vendor/kit-platform-logging",
  caching: "@vendor/kit-platform-caching",
};

/** The npm packages of Kit a Node.js project imports. */
export function kitPackages(ctx: SourceContext): string[] {
  return [
    "@vendor/kit-platform",
    "@vendor/kit-platform-configuration",
    "@vendor/kit-platform-logging",
    ...(ctx.redis ? ["@vendor/kit-platform-caching"] : []),
  ];
}

function kit(ctx: SourceContext, module: string): string {
  return ctx.runtime === "deno" ? `@vendor/kit/${module}` : NPM_NAMES[module];
}

function local(ctx: SourceContext, file: string): string {
  return `./${file}${ctx.runtime === "deno" ? ".ts" : ".js"}`;
}

/**
 * An import declaration as \`deno fmt\` writes it: on one line when it fits
 * in 80 columns, else one name a line.
 */
function importLine(names: readonly string[], from: string): string {
  const one = `import { ${names.join(", ")} } from "${from}";`;
  return one.length <= 80
    ? one
    : `import {\n${
      names.map((name) => `  ${name},\n`).join("")
    }} from "${from}";`;
}

/** `config.ts`: Kit's schema extended with the service's own section. */
export function configSource(ctx: SourceContext): string {
  const sections = ctx.postgres
    ? `const { api } = appConfigSchema.entries;

/** Kit's configuration schema plus the service's own sections. */
export const schema = v.object({
  ...appConfigSchema.entries,
  // Kit requires an API address; this service calls no API (add it back
  // when it does). Kit's database section stays as it is: the connection
  // string is required, set by appsettings.development.json (the embedded
  // engine) in development and by DB_CONNECTION_STRING in production.
  api: v.optional(api),`
    : `const { database, api } = appConfigSchema.entries;

/** Kit's configuration schema plus the service's own sections. */
export const schema = v.object({
  ...appConfigSchema.entries,
  // Kit requires a database and an API address; this service runs without
  // them (add them back when it needs them).
  database: v.optional(
    v.object({
      ...database.entries,
      connectionString: v.optional(v.string(), ""),
    }),
    {},
  ),
  api: v.optional(api),`;
  return `// The service's settings: Kit's sections (logging, database, api, …) and
// one of its own, "greeting". Values from the environment are coerced to the
// schema's types (APP_GREETING__TEXT=Hi), and a bad value fails start-up
// naming the key and where it came from.
import * as v from "valibot";
${
    importLine(
      ["appConfigSchema", "type ConfigurationManager"],
      kit(ctx, "config"),
    )
  }

${sections}
  // Add your own sections here.
  greeting: v.optional(
    v.object({
      text: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1)), "Hello"),
    }),
    {},
  ),
});

/** The configuration, typed by {@linkcode schema}. */
export type Configuration = ConfigurationManager<v.InferOutput<typeof schema>>;
`;
}

/** The migrations folder of a project with PostgreSQL. */
export const MIGRATIONS_FOLDER = "migrations";

/** The first migration (with PostgreSQL): the table of the notes routes. */
export function notesMigrationSource(): string {
  return `-- The notes of GET and POST /notes. The service applies the files of this
-- folder at start-up, in the order of their numbers, each once (also when
-- several instances start together), and records them in kit_migrations.
-- A file that was applied is never edited: make the next change in
-- 002_<what>.sql.
CREATE TABLE notes (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  text text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 1000),
  created_at timestamptz NOT NULL DEFAULT now()
);
`;
}

/** `migrate.ts` (with PostgreSQL): applies the migrations, then exits. */
export function migrateSource(ctx: SourceContext): string {
  const command = ctx.runtime === "deno"
    ? "deno task migrate"
    : "npm run migrate";
  const run = ctx.runtime === "node" && ctx.module === "commonjs"
    // CommonJS has no top-level await.
    ? "void migrate().then((code) => {\n  process.exitCode = code;\n});"
    : "process.exitCode = await migrate();";
  return `// \`${command}\`: applies the pending migrations of ${MIGRATIONS_FOLDER}/ to the
// database the configuration names (DB_CONNECTION_STRING, or
// database:connectionString in appsettings.<RUNTIME_ENV>.json), then exits:
// 0 when they are applied, 1 with the reason otherwise. The service applies
// them at start-up too; run this to apply them before a deploy. With the
// embedded engine, stop the service first: its folder serves one process.
import process from "node:process";
import { Database } from "${kit(ctx, "platform/database")}";
import { createConfiguration } from "${kit(ctx, "config")}";
import { schema } from "${local(ctx, "config")}";

/** Applies the migrations and answers the exit code. */
async function migrate(): Promise<number> {
  let db: Database | undefined;
  try {
    const config = await createConfiguration({ schema });
    db = Database.fromConfiguration(config);
    const report = await db.migrate({ directory: "${MIGRATIONS_FOLDER}" });
    console.log(
      \`\${db.address}: \${report.applied.length} migration(s) applied\${
        report.applied.length > 0 ? \` (\${report.applied.join(", ")})\` : ""
      }, \${report.alreadyApplied} applied before\`,
    );
    return 0;
  } catch (error) {
    console.error(
      \`Migrations not applied: \${
        error instanceof Error ? error.message : String(error)
      }\`,
    );
    return 1;
  } finally {
    await db?.dispose();
  }
}

${run}
`;
}

/** `app.ts`: the start-up steps and the routes. */
export function appSource(ctx: SourceContext): string {
  const imports = [
    `import { Hono } from "hono";`,
    importLine(
      [
        "defineApplication",
        "RequestContext",
      ],
      kit(ctx, "platform"),
    ),
    `import { kit } from "${kit(ctx, "platform/hono")}";`,
    ...(ctx.postgres
      ? [
        importLine(
          ["addDatabase", "type DatabaseSession"],
          kit(ctx, "platform/database"),
        ),
      ]
      : []),
    `import { createConfiguration } from "${kit(ctx, "config")}";`,
    `import { LoggerManager } from "${kit(ctx, "logging")}";`,
    ...(ctx.redis
      ? [
        `import {\n  CacheManager,\n  MemoryCacheProvider,\n  RemoteStoreCacheProvider,\n} from "${
          kit(ctx, "caching")
        }";`,
      ]
      : []),
    `import { type Configuration, schema } from "${local(ctx, "config")}";`,
  ];
  const services: string[] = [];
  if (ctx.redis) {
    services.push(
      `    // Redis when REDIS_HOST is set, else memory. Created at start-up, so
    // /health reports it: degraded (still 200) while Redis is down, when the
    // cache runs on misses.
    services.register("cache", () =>
      new CacheManager(
        config.getValue<string>("cache:redis:host", "") !== ""
          ? RemoteStoreCacheProvider.fromConfiguration(config)
          : new MemoryCacheProvider(),
      ), { eager: true })`,
    );
  }
  const notes = ctx.postgres
    ? `

/** A row of the table notes (${MIGRATIONS_FOLDER}/001_create_notes.sql). */
interface Note {
  id: number;
  text: string;
  createdAt: Date;
}`
    : "";
  const notesRoutes = ctx.postgres
    ? `
  // The notes, through the request's session (\`db()\`): it takes one of
  // the pool's connections at its first statement and gives it back when
  // the response is done.
  app.get("/notes", async (c) => {
    const { rows } = await db().query<Note>(
      \`SELECT id, text, created_at AS "createdAt" FROM notes
       ORDER BY id DESC LIMIT 50\`,
    );
    return c.json({ notes: rows });
  });
  app.post("/notes", async (c) => {
    const body: unknown = await c.req.json().catch(() => undefined);
    const given = (body as { text?: unknown } | undefined)?.text;
    const text = typeof given === "string" ? given.trim() : "";
    if (text === "" || text.length > 1000) {
      return c.json({
        message: 'The body must be {"text": "…"}: 1 to 1000 characters',
      }, 400);
    }
    const { rows } = await db().query<Note>(
      \`INSERT INTO notes (text) VALUES ($1)
       RETURNING id, text, created_at AS "createdAt"\`,
      [text],
    );
    return c.json(rows[0], 201);
  });`
    : "";
  return `// The service: Kit's four start-up steps, then the routes the host serves.
// The host mounts /health, /health/live and /health/ready itself, gives
// every request an id, logs one access line per request and drains on
// SIGTERM.
${imports.join("\n")}${notes}

/**
 * The routes, a plain Hono app; \`serve\` below hands it to the host through
 * \`kit()\`: a route that throws answers 500 with the request id (the error
 * goes to the log, not to the client), and the route template names the
 * request in the access line.
 */
export function routes(${
    ctx.postgres
      ? "\n  config: Configuration,\n  db: () => DatabaseSession,\n"
      : "config: Configuration"
  }): Hono {
  const app = new Hono();
  app.get("/hello/:name", (c) =>
    c.json({
      message: \`\${config.getValue("greeting:text")}, \${c.req.param("name")}!\`,
      requestId: RequestContext.current()?.requestId,
    }));${notesRoutes}
  return app;
}

/**
 * The service's start-up, for \`Application.run\` (main) and tests. Each step
 * returns its chain of registrations, so every service it registers is typed
 * in the steps after it, in \`serve\` and in \`app.services\`: no service map
 * to write, and a misspelt name does not compile.
 */
export function appOptions() {
  return defineApplication({
    // Step 1: appsettings.json, appsettings.<RUNTIME_ENV>.json, .env and
    // the environment, checked against the schema.
    configuration: () => createConfiguration({ schema }),
    // Step 2: logging from logging:level and logging:providers.
    logging: (config) => LoggerManager.fromConfiguration(config),${
    ctx.postgres
      ? `
    // Step 3: the database of database:connectionString ("database"),
    // opened at start-up with the migrations of ${MIGRATIONS_FOLDER}/ applied,
    // checked by /health (readiness is 503 while it cannot be reached) and
    // closed last on shutdown; and "db", a session per request.
    platform: (services, config) =>
      addDatabase(services, config, { migrations: "${MIGRATIONS_FOLDER}" }),`
      : ""
  }
${
    services.length > 0
      ? `    // Step 4: the service's own services, chained.
    services: (services, config) =>
${
        // Each block is written for the step's body, one level in.
        services.map((block) => block.replace(/^ {4}/gm, "      ")).join(
          "\n",
        )},`
      : `    // Step 4: the service's own services, chained so that each is typed:
    // services: (services, config) =>
    //   services.register("clock", () => new Clock())
    //     .register("greeter", (s) => new Greeter(s.get("clock"))),`
  }
    // Served once start-up is done, on PORT (default 3000).
    serve: ${
    ctx.postgres
      ? '(services, config) => kit(routes(config, () => services.get("db"))),'
      : "(_services, config) => kit(routes(config)),"
  }
  });
}
`;
}

/** The entry point: runs until SIGTERM or SIGINT, then exits 0. */
export function mainSource(ctx: SourceContext): string {
  const run = ctx.runtime === "node" && ctx.module === "commonjs"
    // CommonJS has no top-level await; run() exits the process itself.
    ? "void Application.run(appOptions());"
    : "await Application.run(appOptions());";
  return `// Starts the service and serves until SIGTERM or SIGINT; then readiness
// turns 503, the requests in flight finish, everything is disposed and the
// process exits 0.
import { Application } from "${kit(ctx, "platform")}";
import { appOptions } from "${local(ctx, "app")}";

${run}
`;
}

/** The test of the route and the readiness probe. */
export function testSource(ctx: SourceContext): string {
  const testing = ctx.runtime === "deno"
    ? "@vendor/kit/testing"
    : "@vendor/kit-platform/testing";
  if (ctx.postgres) return databaseTestSource(ctx, testing);
  return `// The service as main starts it, but in memory: Kit's test kit answers
// app.request() through the same handler as the server (health routes,
// request ids, body limit), with no port and no signal handler.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createTestApplication } from "${testing}";
import { appOptions } from "${local(ctx, "app")}";

test("GET /hello/:name greets by name with the request id", async () => {
  const app = await createTestApplication(appOptions());
  try {
    const response = await app.request("/hello/Ada", {
      headers: { "X-Request-ID": "test-1" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("X-Request-ID"), "test-1");
    assert.deepEqual(await response.json(), {
      message: "Hello, Ada!",
      requestId: "test-1",
    });
  } finally {
    await app.stop();
  }
});

test("greeting:text changes the greeting", async () => {
  // Settings by colon key, above appsettings.json and the environment.
  const app = await createTestApplication({
    ...appOptions(),
    config: { "greeting:text": "Hi" },
  });
  try {
    const response = await app.request("/hello/Ada");
    const body = await response.json() as { message: string };
    assert.equal(body.message, "Hi, Ada!");
  } finally {
    await app.stop();
  }
});

test("GET /health/ready answers 200 once started", async () => {
  const app = await createTestApplication(appOptions());
  try {
    const response = await app.request("/health/ready");
    assert.equal(response.status, 200);
    await response.body?.cancel();
  } finally {
    await app.stop();
  }
});
`;
}

/**
 * The test of a project with PostgreSQL: every test on its own test
 * database (PGlite in memory, migrated once per process), rolled back when
 * its application stops.
 */
function databaseTestSource(ctx: SourceContext, testing: string): string {
  return `// The service as main starts it, but in memory: Kit's test kit answers
// app.request() through the same handler as the server (health routes,
// request ids, body limit), with no port and no signal handler. The
// database is PGlite in memory with ${MIGRATIONS_FOLDER}/ applied once per process:
// nothing to install, and what a test writes is rolled back when its
// application stops, so each test starts from the migrated tables.
import { test } from "node:test";
import assert from "node:assert/strict";
${
    importLine(
      [
        "createTestApplication",
        "createTestDatabase",
        "type TestApplication",
      ],
      testing,
    )
  }
import { appOptions } from "${local(ctx, "app")}";

/**
 * The service on a test database, with \`config\` values (by colon key)
 * above appsettings.json and the environment.
 */
async function startApp(
  config: Record<string, unknown> = {},
): Promise<TestApplication> {
  const db = await createTestDatabase({ migrations: "${MIGRATIONS_FOLDER}" });
  try {
    return await createTestApplication({
      ...appOptions(),
      // The schema requires a connection string; the database the service
      // gets is the test's.
      config: { "database:connectionString": "pglite:memory", ...config },
      overrides: { database: () => db },
    });
  } catch (error) {
    await db.dispose();
    throw error;
  }
}

test("GET /hello/:name greets by name with the request id", async () => {
  const app = await startApp();
  try {
    const response = await app.request("/hello/Ada", {
      headers: { "X-Request-ID": "test-1" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("X-Request-ID"), "test-1");
    assert.deepEqual(await response.json(), {
      message: "Hello, Ada!",
      requestId: "test-1",
    });
  } finally {
    await app.stop();
  }
});

test("greeting:text changes the greeting", async () => {
  const app = await startApp({ "greeting:text": "Hi" });
  try {
    const response = await app.request("/hello/Ada");
    const body = await response.json() as { message: string };
    assert.equal(body.message, "Hi, Ada!");
  } finally {
    await app.stop();
  }
});

test("POST /notes stores a note that GET /notes reads back", async () => {
  const app = await startApp();
  try {
    const created = await app.request("/notes", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: " first " }),
    });
    assert.equal(created.status, 201);
    const note = await created.json() as { id: number; text: string };
    assert.equal(note.text, "first");
    const listed = await app.request("/notes");
    const body = await listed.json() as { notes: { id: number }[] };
    assert.deepEqual(body.notes.map((row) => row.id), [note.id]);
    const refused = await app.request("/notes", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: "" }),
    });
    assert.equal(refused.status, 400);
    await refused.body?.cancel();
  } finally {
    await app.stop();
  }
});

test("each test starts from the migrated tables: no note is left", async () => {
  const app = await startApp();
  try {
    const listed = await app.request("/notes");
    assert.deepEqual(await listed.json(), { notes: [] });
  } finally {
    await app.stop();
  }
});

test("GET /health/ready answers 200 once started, the database healthy", async () => {
  const app = await startApp();
  try {
    const ready = await app.request("/health/ready");
    assert.equal(ready.status, 200);
    await ready.body?.cancel();
    const health = await app.request("/health");
    const report = await health.json() as {
      checks: Record<string, { status: string }>;
    };
    assert.equal(report.checks.database.status, "healthy");
  } finally {
    await app.stop();
  }
});
`;
}
