// Browser flavour of requireDependency (chosen by scripts/_variants.ts under
// the `browser` condition): a browser has no synchronous loader; a bundler
// includes what a module imports.
import { DependencyLoadError } from "../core/mod.ts";
import type { DependencyImportMeta } from "./require_dependency.ts";

/** Throws: in a browser, import the dependency instead. */
export function requireFrom(
  name: string,
  packageName: string,
  _meta: DependencyImportMeta,
  _filename: string | undefined,
): never {
  throw new DependencyLoadError(
    name,
    packageName,
    new Error("a browser has no synchronous loader: import it instead"),
  );
}
