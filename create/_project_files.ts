// Every file of a generated project, by path: the sources (from
// _source_files.ts), the configuration files, the runtime's manifest, the
// container files, the README and, with PostgreSQL, the migrations.
import type { CreateOptions } from "./_options.ts";
import {
  appSource,
  configSource,
  kitPackages,
  mainSource,
  migrateSource,
  MIGRATIONS_FOLDER,
  notesMigrationSource,
  testSource,
} from "./_source_files.ts";
import { DENO_IMAGE, VERSIONS } from "./_versions.ts";
import { paragraph, table } from "./_markdown.ts";

/** Where the generated project gets Kit from. */
export type KitSource =
  /**
   * A checkout of Kit: Deno links it (`link`: its path from the project);
   * Node.js installs its built packages (`packages`: name → `file:` spec).
   */
  | { kind: "checkout"; link: string; packages: Record<string, string> }
  /** The registry that serves Kit, at `^version`. */
  | { kind: "registry"; version: string };

/**
 * The folder of the production log file, relative to the project: mounted
 * from the host by compose.yaml, so it must be writable by the image's
 * user (the generator makes it so, see {@linkcode projectFiles}).
 */
export const LOG_FOLDER = "logs";

/**
 * The embedded engine's folder in development (with PostgreSQL), relative
 * to the project: ignored by git and left out of the image.
 */
export const DATA_FOLDER = ".data";

/** The project's options, its npm-safe name and Kit's source. */
export interface ProjectContext
  extends Pick<CreateOptions, "runtime" | "module" | "redis" | "postgres"> {
  /** The project name (package.json `name`, the database name). */
  name: string;
  /** Where Kit comes from. */
  source: KitSource;
}

const json = (value: unknown): string => JSON.stringify(value, null, 2) + "\n";

/**
 * An npm-safe project name from a folder name: lower case letters, digits,
 * `-`, `.` and `_`, starting with a letter or digit.
 *
 * @param folder The folder's last path segment.
 * @returns The name, or `kit-service` when nothing usable is left.
 */
export function projectName(folder: string): string {
  const name = folder.toLowerCase().replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "").replace(/-+$/, "").slice(0, 214);
  return name === "" ? "kit-service" : name;
}

function appsettings(ctx: ProjectContext): Record<string, string> {
  const base: Record<string, unknown> = {
    server: { maxBodySize: 1048576 },
    logging: {
      level: "info",
      providers: [{
        type: "console",
        options: { format: "simple", colorize: false, timestamp: true },
      }],
    },
    greeting: { text: "Hello" },
  };
  if (ctx.postgres) base.database = { timeout: 5000, poolSize: 10 };
  if (ctx.redis) base.cache = { redis: { keyPrefix: `${ctx.name}:` } };
  return {
    "appsettings.json": json(base),
    "appsettings.development.json": json({
      // PostgreSQL in the process (PGlite): nothing to install. Production
      // sets DB_CONNECTION_STRING, and refuses the embedded engine.
      ...(ctx.postgres
        ? { database: { connectionString: `pglite:${DATA_FOLDER}/database` } }
        : {}),
      logging: {
        level: "debug",
        providers: [{
          type: "console",
          options: { format: "simple", colorize: true, timestamp: false },
        }],
      },
    }),
    "appsettings.production.json": json({
      server: { drainDelay: 5000 },
      host: { shutdownTimeout: 15000 },
      logging: {
        level: "info",
        providers: [
          { type: "console", options: { format: "json" } },
          {
            type: "file",
            options: {
              filename: "logs/service.log",
              format: "json",
              maxFileSize: 10485760,
              maxFiles: 5,
            },
          },
        ],
      },
    }),
  };
}

function denoJson(ctx: ProjectContext): string {
  const imports: Record<string, string> = {};
  if (ctx.source.kind === "registry") {
    imports["@vendor/kit"] = `jsr:@vendor/kit@^${ctx.source.version}`;
  }
  imports.hono = `npm:hono@${VERSIONS.hono}`;
  imports.valibot = `npm:valibot@${VERSIONS.valibot}`;
  if (ctx.postgres) {
    // The drivers Kit's database loads: pg for a server, PGlite in
    // development and tests; @types/pg types db.driver<pg.Pool>().
    imports.pg = `npm:pg@${VERSIONS.pg}`;
    imports["@types/pg"] = `npm:@types/pg@${VERSIONS["@types/pg"]}`;
    imports["@electric-sql/pglite"] = `npm:@electric-sql/pglite@${
      VERSIONS["@electric-sql/pglite"]
    }`;
  }
  return json({
    ...(ctx.source.kind === "checkout" ? { links: [ctx.source.link] } : {}),
    imports,
    tasks: {
      start: "deno run -A main.ts",
      test: "deno test -A",
      ...(ctx.postgres ? { migrate: "deno run -A migrate.ts" } : {}),
    },
  });
}

