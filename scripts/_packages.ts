// The eight npm packages of spec §1 and the source folder of each, in
// dependency order (a package only depends on packages listed before it).

/** One npm package built from one top-level module folder. */
export interface PackageInfo {
  /**
   * The module folder (`core`, `platform`, …); `docs/<folder>.md` is its
   * reference and the package README.
   */
  folder: string;
  /** The npm package name. */
  name: string;
  /** The folder under `npm/`. */
  dir: string;
  /** One line for package.json. */
  description: string;
  /**
   * Command-line programs the package installs (package.json `bin`): the
   * program name and its source file, relative to the repository root. The
   * file exports `main(args: string[]): Promise<number>`, which gets the
   * arguments after the program name and returns the exit code.
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
    name: "@vendor/kit-core",
    dir: "kit-core",
    description:
      "Kit core utilities: string helpers, case conversion, type guards.",
  },
  {
    folder: "platform",
    name: "@vendor/kit-platform",
    dir: "kit-platform",
    description:
      "Kit platform: the application host (start-up steps, health, request context, bounded shutdown), ServiceLocator, EventAggregator and Signal.",
    subpaths: {
      "./hono": "platform/hono.ts",
      "./testing": "platform/testing.ts",
    },
    jsrExports: { "./testing": "./testing" },
    optionalPeers: ["hono"],
  },
  {
    folder: "config",
    name: "@vendor/kit-platform-configuration",
    dir: "kit-platform-configuration",
    description:
      "Kit configuration: layered JSON files, environment variables, .env and memory sources with schema validation.",
    bins: { "kit-doctor": "config/_doctor_cli.ts" },
  },
  {
    folder: "http",
    name: "@vendor/kit-platform-http",
    dir: "kit-platform-http",
    description:
      "Kit HTTP client with interceptors, auth, timeouts and retries.",
  },
  {
    folder: "logging",
    name: "@vendor/kit-platform-logging",
    dir: "kit-platform-logging",
    description:
      "Kit logging: LoggerManager with console, rotating file and remote providers.",
  },
  {
    folder: "localization",
    name: "@vendor/kit-platform-localization",
    dir: "kit-platform-localization",
    description:
      "Kit localization: loaders, value parsers, key resolvers, fallback and a culture-change signal.",
    bins: { "kit-i18n": "localization/_i18n_cli.ts" },
  },
  {
    folder: "caching",
    name: "@vendor/kit-platform-caching",
    dir: "kit-platform-caching",
    description:
      "Kit caching: memory and Redis stores with refresh-ahead and stale-while-revalidate policies.",
  },
  {
    folder: "analytics",
    name: "@vendor/kit-platform-analytics",
    dir: "kit-platform-analytics",
    description:
      "Kit analytics: batching, sampling, consent and automatic tracking.",
  },
];

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
  name: "@vendor/create-kit",
  dir: "create-kit",
  description:
    "Starts a new Kit service: npm init @vendor/kit <folder> writes a small, tested service with health probes, a Dockerfile and compose.yaml.",
  bins: { "create-kit": "create/_npm_main.ts" },
};
