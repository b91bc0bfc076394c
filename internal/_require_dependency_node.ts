// Node.js and Bun flavour of requireDependency (chosen by
// scripts/_variants.ts in place of _require_dependency_deno.ts).
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DependencyLoadError } from "../core/mod.ts";
import type { DependencyImportMeta } from "./require_dependency.ts";

/** Loads `name` from the caller's folder; see requireDependency. */
export function requireFrom(
  name: string,
  packageName: string,
  meta: DependencyImportMeta,
  filename: string | undefined,
): unknown {
  try {
    if (typeof meta.resolve === "function" && meta.url !== undefined) {
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
