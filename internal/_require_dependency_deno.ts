// Deno flavour of requireDependency (the npm build uses
// _require_dependency_node.ts for Node.js and Bun, and
// _require_dependency_browser.ts for browsers): Kit's modules import their
// dependencies with the module in Deno, so nothing calls it here; a caller
// gets an error that says to do the same.
import { DependencyLoadError } from "../core/mod.ts";
import type { DependencyImportMeta } from "./require_dependency.ts";

/** Throws: in Deno, import the dependency instead. */
export function requireFrom(
  name: string,
  packageName: string,
  _meta: DependencyImportMeta,
  _filename: string | undefined,
): never {
  throw new DependencyLoadError(
    name,
    packageName,
    new Error("Deno loads dependencies with the module: import it instead"),
  );
}
