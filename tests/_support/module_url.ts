// The URL of a Kit module's entry point for tests that start a child process
// importing Kit. Under `deno test` that is the source (`core/mod.ts`); in the
// npm passes (scripts/test_npm.ts), where this file runs from
// `npm/tests/<esm|cjs>/_support/`, it is the built package's entry, so the
// child loads exactly what npm users get.

const NPM_DIRS: Record<string, string> = {
  core: "kit-core",
  platform: "kit-platform",
  config: "kit-platform-configuration",
  logging: "kit-platform-logging",
  http: "kit-platform-http",
  localization: "kit-platform-localization",
  caching: "kit-platform-caching",
  analytics: "kit-platform-analytics",
};

/** Returns the file URL of a module's entry point (`core`, `platform`, …). */
export function moduleUrl(folder: string): string {
  const here = import.meta.url;
  // `npm/`, or the folder KIT_NPM_OUT named (`npm-http/`…).
  const npm = /\/npm[^/]*\/tests\/(esm|cjs)\/_support\//.exec(here);
  if (npm) {
    const flavor = npm[1] === "cjs" ? "script" : "esm";
    return new URL(`../../../${NPM_DIRS[folder]}/${flavor}/mod.js`, here).href;
  }
  return new URL(`../../${folder}/mod.ts`, here).href;
}

/** Whether the tests run against the built npm packages. */
export function isNpmPass(): boolean {
  return /\/npm[^/]*\/tests\/(esm|cjs)\//.test(import.meta.url);
}

/**
 * The file URL of a path in the checkout (`tests/localization/fixtures/`):
 * beside this file under `deno test`; in the npm passes, under the checkout
 * scripts/test_npm.ts names in KIT_TEST_REPO, since the build (KIT_NPM_OUT)
 * may be anywhere.
 */
export function repoUrl(path: string): URL {
  const repo = isNpmPass()
    ? (globalThis as { process?: { env: Record<string, string | undefined> } })
      .process?.env.KIT_TEST_REPO
    : undefined;
  return repo === undefined
    ? new URL(`../../${path}`, import.meta.url)
    : new URL(
      path,
      new URL(`file://${repo.endsWith("/") ? repo : `${repo}/`}`),
    );
}
