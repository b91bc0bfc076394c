/**
 * Runtime variants: where a module needs different code per runtime (a
 * dependency imported with the module in Deno and browsers but loaded on
 * first use in Node.js, a server on `Deno.serve` or on `node:http`), its
 * sources import the variant by a `#name` specifier (`#http/ky`), never a
 * file of it. The name is `#<folder>/<what>`, so it is unique in the one
 * deno.json of the repository.
 *
 * - Deno and JSR: deno.json's `imports` maps each name to its Deno file;
 *   `deno check`, `deno test` and `deno publish` resolve it from there.
 * - npm: {@linkcode VARIANTS} below maps each name, per package.json
 *   condition (`node`, `bun`, `browser`, `default`), to the file the npm
 *   packages use. scripts/build_npm.ts resolves every `#name` a package
 *   imports with it when it bundles, once per runtime it makes a bundle for
 *   (Node.js and Bun, and browsers), matching conditions the way Node.js,
 *   Bun and web bundlers match a package.json `imports` entry: Node.js takes
 *   `node` then `default`; Bun `bun`, `node`, `default`; a web bundler
 *   `browser`, `default`. Deno running an npm package matches `node` as
 *   well, so the npm packages carry no Deno file.
 *
 * A name whose entry has no file for a runtime a package is built for, and
 * no `default`, fails the build (naming the variant, the runtime and the
 * importing file): there is no fallback by file name.
 *
 * File names: the variant `#<folder>/<what>` lives in
 * `<folder>/_<what>_<runtime>.ts`, `<runtime>` one of `deno`, `node`, `bun`,
 * `browser`, naming the runtime the file is written for. A file several
 * runtimes take is named by the first of these that takes it:
 *
 * 1. `node`: the file Node.js takes on npm (its `node` condition, or the
 *    `default` it falls back to). Its code uses Node.js's API (`node:`
 *    modules), which Bun has too and Deno as well: deno.json may map the
 *    same file (`#platform/server/async_context`).
 * 2. `deno`: deno.json's file where Node.js takes another one; browsers may
 *    share it through `default` (`#http/ky`: the Deno file imports ky with
 *    the module, the Node.js file loads it on first use).
 * 3. `bun`: a file only Bun takes (its `bun` condition).
 * 4. `browser`: a file only web bundlers take (`browser`, or a `default`
 *    no other runtime reaches).
 *
 * {@linkcode checkVariants} holds every file to this rule.
 *
 * @module
 */

/** A package.json condition a runtime variant can name a file for. */
export type VariantCondition = "node" | "bun" | "browser" | "default";

/** The files of one runtime variant on npm, by condition (from the root). */
export type VariantFiles = Readonly<Partial<Record<VariantCondition, string>>>;

/**
 * The runtimes the npm build makes bundles for, each with the conditions it
 * matches, in the order it tries them.
 */
const NPM_RUNTIMES = {
  node: ["node", "default"],
  bun: ["bun", "node", "default"],
  browser: ["browser", "default"],
} as const satisfies Record<string, readonly VariantCondition[]>;

/** A runtime the npm build makes bundles for. */
export type NpmRuntime = keyof typeof NPM_RUNTIMES;

/**
 * Every runtime variant's npm files. Deno's file of each name is the one
 * deno.json's `imports` maps it to; where a runtime shares Deno's file (a
 * browser importing a dependency with the module, as Deno does), `default`
 * or that runtime's condition names the same file.
 */
export const VARIANTS: Readonly<Record<string, VariantFiles>> = {
  // Dependencies loaded on first use in Node.js and Bun (requireDependency),
  // imported with the module in Deno and browsers.
  "#internal/telemetry/open_telemetry_api": {
    node: "internal/telemetry/_open_telemetry_api_node.ts",
    default: "internal/telemetry/_open_telemetry_api_deno.ts",
  },
  "#internal/lru_cache": {
    node: "internal/_lru_cache_node.ts",
    default: "internal/_lru_cache_deno.ts",
  },
  "#config/schema/valibot": {
    node: "config/schema/_valibot_node.ts",
    default: "config/schema/_valibot_deno.ts",
  },
  "#http/ky": {
    node: "http/_ky_node.ts",
    default: "http/_ky_deno.ts",
  },
  "#logging/logtape": {
    node: "logging/_logtape_node.ts",
    default: "logging/_logtape_deno.ts",
  },
  "#localization/messages/icu_parser": {
    node: "localization/messages/_icu_parser_node.ts",
    default: "localization/messages/_icu_parser_deno.ts",
  },
  "#localization/cultures/locale_matcher": {
    node: "localization/cultures/_locale_matcher_node.ts",
    default: "localization/cultures/_locale_matcher_deno.ts",
  },
  // Loading a dependency synchronously: Node.js and Bun only.
  "#internal/require_dependency": {
    node: "internal/_require_dependency_node.ts",
    browser: "internal/_require_dependency_browser.ts",
  },
  // Runtime APIs whose npm file works in Node.js, Bun and browsers alike
  // (they test what the runtime has).
  "#core/unref": { default: "core/_unref_node.ts" },
  "#internal/unref": { default: "internal/_unref_node.ts" },
  "#internal/settings/env": { default: "internal/settings/_env_node.ts" },
  "#config/providers/environment": {
    default: "config/providers/_environment_node.ts",
  },
  "#logging/providers/terminal": {
    default: "logging/providers/_terminal_node.ts",
  },
  "#analytics/runtime_errors": {
    default: "analytics/_runtime_errors_node.ts",
  },
  // Servers (Node.js and Bun) and browsers apart.
  "#caching/redis/redis_driver": {
    default: "caching/redis/_redis_driver_node.ts",
    browser: "caching/redis/_redis_driver_browser.ts",
  },
  "#config/providers/dotenv": {
    default: "config/providers/_dotenv_node.ts",
    browser: "config/providers/_dotenv_browser.ts",
  },
  "#config/providers/file_system": {
    default: "config/providers/_file_system_node.ts",
    browser: "config/providers/_file_system_browser.ts",
  },
  "#http/request/redirect_mode": {
    default: "http/request/_redirect_mode_node.ts",
    browser: "http/request/_redirect_mode_browser.ts",
  },
  "#localization/loading/fs": {
    default: "localization/loading/_fs_node.ts",
    browser: "localization/loading/_fs_browser.ts",
  },
  "#logging/providers/node_file": {
    default: "logging/providers/_node_file_node.ts",
    browser: "logging/providers/_node_file_browser.ts",
  },
  "#logging/exit": {
    node: "logging/_exit_node.ts",
    browser: "logging/_exit_browser.ts",
  },
  "#platform/server/async_context": {
    default: "platform/server/_async_context_node.ts",
    browser: "platform/server/_async_context_browser.ts",
  },
  "#platform/host/process": {
    node: "platform/host/_process_node.ts",
    browser: "platform/host/_process_browser.ts",
  },
  "#platform/server/server": {
    node: "platform/server/_server_node.ts",
    browser: "platform/server/_server_browser.ts",
  },
};