function packageJson(ctx: ProjectContext): string {
  const kit = Object.fromEntries(
    ctx.source.kind === "checkout"
      ? Object.entries(ctx.source.packages)
      : kitPackages(ctx).map((name) => [
        name,
        `^${(ctx.source as { version: string }).version}`,
      ]),
  );
  const dependencies: Record<string, string> = {
    ...kit,
    hono: VERSIONS.hono,
    ...(ctx.postgres ? { pg: VERSIONS.pg } : {}),
    valibot: VERSIONS.valibot,
  };
  return json({
    name: ctx.name,
    version: "0.1.0",
    private: true,
    type: ctx.module === "commonjs" ? "commonjs" : "module",
    scripts: {
      build: "tsc -p tsconfig.json",
      prestart: "npm run build",
      start: "node dist/main.js",
      pretest: "npm run build",
      test: "node --test dist/app.test.js",
      ...(ctx.postgres
        ? { premigrate: "npm run build", migrate: "node dist/migrate.js" }
        : {}),
    },
    engines: { node: ">=20.19" },
    dependencies: Object.fromEntries(
      Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)),
    ),
    // PGlite serves development and the tests; the image leaves it out
    // (production needs DB_CONNECTION_STRING and refuses it).
    devDependencies: {
      ...(ctx.postgres
        ? { "@electric-sql/pglite": VERSIONS["@electric-sql/pglite"] }
        : {}),
      "@types/node": VERSIONS["@types/node"],
      ...(ctx.postgres ? { "@types/pg": VERSIONS["@types/pg"] } : {}),
      typescript: VERSIONS.typescript,
    },
  });
}

function tsconfig(): string {
  return json({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022"],
      types: ["node"],
      // The format follows package.json "type" ("module" or "commonjs").
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: true,
      esModuleInterop: true,
      sourceMap: true,
      rootDir: "src",
      outDir: "dist",
    },
    include: ["src"],
  });
}

const HEALTHCHECK_TIMING =
  "--interval=30s --timeout=3s --start-period=5s --retries=3";

function dockerfile(ctx: ProjectContext): string {
  if (ctx.runtime === "deno") {
    return `# The service on Deno. Build: docker build -t ${ctx.name} .
FROM ${DENO_IMAGE}
WORKDIR /app
ENV RUNTIME_ENV=production \\
    LOG_LEVEL=info \\
    PORT=3000
COPY deno.json ./
COPY *.ts appsettings.json appsettings.production.json ./${
      ctx.postgres
        ? `\n# Applied at start-up (or: deno run -A migrate.ts).\nCOPY ${MIGRATIONS_FOLDER}/ ./${MIGRATIONS_FOLDER}/`
        : ""
    }
# The log folder (mounted from the host by compose.yaml).
RUN mkdir -p /app/logs && chown deno:deno /app/logs
USER deno
RUN deno cache main.ts
EXPOSE 3000
# GET /health on the service's port (PORT, 3000 unless the container is
# given another): healthy or degraded is 200, anything else fails.
HEALTHCHECK ${HEALTHCHECK_TIMING} \\
  CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:' + (Deno.env.get('PORT') ?? '3000') + '/health', { signal: AbortSignal.timeout(2500) }).catch(() => undefined); await r?.body?.cancel(); Deno.exit(r?.ok ? 0 : 1);"]
# deno is PID 1: SIGTERM turns readiness to 503, the requests in flight
# finish, and the process exits 0.
CMD ["deno", "run", "-A", "main.ts"]
`;
  }
  const checkout = ctx.source.kind === "checkout";
  return `# syntax=docker/dockerfile:1
# The service on Node.js. Build: docker build -t ${ctx.name} .${
    checkout ? "" : `
# With a token for the registry that serves Kit:
#   docker build --secret id=kit_registry_token,env=KIT_REGISTRY_TOKEN -t ${ctx.name} .`
  }
