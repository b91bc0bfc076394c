// The consumer projects of the release check (scripts/release_check.ts): a
// package.json with the eight packages, an ES-module and a CommonJS script
// that use every package and make one real HTTP request on loopback (so the
// dependencies the packages load on first use load from that install's
// layout), and scripts/consumer/app.ts in one folder per TypeScript setting.
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PACKAGES } from "./_packages.ts";
import { kitVersion, ROOT } from "./_release_check_support.ts";

/** The eight library packages. */
export const NAMES: readonly string[] = PACKAGES.map((info) => info.name);

/** The ES-module and CommonJS scripts: every package, one real request. */
export function consumerScript(kind: "esm" | "cjs"): string {
  const names = {
    "@vendor/kit-core": ["format"],
    "@vendor/kit-platform": ["ServiceLocator"],
    "@vendor/kit-platform-configuration": [
      "ConfigurationManager",
      "MemoryProvider",
    ],
    "@vendor/kit-platform-logging": ["ConsoleLogProvider", "LoggerManager"],
    "@vendor/kit-platform-http": ["HttpClient"],
    "@vendor/kit-platform-localization": ["LocalizationManager"],
    "@vendor/kit-platform-caching": ["CacheManager", "MemoryCacheProvider"],
    "@vendor/kit-platform-analytics": ["AnalyticsManager"],
  };
  const imports = Object.entries(names).map(([name, exports]) =>
    kind === "esm"
      ? `import { ${exports.join(", ")} } from "${name}";`
      : `const { ${exports.join(", ")} } = require("${name}");`
  );
  const http = kind === "esm"
    ? `import { createServer } from "node:http";`
    : `const { createServer } = require("node:http");`;
  return `${http}
${imports.join("\n")}

async function main() {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ path: request.url }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const config = new ConfigurationManager();
    config.addProvider(new MemoryProvider(new Map([
      ["api:baseUrl", "http://127.0.0.1:" + server.address().port],
    ])));
    await config.loadConfiguration();
    ServiceLocator.register("config", () => config);
    const base = ServiceLocator.get("config").getValue("api:baseUrl");
    const http = new HttpClient(base, { timeout: 5000, retryAttempts: 0 });
    const answer = await http.get("/ping");
    const logging = new LoggerManager();
    logging.configure({ level: "info", providers: [new ConsoleLogProvider()] });
    logging.getLogger("check").info("logged");
    await logging.flush();
    const cache = new CacheManager(new MemoryCacheProvider({ maxSize: 10 }));
    const cached = await cache.getOrSet("answer", () => Promise.resolve(42));
    const analytics = new AnalyticsManager();
    await analytics.dispose();
    if (typeof LocalizationManager !== "function") throw new Error("no LocalizationManager");
    console.log(format("{0}: {1} {2} ok", "${kind}", answer.path, cached));
    await cache.dispose();
    await logging.dispose();
    await ServiceLocator.dispose();
  } finally {
    server.close();
  }
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;
}

/** The TypeScript consumers: a folder each, with its settings. */
export const TS_CONSUMERS = {
  "TypeScript 5.9 (commonjs, node)": {
    folder: "ts59-node",
    compiler: "tsc59",
    type: "commonjs",
    compilerOptions: {
      target: "ES2020",
      module: "commonjs",
      moduleResolution: "node",
      strict: true,
      skipLibCheck: true,
      esModuleInterop: true,
      allowSyntheticDefaultImports: true,
    },
  },
  "TypeScript 7 (nodenext)": {
    folder: "ts7-nodenext",
    compiler: "tsc7",
    type: "module",
    compilerOptions: {
      target: "ES2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      strict: true,
      skipLibCheck: true,
    },
  },
  "TypeScript 7 (bundler)": {
    folder: "ts7-bundler",
    compiler: "tsc7",
    type: "module",
    compilerOptions: {
      target: "ES2022",
      module: "esnext",
      moduleResolution: "bundler",
      strict: true,
      skipLibCheck: true,
    },
  },
} as const;

/**
 * Writes a consumer project: package.json with the eight packages (and
 * `@types/node` for the compiled consumers), the two scripts and a folder
 * per TypeScript consumer.
 */
export async function writeProject(
  dir: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const dependencies: Record<string, string> = {};
  const version = await kitVersion();
  for (const name of NAMES) dependencies[name] = `^${version}`;
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify(
      {
        name: "kit-release-consumer",
        private: true,
        dependencies,
        devDependencies: { "@types/node": "^20.19.0" },
        ...extra,
      },
      null,
      2,
    ) + "\n",
  );
  await writeFile(join(dir, "consumer.mjs"), consumerScript("esm"));
  await writeFile(join(dir, "consumer.cjs"), consumerScript("cjs"));
  for (const consumer of Object.values(TS_CONSUMERS)) {
    const sub = join(dir, consumer.folder);
    await mkdir(sub, { recursive: true });
    await writeFile(
      join(sub, "package.json"),
      JSON.stringify({ private: true, type: consumer.type }) + "\n",
    );
    await writeFile(
      join(sub, "tsconfig.json"),
      JSON.stringify(
        {
          compilerOptions: {
            ...consumer.compilerOptions,
            outDir: "dist",
            lib: ["ES2022", "DOM"],
            types: ["node"],
          },
          files: ["app.ts"],
        },
        null,
        2,
      ) + "\n",
    );
    await copyFile(
      join(ROOT, "scripts", "consumer", "app.ts"),
      join(sub, "app.ts"),
    );
  }
}
