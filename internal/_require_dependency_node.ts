// Node.js and Bun flavour of requireDependency (chosen by
// scripts/_variants.ts in place of _require_dependency_deno.ts).
//
// It reaches the module and url built-ins through the global `process`
// (`getBuiltinModule`, Node.js 20.16 and later, Bun) on the call, not by a
// static `node:` import: every package that loads a dependency on first use
// bundles this file, and its server bundle must stay free of `node:` imports
// at load (a page bundled from it, the localization module's rule).
import type * as NodeModule from "node:module";
import type * as NodeUrl from "node:url";
import { DependencyLoadError } from "../core/mod.ts";
import type { DependencyImportMeta } from "./require_dependency.ts";

interface BuiltinModules {
  getBuiltinModule(id: "module"): typeof NodeModule;
  getBuiltinModule(id: "url"): typeof NodeUrl;
}

/** Loads `name` from the caller's folder; see requireDependency. */
export function requireFrom(
  name: string,
  packageName: string,
  meta: DependencyImportMeta,
  filename: string | undefined,
): unknown {
  try {
    const process = (globalThis as { process?: BuiltinModules }).process;
    if (typeof process?.getBuiltinModule !== "function") {
      throw new Error("the runtime has no process.getBuiltinModule");
    }
    const { createRequire } = process.getBuiltinModule("module");
    if (typeof meta.resolve === "function" && meta.url !== undefined) {
      const { fileURLToPath } = process.getBuiltinModule("url");
      return createRequire(meta.url)(fileURLToPath(meta.resolve(name)));
    }
    if (filename !== undefined) return createRequire(filename)(name);
    throw new Error(
      "the calling module has neither import.meta.resolve nor __filename",
    );
  } catch (error) {
    throw new DependencyLoadError(name, packageName, error);
  }
}