#
# Stage 1 installs the dependencies and compiles src/ to dist/ with tsc;
# stage 2 keeps what runs: production dependencies, dist/ and the settings.
FROM node:20-bookworm-slim AS build
WORKDIR /app
${
    checkout
      ? `COPY package.json ./
# Kit's packages, packed from the checkout the project was created from.
COPY vendor/ ./vendor/
RUN npm install --no-audit --no-fund --loglevel=error`
      : `COPY package.json .npmrc* ./
RUN --mount=type=secret,id=kit_registry_token,required=false \\
  KIT_REGISTRY_TOKEN="$(cat /run/secrets/kit_registry_token 2>/dev/null)" \\
  npm install --no-audit --no-fund --loglevel=error`
  }
COPY tsconfig.json ./
COPY src/ ./src/
RUN npm run build && rm -f dist/*.test.js dist/*.test.js.map && \\
  npm prune --omit=dev --no-audit --no-fund --loglevel=error

FROM node:20-bookworm-slim
ENV NODE_ENV=production \\
    RUNTIME_ENV=production \\
    LOG_LEVEL=info \\
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY appsettings.json appsettings.production.json ./${
    ctx.postgres
      ? `\n# Applied at start-up (or: node dist/migrate.js).\nCOPY ${MIGRATIONS_FOLDER}/ ./${MIGRATIONS_FOLDER}/`
      : ""
  }
# The log folder (mounted from the host by compose.yaml).
RUN mkdir -p /app/logs && chown node:node /app/logs
USER node
EXPOSE 3000
# GET /health on the service's port (PORT, 3000 unless the container is
# given another): healthy or degraded is 200, anything else fails.
HEALTHCHECK ${HEALTHCHECK_TIMING} \\
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || '3000') + '/health', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1: SIGTERM turns readiness to 503, the requests in flight
# finish, and the process exits 0.
CMD ["node", "dist/main.js"]
`;
}

function compose(ctx: ProjectContext): string {
  const env = [
    "      RUNTIME_ENV: production",
    "      LOG_LEVEL: info",
    `      PORT: "3000"`,
  ];
  const depends: string[] = [];
  const services: string[] = [];
  const volumes: string[] = [];
  if (ctx.postgres) {
    env.push(
      `      DB_CONNECTION_STRING: postgres://\${DB_USER:?set DB_USER}:\${DB_PASSWORD:?set DB_PASSWORD}@db:5432/${ctx.name}`,
    );
    depends.push("      db:\n        condition: service_healthy");
    services.push(`  db:
    image: postgres:16-bookworm
    environment:
      POSTGRES_USER: \${DB_USER:?set DB_USER}
      POSTGRES_PASSWORD: \${DB_PASSWORD:?set DB_PASSWORD}
      POSTGRES_DB: ${ctx.name}
    volumes:
      - db-data:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U \\"$$POSTGRES_USER\\" -d ${ctx.name}"]
      interval: 10s
      timeout: 3s
      start_period: 10s
      retries: 5
`);
    volumes.push("  db-data:");
  }
  if (ctx.redis) {
    env.push("      REDIS_HOST: cache", `      REDIS_PORT: "6379"`);
    depends.push("      cache:\n        condition: service_healthy");
    services.push(`  cache:
    image: redis:7-bookworm
    command: ["redis-server", "--appendonly", "yes"]
    volumes:
      - cache-data:/data
    healthcheck:
      test: ["CMD-SHELL", "redis-cli ping | grep -q PONG"]
      interval: 10s
      timeout: 3s
      retries: 5
`);
    volumes.push("  cache-data:");
  }
  const secrets = ctx.runtime === "node" && ctx.source.kind === "registry";
  return `# ${ctx.name}${ctx.postgres ? " with PostgreSQL" : ""}${
    ctx.redis ? (ctx.postgres ? " and Redis" : " with Redis") : ""
  }.
#
#   ${ctx.postgres ? "DB_USER=app DB_PASSWORD=… " : ""}docker compose up --build
#${
    ctx.postgres
      ? "\n# DB_USER and DB_PASSWORD come from the environment (or .env beside this\n# file); no credential is written here."
      : ""
  }
services:
  app:
    build:
      context: .${
    secrets ? "\n      secrets:\n        - kit_registry_token" : ""
  }
    ports:
      - "3000:3000"
    environment:
${env.join("\n")}
    volumes:
      - ./logs:/app/logs${
    depends.length > 0 ? `\n    depends_on:\n${depends.join("\n")}` : ""
  }
    # The stop waits server:drainDelay (5 s in production) and at most
    # host:shutdownTimeout (15 s); the default 10 s grace would cut it short.
    stop_grace_period: 20s
    restart: unless-stopped
${services.length > 0 ? "\n" + services.join("\n") : ""}${
    volumes.length > 0 ? `\nvolumes:\n${volumes.join("\n")}\n` : ""
  }${
    secrets
      ? "\nsecrets:\n  kit_registry_token:\n    environment: KIT_REGISTRY_TOKEN\n"
      : ""
  }`;
}

function envExample(ctx: ProjectContext): string {
  const lines = [
    "# The variables the service reads, with placeholders only.",
    "# Copy to .env (never committed) or set them in the environment.",
    "RUNTIME_ENV=development",
    "PORT=3000",
    "LOG_LEVEL=info",
    "# The service's own setting (greeting:text in appsettings.json).",
    "APP_GREETING__TEXT=Hello",
  ];
  if (ctx.postgres) {
    lines.push(
      "",
      "# PostgreSQL: required in production. Unset in development, the service",
      `# runs PostgreSQL in its own process (PGlite, data in ${DATA_FOLDER}/).`,
      `# DB_CONNECTION_STRING=postgres://<DB_USER>:<DB_PASSWORD>@localhost:5432/${ctx.name}`,
      "DB_POOL_SIZE=10",
      "DB_TIMEOUT=5000",
      "# Used by compose.yaml for the database container.",
      "DB_USER=<DB_USER>",
      "DB_PASSWORD=<DB_PASSWORD>",
    );
  }
  if (ctx.redis) {
    lines.push(
      "",
      "# Redis: without REDIS_HOST the service caches in memory.",
      "REDIS_HOST=localhost",
      "REDIS_PORT=6379",
      "REDIS_PASSWORD=<PASSWORD>",
    );
  }
  return lines.join("\n") + "\n";
}

function readme(ctx: ProjectContext): string {
  const deno = ctx.runtime === "deno";
  const run = deno
    ? "deno task test    # the tests (app_test.ts)\ndeno task start   # http://localhost:3000 (PORT to change it)"
    : "npm install\nnpm test          # compiles src/ with tsc, then node --test\nnpm start         # http://localhost:3000 (PORT to change it)";
  const migrate = deno ? "deno task migrate" : "npm run migrate";
  const src = deno ? "" : "src/";
  const curl = [
    "curl localhost:3000/hello/Ada",
    ...(ctx.postgres
      ? [
        `curl -H 'Content-Type: application/json' -d '{"text":"first"}' localhost:3000/notes`,
        "curl localhost:3000/notes",
      ]
      : []),
    "curl localhost:3000/health/ready",
  ];
  const parts: string[] = [
    `# ${ctx.name}`,
    paragraph(
      `A small service on [Kit](https://jsr.io/@vendor/kit) and [Hono](https://hono.dev), for ${
        deno ? "Deno 2" : "Node.js ≥ 20.19"
      }.`,
    ),
    "```sh\n" + run + "\n" + curl.join("\n") + "\n```",
    table([
      ["file", "what it holds"],
      [
        `\`${src}main.ts\``,
        deno
          ? "starts the service with `Application.run`; SIGTERM or Ctrl+C stops it (exit 0)"
          : "starts the service with `Application.run`; SIGTERM or Ctrl+C stops it (exit 0). Under a process manager, start `node dist/main.js` itself (as the Dockerfile does): `npm start` does not pass SIGTERM on to it",
      ],
      [
        `\`${src}app.ts\``,
        ctx.postgres
          ? "the start-up steps and the routes (`GET /hello/:name`, `GET` and `POST /notes`)"
          : "the start-up steps and the routes (`GET /hello/:name`)",
      ],
      [
        `\`${src}config.ts\``,
        "the settings schema: Kit's sections plus `greeting`",
      ],
      ...(ctx.postgres
        ? [
          [
            `\`${MIGRATIONS_FOLDER}/\``,
            "the database's changes, one numbered `.sql` file each (`001_create_notes.sql`)",
          ],
          [
            `\`${src}migrate.ts\``,
            `\`${migrate}\`: applies the pending migrations, then exits`,
          ],
        ]
        : []),
      [
        `\`${src}${deno ? "app_test.ts" : "app.test.ts"}\``,
        ctx.postgres
          ? "the tests: the routes, a setting and readiness, in memory (Kit's test kit, PGlite)"
          : "the tests: the route, a setting and readiness, in memory (Kit's test kit)",
      ],
      [
        "`appsettings*.json`",
        "settings; `appsettings.<RUNTIME_ENV>.json` overrides the base file",
      ],
      ["`.env.example`", "the variables the service reads"],
      ["`Dockerfile`, `compose.yaml`", "the container, with its health check"],
    ]),
    paragraph(
      "Kit's server mounts the probes: `/health` (every check: 200 healthy or degraded, 503 otherwise), `/health/live` and `/health/ready` (503 while starting or stopping). Each response of a route carries an `X-Request-ID`; an error in a route answers 500 with that id and goes to the log.",
    ),
    paragraph(
      `Settings come from \`appsettings.json\`, then \`appsettings.<RUNTIME_ENV>.json\` (default \`development\`), \`.env\` and the environment (\`APP_GREETING__TEXT\`, \`LOG_LEVEL\`, \`PORT\`${
        ctx.postgres ? ", `DB_CONNECTION_STRING`" : ""
      }${
        ctx.redis ? ", `REDIS_HOST`" : ""
      }). A bad value stops start-up naming the key and where it came from.`,
    ),
  ];
  if (ctx.redis) {
    parts.push(paragraph(
      "The cache uses Redis once `REDIS_HOST` is set, memory otherwise; while Redis is down `/health` says `degraded` (still 200) and the cache runs on misses.",
    ));
  }
  if (ctx.source.kind === "checkout") {
    parts.push(paragraph(
      deno
        ? `Kit comes from the checkout at \`${ctx.source.link}\` (\`links\` in deno.json). Once Kit is published, replace \`links\` with \`"@vendor/kit": "jsr:@vendor/kit@^<version>"\` under \`imports\`; the image built by the Dockerfile needs that, since the checkout is outside its build context.`
        : "Kit's eight packages come from the checkout the project was created from, packed into `vendor/`; package.json depends on those the service imports. To use another one later (the HTTP client, localization, analytics), install it from there: `npm install ./vendor/kit-platform-http.tgz`. Once Kit is in your registry, replace the `file:vendor/…` entries of package.json with `^<version>` and delete `vendor/`.",
    ));
  } else if (deno) {
    parts.push(
      paragraph(
        `Kit comes from JSR (\`jsr:@vendor/kit@^${ctx.source.version}\`).`,
      ),
    );
  } else {
    parts.push(
      paragraph(
        `Kit's packages come from the registry that serves Kit, at \`^${ctx.source.version}\`. npm finds it through the \`@vendor\` scope line of an \`.npmrc\` (this folder's, or your user's), with the token in an environment variable, never in the file:`,
      ),
      "```ini\n@vendor:registry=<registry-url>\n//<registry-host>/:_authToken=${KIT_REGISTRY_TOKEN}\n```",
      paragraph(
        `package.json depends on the packages the service imports. Another one (the HTTP client, localization, analytics) is added the same way: \`npm install @vendor/kit-platform-http@^${ctx.source.version}\`.`,
      ),
    );
  }
  if (ctx.postgres) {
    parts.push(
      "## The database",
      paragraph(
        `\`${src}app.ts\` registers it with Kit's \`addDatabase\`: the service \`database\`, a pool opened at start-up with the pending migrations applied, checked by \`/health\` (readiness is 503 while PostgreSQL cannot be reached, 200 again once it is back) and closed last on shutdown; and \`db\`, a session per request, which takes one connection at its first statement and gives it back when the response is done. The routes use \`db\`; the service writes no pool code of its own.`,
      ),
      paragraph(
        `Which database is \`database:connectionString\`. In development it is \`pglite:${DATA_FOLDER}/database\` (\`appsettings.development.json\`): PostgreSQL inside the process (PGlite), its data in \`${DATA_FOLDER}/\` (ignored by git), nothing to install. \`DB_CONNECTION_STRING=postgres://user:password@host:5432/name\` points it at a server (\`pg\`). In production (\`RUNTIME_ENV=production\`) it is required, and the embedded engine is refused${
          deno
            ? ""
            : " (PGlite is a development dependency: the image leaves it out)"
        }. The tests run on PGlite in memory (\`createTestDatabase\`), migrated once, each test's writes rolled back.`,
      ),
      paragraph(
        `Migrations are \`.sql\` files in \`${MIGRATIONS_FOLDER}/\`, numbered (\`001_create_notes.sql\`, then \`002_<what>.sql\`), applied in order, each once, and recorded in the table \`kit_migrations\`; never edit one that was applied. The service applies the pending ones at start-up (instances that start together apply each once); \`${migrate}\` applies them without starting it (in the image: \`${
          deno ? "deno run -A migrate.ts" : "node dist/migrate.js"
        }\`).`,
      ),
    );
  }
  parts.push(
    "## Containers",
    "```sh\n" + (ctx.postgres ? "DB_USER=app DB_PASSWORD=… " : "") +
      "docker compose up --build\n```",
    paragraph(
      `The image runs as an unprivileged user with \`RUNTIME_ENV=production\` (JSON logs, also to \`logs/service.log\`, mounted from \`./logs\`) and probes \`GET /health\` every 30 s. That user must be able to write into \`./logs\`: the generator made the folder writable for all, which git does not keep, so in a fresh clone run \`chmod 777 logs\` first.${
        ctx.postgres || ctx.redis ? " Data lives in named volumes." : ""
      }`,
    ),
  );
  return parts.join("\n\n") + "\n";
}

/**
 * Every file of a new project.
 *
 * @param ctx The options, the name and Kit's source.
 * @returns File contents by path relative to the project folder.
 */
