import { requireFrom } from "#internal/require_dependency";

/**
 * Where {@linkcode requireDependency} resolves from: the calling module's
 * `import.meta` (an ES module), or what it has of it (esbuild leaves
 * `import.meta` empty in a CommonJS bundle).
 */
export interface DependencyImportMeta {
  /** The calling module's URL. */
  url?: string;
  /** The calling module's resolver (`import.meta.resolve`). */
  resolve?: (specifier: string) => string;
}

/**
 * Loads an npm dependency synchronously, resolved from the calling package's
 * own folder: how Kit's npm packages load a dependency on first use instead
 * of at import, in Node.js (20.19 and later) and Bun, so that a process pays
 * only for what it uses. Each package calls it from a small Node.js-only
 * adapter; Deno and browsers import the dependency with the module instead.
 *
 * From an ES module it requires the file an `import` would resolve to
 * (`meta.resolve`, then require(esm)), which gives the same instance as the
 * application's own `import` of that package (one module state, such as
 * valibot's global configuration). From CommonJS (`meta.resolve` absent) it
 * requires the name from `filename`, as `require` there would. Resolving
 * from the caller keeps strict layouts (pnpm) working: each package finds
 * its own dependencies.
 *
 * @param name The dependency's package name (`"ky"`).
 * @param packageName The calling package's name, for the error message.
 * @param meta The calling module's `import.meta`.
 * @param filename The calling module's `__filename` in CommonJS, if any.
 * @returns The dependency's module (its namespace for an ES module).
 * @throws {DependencyLoadError} When the dependency cannot be loaded (not
 * installed beside the package, left out of a bundle, or, in Deno and
 * browsers, always: import it there instead).
 *
 * @example A dependency loaded with the first client
 * ```ts ignore
 * // Not run here: it is a module of an npm package (its `declare` and
 * // `export` need a module's top level), and in Deno the call always throws.
 * import { requireDependency } from "./require_dependency.ts";
 *
 * declare const __filename: string | undefined;
 * let ky: typeof import("ky").default | undefined;
 *
 * export function loadKy(): typeof import("ky").default {
 *   return ky ??= (requireDependency(
 *     "ky",
 *     "my-http-package",
 *     import.meta,
 *     typeof __filename === "string" ? __filename : undefined,
 *   ) as typeof import("ky")).default;
 * }
 * ```
 */
export function requireDependency(
  name: string,
  packageName: string,
  meta: DependencyImportMeta,
  filename?: string,
): unknown {
  return requireFrom(name, packageName, meta, filename);
}
