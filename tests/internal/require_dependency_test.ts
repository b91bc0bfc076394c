// requireDependency(): how Kit's npm packages load a dependency on first use
// in Node.js and Bun. It resolves from the caller (an ES module's
// import.meta, or a CommonJS __filename), gives an ES caller the instance its
// own `import` gets, and turns any failure into a DependencyLoadError; in
// Deno (which imports dependencies with the module) it only throws.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DependencyLoadError } from "../../core/mod.ts";
import { requireDependency } from "../../internal/require_dependency.ts";
import { isNpmPass, moduleUrl } from "../_support/module_url.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

// The URL of a file of internal/ for a child process: the source under
// `deno test`, its transpiled copy (beside the tests) in the npm passes.
function internalUrl(name: string): string {
  return isNpmPass()
    ? new URL(`../_kit_internal/${name}.js`, import.meta.url).href
    : new URL(`../../internal/${name}.ts`, import.meta.url).href;
}
import { lastJson, runChildScript } from "../_support/child_script.ts";

describe("requireDependency()", () => {
  it("says to import the dependency instead, in Deno", {
    skip: isNpmPass() ? "the npm packages load dependencies with it" : false,
  }, () => {
    assert.throws(
      () => requireDependency("ky", "my-package", {}),
      (error: unknown) =>
        error instanceof DependencyLoadError &&
        error.dependency === "ky" && error.packageName === "my-package" &&
        /my-package could not load its dependency 'ky': Deno loads dependencies with the module: import it instead/
          .test(error.message),
    );
  });

  it(
    "loads from the caller's folder: the ES caller's own instance, CommonJS by name, a missing one as a DependencyLoadError",
    {
      skip: isNpmPass()
        ? false
        : "Deno imports dependencies with the module instead",
    },
    async () => {
      // The script runs inside the npm workspace, whose node_modules holds
      // @opentelemetry/api (a dependency of kit-core).
      const workspace = dirname(
        dirname(dirname(fileURLToPath(moduleUrl("core")))),
      );
      const dir = await mkdtemp(join(workspace, ".require-dependency-"));
      try {
        const result = await runChildScript(
          `
const core = await import(CORE_URL);
const { requireDependency } = await import(${
            JSON.stringify(internalUrl("require_dependency"))
          });
const api = await import("@opentelemetry/api");
const fromEsm = requireDependency("@opentelemetry/api", "test", import.meta);
const fromCjs = requireDependency("@opentelemetry/api", "test", {}, process.argv[1]);
let missing;
try {
  requireDependency("kit-no-such-package", "my-package", import.meta);
} catch (error) {
  missing = { isClass: error instanceof core.DependencyLoadError, message: error.message };
}
console.log(JSON.stringify({
  sameInstance: fromEsm.trace === api.trace,
  cjsWorks: typeof fromCjs.trace.getTracer,
  missing,
}));
`,
          { dir },
        );
        assert.equal(result.code, 0, result.out);
        const seen = lastJson(result) as {
          sameInstance: boolean;
          cjsWorks: string;
          missing: { isClass: boolean; message: string };
        };
        assert.equal(seen.sameInstance, true);
        assert.equal(seen.cjsWorks, "function");
        assert.equal(seen.missing.isClass, true);
        assert.match(
          seen.missing.message,
          /^my-package could not load its dependency 'kit-no-such-package': .+\. Install it beside my-package \(npm install kit-no-such-package\); when bundling the application, keep my-package external/,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