export function projectFiles(ctx: ProjectContext): Record<string, string> {
  const deno = ctx.runtime === "deno";
  const src = deno ? "" : "src/";
  const files: Record<string, string> = {
    ...appsettings(ctx),
    [`${src}config.ts`]: configSource(ctx),
    [`${src}app.ts`]: appSource(ctx),
    [`${src}main.ts`]: mainSource(ctx),
    [`${src}${deno ? "app_test.ts" : "app.test.ts"}`]: testSource(ctx),
    ...(ctx.postgres
      ? {
        [`${src}migrate.ts`]: migrateSource(ctx),
        [`${MIGRATIONS_FOLDER}/001_create_notes.sql`]: notesMigrationSource(),
      }
      : {}),
    "Dockerfile": dockerfile(ctx),
    "compose.yaml": compose(ctx),
    ".env.example": envExample(ctx),
    "README.md": readme(ctx),
    // The log folder is kept (empty) so that compose.yaml's ./logs mount
    // finds it: a missing one is made by the engine, owned by root, and the
    // image's unprivileged user could not write its log file there.
    [`${LOG_FOLDER}/.gitkeep`]: "",
    ".gitignore": [
      ".env",
      `${LOG_FOLDER}/*`,
      `!${LOG_FOLDER}/.gitkeep`,
      ...(ctx.postgres ? [`${DATA_FOLDER}/`] : []),
      ...(deno ? [] : ["node_modules/", "dist/"]),
    ].join("\n") + "\n",
    ".dockerignore": [
      ".env",
      "logs/",
      ".git/",
      ...(ctx.postgres ? [`${DATA_FOLDER}/`] : []),
      ...(deno ? [] : ["node_modules/", "dist/"]),
    ].join("\n") + "\n",
  };
  if (deno) files["deno.json"] = denoJson(ctx);
  else {
    files["package.json"] = packageJson(ctx);
    files["tsconfig.json"] = tsconfig();
  }
  return files;
}

/**
 * The paths of a new project's files, which do not depend on where Kit
 * comes from: known before anything is written.
 *
 * @param ctx The options and the name.
 * @returns The paths relative to the project folder, `/` between parts.
 */
export function projectPaths(ctx: Omit<ProjectContext, "source">): string[] {
  return Object.keys(
    projectFiles({ ...ctx, source: { kind: "registry", version: "0.0.0" } }),
  );
}
