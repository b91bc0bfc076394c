// The example service's deployment files, read for the container shape it
// documents (port 3000, production environment, a health
// check on GET /health, the app with a database and a cache): docker-compose.yml parsed with a YAML parser (npm
// `yaml`), the Dockerfile's instructions, the configuration files' override
// rules, and .env.example covering every standard variable with placeholders
// only. scripts/service_check.ts builds and runs the image for real.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { isNpmPass } from "../_support/module_url.ts";
import { createConfiguration, standardVariables } from "../../config/mod.ts";

const SKIP = isNpmPass()
  ? "the service's files are checked in the Deno pass"
  : false;

interface ComposeService {
  build?: unknown;
  image?: string;
  command?: string[] | string;
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }>;
  stop_grace_period?: string;
  healthcheck?: {
    test?: string[] | string;
    interval?: string;
    timeout?: string;
    start_period?: string;
    retries?: number;
  };
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

function servicePath(path: string): string {
  return fileURLToPath(
    new URL(`../../examples/service/${path}`, import.meta.url),
  );
}

// Loaded at run time (the service's own workspace member holds `yaml`), so
// the npm passes, which transpile tests/ for Node.js, never resolve it.
async function readCompose(): Promise<ComposeFile> {
  const url = new URL(
    "../../examples/service/tools/compose.ts",
    import.meta.url,
  ).href;
  const module = await import(url) as {
    readCompose(): Promise<ComposeFile>;
  };
  return await module.readCompose();
}

describe("example service: docker-compose.yml", { skip: SKIP }, () => {
  it("has the application, a relational database and a key-value cache", async () => {
    const compose = await readCompose();
    assert.deepEqual(Object.keys(compose.services).sort(), [
      "app",
      "cache",
      "db",
    ]);
    assert.match(compose.services.db.image ?? "", /^postgres:/);
    assert.match(compose.services.cache.image ?? "", /^redis:/);
  });

  it("the application listens on 3000, in production, at LOG_LEVEL info", async () => {
    const app = (await readCompose()).services.app;
    assert.deepEqual(app.ports, ["3000:3000"]);
    assert.equal(app.environment?.RUNTIME_ENV, "production");
    assert.equal(app.environment?.LOG_LEVEL, "info");
    assert.equal(app.environment?.PORT, "3000");
    assert.deepEqual(app.build, { context: ".", dockerfile: "Dockerfile" });
  });

  it("the application waits for both services to be healthy", async () => {
    const compose = await readCompose();
    assert.deepEqual(compose.services.app.depends_on, {
      db: { condition: "service_healthy" },
      cache: { condition: "service_healthy" },
    });
    for (const name of ["db", "cache"]) {
      assert.ok(compose.services[name].healthcheck?.test, name);
    }
  });

  it("its health check probes /health every 30 s (timeout 3 s, start 5 s, 3 retries)", async () => {
    const check = (await readCompose()).services.app.healthcheck;
    assert.deepEqual(check, {
      test: ["CMD", "node", "dist/healthcheck.js"],
      interval: "30s",
      timeout: "3s",
      start_period: "5s",
      retries: 3,
    });
  });

  it("production drains 5 s on stop, and its shutdown deadline fits the container's grace period", async () => {
    const production = JSON.parse(
      await readFile(servicePath("appsettings.production.json"), "utf8"),
    );
    const drainDelay = production.server?.drainDelay;
    const shutdownTimeout = production.host?.shutdownTimeout;
    assert.equal(drainDelay, 5000);
    // The drain, the requests in flight and the disposal all fit in it…
    assert.ok(shutdownTimeout >= drainDelay + 5000, String(shutdownTimeout));
    // …and it ends before the runtime's SIGKILL.
    const grace = /^(\d+)s$/.exec(
      (await readCompose()).services.app.stop_grace_period ?? "",
    );
    assert.ok(grace, "services.app.stop_grace_period in seconds");
    assert.ok(Number(grace[1]) * 1000 > shutdownTimeout);
  });

  it("mounts the log folder from the host; data in named volumes", async () => {
    const compose = await readCompose();
    assert.deepEqual(compose.services.app.volumes, ["./logs:/app/logs"]);
    assert.deepEqual(Object.keys(compose.volumes ?? {}).sort(), [
      "cache-data",
      "db-data",
    ]);
    assert.deepEqual(compose.services.db.volumes, [
      "db-data:/var/lib/postgresql/data",
    ]);
    assert.deepEqual(compose.services.cache.volumes, ["cache-data:/data"]);
  });

  it("credentials come from the environment, never from the file", async () => {
    const compose = await readCompose();
    const text = await readFile(servicePath("docker-compose.yml"), "utf8");
    assert.equal(
      compose.services.db.environment?.POSTGRES_USER,
      "${DB_USER:?set DB_USER}",
    );
    assert.equal(
      compose.services.db.environment?.POSTGRES_PASSWORD,
      "${DB_PASSWORD:?set DB_PASSWORD}",
    );
    assert.match(
      compose.services.app.environment?.DB_CONNECTION_STRING ?? "",
      /^postgres:\/\/\$\{DB_USER:\?set DB_USER\}:\$\{DB_PASSWORD:\?set DB_PASSWORD\}@db:5432\/kit$/,
    );
    assert.equal(
      compose.services.app.environment?.REDIS_PASSWORD,
      "${REDIS_PASSWORD:?set REDIS_PASSWORD}",
    );
    assert.ok(
      String(compose.services.cache.command).includes(
        "${REDIS_PASSWORD:?set REDIS_PASSWORD}",
      ),
    );
    // Every password-like value is a ${VARIABLE} reference.
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (/PASSWORD|SECRET|KEY/.test(key)) {
          assert.match(value, /^\$\{\w+:\?[^}]*\}$/, `${name}: ${key}`);
        }
      }
    }
    assert.doesNotMatch(text, /password=|:\/\/\w+:\w+@/i);
  });
});

