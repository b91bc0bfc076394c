import process from "node:process";

// Kit's eight npm packages and the source folder of each, in
// dependency order (a package only uses packages listed before it), and the
// modules each may import (`uses`), which scripts/_module_graph.ts enforces.

/** One npm package built from one top-level module folder. */
export interface PackageInfo {
  /**
   * The module folder (`core`, `platform`, …); `docs/<folder>.md` is its
   * reference and the package README.
   */
  folder: string;
  /** The npm package name. */
  name: string;
  /**
   * The modules (folders) whose mod.ts this one may import, each listed
   * before it in `PACKAGES`: the only imports between modules that
   * `deno task check` and the npm build accept (scripts/_module_graph.ts),
   * and the arrows of docs/architecture.svg. Besides these, a module
   * imports its own files and, unless `INTERNAL_USES` names it, internal/.
   */
  uses: readonly string[];
  /** The folder under `npm/`. */
  dir: string;
  /** One line for package.json. */
  description: string;
  /** package.json `keywords`: what someone searching a registry types. */
  keywords: readonly string[];
  /**
   * Command-line programs the package installs (package.json `bin`): the
   * program name and its source file, relative to the repository root: the
   * module's folder, or a folder of its own under `cli/` (`cli/doctor/`),
   * whose files are bundled into the program and reach Kit through the
   * modules' mod.ts and internal/. The file exports
   * `main(args: string[]): Promise<number>`, which gets the arguments after
   * the program name and returns the exit code.
   */
  bins?: Record<string, string>;
  /**
   * Further entry points: the package.json `exports` subpath (`./hono`) and
   * its source file, relative to the repository root (JSR: the `exports` of
   * deno.json under the module's name, `./platform/hono`). Each gets its own
   * bundles, `esm/<file>.js` and `script/<file>.js`.
   */
  subpaths?: Record<string, string>;
  /**
   * The JSR export of a subpath when it is not `./<folder>/<name>`: the test
   * kit is `./testing` on JSR (`@vendor/kit/testing`) and `./testing` of
   * the platform package on npm (`@vendor/kit-platform/testing`).
   */
  jsrExports?: Record<string, string>;
  /**
   * npm packages only a subpath needs: optional peer dependencies rather
   * than dependencies, never loaded through the main entry
   * (`scripts/check_packages.ts` checks both).
   */
  optionalPeers?: readonly string[];
}

export const PACKAGES: readonly PackageInfo[] = [
  {
    folder: "core",
    uses: [],
    name: "@vendor/kit-core",
    dir: "kit-core",
    description:
      "Kit core utilities: string helpers, case conversion, type guards.",
    keywords: ["kit", "utilities", "strings", "case-conversion", "type-guards"],
  },
  {
    folder: "platform",
    uses: ["core"],
    name: "@vendor/kit-platform",
    dir: "kit-platform",
    description:
      "Kit platform: the application host (start-up steps, health, request context, bounded shutdown), ServiceLocator, EventAggregator, Signal, and the relational database (PostgreSQL, PGlite).",
    keywords: [
      "kit",
      "application-host",
      "postgresql",
      "dependency-injection",
      "service-locator",
      "health-check",
      "graceful-shutdown",
    ],
    subpaths: {
      "./hono": "platform/hono.ts",
      "./database": "platform/database/mod.ts",
      "./testing": "platform/testing.ts",
    },
    jsrExports: { "./testing": "./testing" },
    optionalPeers: ["hono", "pg", "@electric-sql/pglite"],
  },
  {
    folder: "config",
    uses: ["core", "platform"],
    name: "@vendor/kit-platform-configuration",
    dir: "kit-platform-configuration",
    description:
      "Kit configuration: layered JSON files, environment variables, .env and memory sources with schema validation.",
    keywords: [
      "kit",
      "configuration",
      "config",
      "environment-variables",
      "dotenv",
      "validation",
    ],
    bins: { "kit-doctor": "cli/doctor/main.ts" },
  },
  {
    folder: "http",
    uses: ["core", "platform", "config"],
    name: "@vendor/kit-platform-http",
    dir: "kit-platform-http",
    description:
      "Kit HTTP client with interceptors, auth, timeouts and retries.",
    keywords: [
      "kit",
      "http-client",
      "fetch",
      "interceptors",
      "retry",
      "timeout",
    ],
  },
  {
    folder: "logging",
    uses: ["core", "platform", "config"],
    name: "@vendor/kit-platform-logging",
    dir: "kit-platform-logging",
    description:
      "Kit logging: LoggerManager with console, rotating file and remote providers.",
    keywords: [
      "kit",
      "logging",
      "logger",
      "log-rotation",
      "structured-logging",
    ],
  },
  {
    folder: "localization",
    uses: ["core", "platform", "config"],
    name: "@vendor/kit-platform-localization",
    dir: "kit-platform-localization",
    description:
      "Kit localization: loaders, value parsers, key resolvers, fallback and a culture-change signal.",
    keywords: [
      "kit",
      "localization",
      "i18n",
      "icu-messageformat",
      "translation",
    ],
    bins: { "kit-i18n": "cli/i18n/main.ts" },
  },
  {
    folder: "caching",
    uses: ["core", "platform", "config"],
    name: "@vendor/kit-platform-caching",
    dir: "kit-platform-caching",
    description:
      "Kit caching: memory and Redis stores with refresh-ahead and stale-while-revalidate policies.",
    keywords: ["kit", "cache", "caching", "redis", "stale-while-revalidate"],
  },
  {
    folder: "analytics",
    uses: ["core", "platform", "config"],
    name: "@vendor/kit-platform-analytics",
    dir: "kit-platform-analytics",
    description:
      "Kit analytics: batching, sampling, consent and automatic tracking.",
    keywords: ["kit", "analytics", "tracking", "consent", "batching"],
  },
];

