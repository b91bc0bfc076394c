// The TypeScript sources of a generated project: the settings schema, the
// application's start-up and routes, the entry point, the test and, with
// PostgreSQL, the database service. One text serves Deno and Node.js; only
// the import specifiers and the entry point's last line differ.
import type { CreateOptions } from "./_options.ts";

/** What the source templates need to know. */
export type SourceContext = Pick<
  CreateOptions,
  "runtime" | "module" | "redis" | "postgres"
>;

const NPM_NAMES: Record<string, string> = {
  platform: "@vendor/kit-platform",
  "platform/hono": "@vendor/kit-platform/hono",
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

const { database, api } = appConfigSchema.entries;

/** Kit's configuration schema plus the service's own sections. */
export const schema = v.object({
  ...appConfigSchema.entries,
  // Kit requires a database and an API address; this service runs without
  // them (${
    ctx.postgres
      ? "the database is used once DB_CONNECTION_STRING is set"
      : "add them back when it needs them"
  }).
  database: v.optional(
    v.object({
      ...database.entries,
      connectionString: v.optional(v.string(), ""),
    }),
    {},
  ),
  api: v.optional(api),
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

/** `db.ts` (with PostgreSQL): a pool the host checks and closes. */
export function dbSource(): string {
  return `// The PostgreSQL pool as a service: the host checks it on /health (the
// checkHealth() method) and closes it on shutdown (dispose()).
import pg from "pg";

/** A small wrapper around a \`pg\` pool. */
export class Database {
  readonly pool: pg.Pool;

  constructor(options: pg.PoolConfig) {
    this.pool = new pg.Pool(options);
  }

  /** Runs one query on a pooled connection. */
  query(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
    return this.pool.query(text, values);
  }

  /** \`SELECT 1\`: healthy when the database answers. */
  async checkHealth(): Promise<{ status: "healthy" }> {
    await this.pool.query("SELECT 1");
    return { status: "healthy" };
  }

  /** Closes the pool's connections. */
  async dispose(): Promise<void> {
    await this.pool.end();
  }
}
`;
}

/** `app.ts`: the start-up steps and the routes. */
export function appSource(ctx: SourceContext): string {
  const imports = [
    `import { Hono } from "hono";`,
    `import {\n  type ApplicationRunOptions,\n  RequestContext,\n} from "${
      kit(ctx, "platform")
    }";`,
    `import { kit } from "${kit(ctx, "platform/hono")}";`,
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
    ...(ctx.postgres
      ? [`import { Database } from "${local(ctx, "db")}";`]
      : []),
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
      ), { eager: true });`,
    );
  }
  if (ctx.postgres) {
    services.push(
      `    // PostgreSQL once DB_CONNECTION_STRING is set; /health then runs
    // SELECT 1 on it, and readiness waits for it.
    const connectionString = config.getValue("database:connectionString");
    if (connectionString !== "") {
      services.register("database", () =>
        new Database({
          connectionString,
          max: config.getValue("database:poolSize"),
          connectionTimeoutMillis: config.getValue("database:timeout"),
        }), { eager: true });
    }`,
    );
  }
  return `// The service: Kit's four start-up steps, then the routes the host serves.
// The host mounts /health, /health/live and /health/ready itself, gives
// every request an id, logs one access line per request and drains on
// SIGTERM.
${imports.join("\n")}

/**
 * The routes. \`kit()\` comes first: a route that throws answers 500 with the
 * request id (the error goes to the log, not to the client), and the route
 * template names the request in the access line.
 */
export function routes(config: Configuration): Hono {
  const app = new Hono();
  app.use(kit());
  app.get("/hello/:name", (c) =>
    c.json({
      message: \`\${config.getValue("greeting:text")}, \${c.req.param("name")}!\`,
      requestId: RequestContext.current()?.requestId,
    }));
  return app;
}

/** The service's start-up, for \`Application.run\` (main) and tests. */
export function appOptions(): ApplicationRunOptions<
  Record<string, unknown>,
  Configuration
> {
  return {
    // Step 1: appsettings.json, appsettings.<RUNTIME_ENV>.json, .env and
    // the environment, checked against the schema.
    configuration: () => createConfiguration({ schema }),
    // Step 2: logging from logging:level and logging:providers.
    logging: (config) => LoggerManager.fromConfiguration(config),
    // Step 4: the service's own services.
    services: (${
    ctx.redis || ctx.postgres ? "services, config" : "_services, _config"
  }) => {
${
    services.length > 0
      // Each block is written for the step's body, two levels in.
      ? services.map((block) => block.replace(/^/gm, "  ")).join("\n")
      : '      // services.register("name", () => new MyService());'
  }
    },
    // Served once start-up is done, on PORT (default 3000).
    serve: (_services, config) => routes(config).fetch,
  };
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