/**
 * The file (from the root of the repository) a runtime variant resolves to
 * for an npm runtime.
 *
 * @param name The `#name` imported.
 * @param runtime The runtime the bundle is for.
 * @param importer The importing file, for the message.
 * @param variants The table (the tests pass their own).
 * @returns The file's path from the root.
 * @throws {Error} When `name` is not in the table, or its entry has no file
 * for `runtime` and no `default`.
 */
export function variantFile(
  name: string,
  runtime: NpmRuntime,
  importer: string,
  variants: Readonly<Record<string, VariantFiles>> = VARIANTS,
): string {
  const files = variants[name];
  if (files === undefined) {
    throw new Error(
      `${importer}: '${name}' is not a runtime variant; add it to VARIANTS in scripts/_variants.ts and to the imports of deno.json`,
    );
  }
  for (const condition of NPM_RUNTIMES[runtime]) {
    const file = files[condition];
    if (file !== undefined) return file;
  }
  throw new Error(
    `${importer}: the runtime variant '${name}' has no file for ${runtime} and no default (conditions tried: ${
      NPM_RUNTIMES[runtime].join(", ")
    }); add one to its entry in scripts/_variants.ts`,
  );
}

/**
 * Checks the table against deno.json: the same names in both, every file
 * present.
 *
 * @param imports The `imports` of deno.json.
 * @param exists Whether a file (from the root) exists.
 * @param variants The table (the tests pass their own).
 * @throws {Error} Naming the first name or file at fault.
 */
export function checkVariants(
  imports: Readonly<Record<string, string>>,
  exists: (file: string) => boolean,
  variants: Readonly<Record<string, VariantFiles>> = VARIANTS,
): void {
  for (const [name, target] of Object.entries(imports)) {
    if (!name.startsWith("#")) continue;
    if (variants[name] === undefined) {
      throw new Error(
        `deno.json maps the runtime variant '${name}', which scripts/_variants.ts does not list; add its npm files there`,
      );
    }
    if (!exists(target.replace(/^\.\//, ""))) {
      throw new Error(
        `deno.json maps the runtime variant '${name}' to ${target}, which does not exist`,
      );
    }
  }
  for (const [name, files] of Object.entries(variants)) {
    if (!name.startsWith("#") || name.startsWith("#/")) {
      throw new Error(
        `scripts/_variants.ts: '${name}' must start with # (and not #/), as package.json imports require`,
      );
    }
    if (imports[name] === undefined) {
      throw new Error(
        `scripts/_variants.ts lists the runtime variant '${name}', which deno.json's imports do not map; add its Deno file there`,
      );
    }
    for (const [condition, file] of Object.entries(files)) {
      if (!exists(file)) {
        throw new Error(
          `scripts/_variants.ts: the ${condition} file of '${name}', ${file}, does not exist`,
        );
      }
    }
    checkFileNames(name, imports[name].replace(/^\.\//, ""), files);
  }
}

/** The runtimes a variant's file can be named for, in the naming order. */
const FILE_RUNTIMES = ["node", "deno", "bun", "browser"] as const;

/**
 * Checks that each file of a variant is named
 * `<folder>/_<what>_<runtime>.ts` for the first runtime (in
 * {@linkcode FILE_RUNTIMES} order) that takes it.
 */
function checkFileNames(
  name: string,
  denoFile: string,
  files: VariantFiles,
): void {
  const taken = (runtime: NpmRuntime): string | undefined =>
    NPM_RUNTIMES[runtime].map((condition) => files[condition])
      .find((file) => file !== undefined);
  const takers: Record<(typeof FILE_RUNTIMES)[number], string | undefined> = {
    node: taken("node"),
    deno: denoFile,
    bun: taken("bun"),
    browser: taken("browser"),
  };
  const slash = name.lastIndexOf("/");
  const folder = name.slice(1, slash);
  const what = name.slice(slash + 1);
  for (const file of new Set([denoFile, ...Object.values(files)])) {
    const runtime = FILE_RUNTIMES.find((runtime) => takers[runtime] === file) ??
      "browser";
    const expected = `${folder}/_${what}_${runtime}.ts`;
    if (file !== expected) {
      throw new Error(
        `the runtime variant '${name}' names ${file}, which ${runtime} takes first: name it ${expected} (see the naming rule at the top of scripts/_variants.ts)`,
      );
    }
  }
}