/**
 * The modules the shared files of internal/ may import (their mod.ts):
 * core only. internal/ sits between core and the other modules: every
 * package but core may import its files and bundles those it reaches, and
 * core, which internal/ builds on, imports nothing else of Kit.
 */
export const INTERNAL_USES: readonly string[] = ["core"];

/** The JSR export key of a subpath of a package (`./platform/hono`). */
export function jsrExportOf(info: PackageInfo, subpath: string): string {
  return info.jsrExports?.[subpath] ?? `./${info.folder}/${subpath.slice(2)}`;
}

/**
 * The JSR import paths that are not `@vendor/kit/<folder>[/<name>]`, and
 * the npm specifier of each (`@vendor/kit/testing` →
 * `@vendor/kit-platform/testing`).
 */
export function jsrAliases(): [string, string][] {
  return PACKAGES.flatMap((info) =>
    Object.entries(info.jsrExports ?? {}).map((
      [subpath, key],
    ): [string, string] => [
      `@vendor/kit/${key.slice(2)}`,
      info.name + subpath.slice(1),
    ])
  );
}

/** The package built from a module folder. */
export function packageOfFolder(folder: string): PackageInfo | undefined {
  return PACKAGES.find((info) => info.folder === folder);
}

/**
 * The project generator's npm package, which `npm init @vendor/kit <folder>`
 * runs (npm maps `@vendor/kit` to `@vendor/create-kit`). A program only: no
 * library entry, no dependencies; built beside the eight packages by
 * `buildCreatePackage` and published with them at the same version.
 */
export const CREATE_PACKAGE: PackageInfo = {
  folder: "create",
  uses: [],
  name: "@vendor/create-kit",
  dir: "create-kit",
  description:
    "Starts a new Kit service: npm init @vendor/kit <folder> writes a small, tested service with health probes, a Dockerfile and compose.yaml.",
  keywords: ["kit", "create", "scaffold", "generator", "template"],
  bins: { "create-kit": "create/_npm_main.ts" },
};

/** package.json's links to the repository: where the source and issues are. */
export interface RepositoryFields {
  repository: { type: "git"; url: string; directory: string };
  homepage: string;
  bugs: { url: string };
}

/**
 * The `repository`, `homepage` and `bugs` of a package built from `folder`,
 * from the web address of Kit's repository in `KIT_NPM_REPOSITORY`
 * (`https://git.acme.dev/platform/kit`): the git URL with the package's
 * folder, the repository's README, and its issues (`<address>/issues`, or
 * `KIT_NPM_BUGS` where the host puts them elsewhere). Undefined when the
 * variable is unset or empty: the fields are left out rather than pointing
 * at an address nobody owns.
 *
 * @param folder The module folder (`platform`).
 * @param env The environment (the process's by default).
 * @returns The three fields, or undefined.
 * @throws {Error} When `KIT_NPM_REPOSITORY` or `KIT_NPM_BUGS` is not an
 * http(s) address.
 */
export function repositoryFields(
  folder: string,
  env: Record<string, string | undefined> = process.env,
): RepositoryFields | undefined {
  const address = env.KIT_NPM_REPOSITORY?.trim();
  if (!address) return undefined;
  const web = webAddress("KIT_NPM_REPOSITORY", address).replace(/\.git$/, "");
  const bugs = env.KIT_NPM_BUGS?.trim();
  return {
    repository: { type: "git", url: `git+${web}.git`, directory: folder },
    homepage: `${web}#readme`,
    bugs: { url: bugs ? webAddress("KIT_NPM_BUGS", bugs) : `${web}/issues` },
  };
}

function webAddress(variable: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol)) {
    throw new Error(
      `${variable} is '${value}', which is not an http(s) address: set it to the web address of Kit's repository (https://<host>/<owner>/kit), or unset it to leave repository, homepage and bugs out of the packages`,
    );
  }
  return value.replace(/\/+$/, "");
}

/**
 * The package.json `author`: the copyright holder the LICENSE names
 * (`Copyright (c) 2026 Kit contributors` → `Kit contributors`), so the two
 * never disagree.
 *
 * @param license The LICENSE text.
 * @returns The holder's name.
 * @throws {Error} When the LICENSE has no `Copyright (c) <year> <holder>`
 * line.
 */
export function authorOf(license: string): string {
  const holder = /^Copyright \(c\) [\d\s,-]+ (.+)$/m.exec(license)?.[1];
  if (holder === undefined) {
    throw new Error(
      "LICENSE has no 'Copyright (c) <year> <holder>' line to take package.json's author from",
    );
  }
  return holder.trim();
}