describe("example service: Dockerfile", { skip: SKIP }, () => {
  it("builds in two stages for Node and runs node dist/main.js as a non-root user", async () => {
    const text = await readFile(servicePath("Dockerfile"), "utf8");
    const instructions = text.split("\n").filter((line) =>
      /^[A-Z]+ /.test(line)
    );
    assert.equal(
      instructions.filter((line) => line.startsWith("FROM ")).length,
      2,
    );
    assert.match(text, /^EXPOSE 3000$/m);
    assert.match(text, /RUNTIME_ENV=production/);
    assert.match(text, /LOG_LEVEL=info/);
    assert.match(
      text,
      /^HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \\\n\s+CMD \["node", "dist\/healthcheck\.js"\]$/m,
    );
    assert.match(text, /^USER node$/m);
    // The migrations, where the service reads them (its root, /app).
    assert.match(text, /^WORKDIR \/app$/m);
    assert.match(text, /^COPY migrations\/ \.\/migrations\/$/m);
    assert.equal(
      instructions[instructions.length - 1],
      'CMD ["node", "dist/main.js"]',
    );
    assert.doesNotMatch(text, /curl/);
  });
});

describe("example service: configuration files", { skip: SKIP }, () => {
  it("production overrides keys and replaces the providers array whole", async () => {
    const base = await createConfiguration({
      basePath: servicePath(""),
      environment: "development",
      validate: false,
    });
    const production = await createConfiguration({
      basePath: servicePath(""),
      environment: "production",
      validate: false,
    });
    try {
      assert.deepEqual(
        (production.getValue<{ type: string }[]>("logging:providers")).map((
          p,
        ) => p.type),
        ["console", "file"],
      );
      // The base file's console entry options are not merged into it.
      assert.deepEqual(
        production.getValue("logging:providers:0:options"),
        { format: "json" },
      );
      assert.equal(Number(production.getValue("database:poolSize")), 20);
      // Keys the override leaves out keep the base value.
      assert.deepEqual(
        production.getValue("localization:supportedCultures"),
        ["en-US", "fr-FR", "de-DE"],
      );
      assert.equal(base.getValue("logging:level"), "debug");
      assert.equal(Number(base.getValue("database:poolSize")), 10);
    } finally {
      await base.close();
      await production.close();
    }
  });

  it("no configuration file holds a secret value", async () => {
    for (
      const file of [
        "appsettings.json",
        "appsettings.development.json",
        "appsettings.production.json",
      ]
    ) {
      const text = await readFile(servicePath(file), "utf8");
      assert.doesNotMatch(
        text,
        /password|apiKey|secret|connectionString/i,
        file,
      );
    }
  });

  it(".env.example lists every standard variable, with placeholders only", async () => {
    const text = await readFile(servicePath(".env.example"), "utf8");
    const names = new Set(
      // A commented line lists an alternative the service does not use as
      // shipped (Redis Cluster or Sentinel instead of one server).
      [...text.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=/gm)].map((match) =>
        match[1]
      ),
    );
    for (
      const name of [
        ...Object.keys(standardVariables),
        "KIT_LOG_LEVEL",
        "KIT_CONFIG_PATH",
      ]
    ) {
      assert.ok(names.has(name), `${name} is missing from .env.example`);
    }
    for (
      const match of text.matchAll(/^(\w*(PASSWORD|SECRET|KEY)\w*)=(.*)$/gm)
    ) {
      assert.match(match[3], /^<[A-Z_]+>$/, match[1]);
    }
    assert.match(text, /^DB_CONNECTION_STRING=.*<DB_PASSWORD>/m);
  });
});
