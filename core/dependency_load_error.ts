import { KitError } from "./kit_error.ts";

/**
 * Thrown when one of Kit's npm packages cannot load a dependency it loads on
 * first use rather than at import (in Node.js and Bun: ky with the first
 * `HttpClient`, LogTape with the first console provider, valibot with the
 * first schema, and so on). The usual cause is a server bundled into one
 * file: the bundler cannot follow a dependency loaded by name at run time, so
 * it is neither in the bundle nor in a `node_modules` folder beside it.
 *
 * Message: `<package> could not load its dependency '<dependency>': <cause>.
 * Install it beside <package> (npm install <dependency>); when bundling the
 * application, keep <package> external (esbuild --packages=external, or list
 * it in your bundler's externals) and ship node_modules with it.`
 *
 * @example Telling the failure apart
 * ```ts
 * import { DependencyLoadError } from "@vendor/kit/core";
 *
 * const error = new DependencyLoadError(
 *   "ky",
 *   "@vendor/kit-platform-http",
 *   new Error("Cannot find module 'ky'"),
 * );
 * console.log(error.dependency); // "ky"
 * ```
 */
export class DependencyLoadError extends KitError {
  /** What went wrong, as a stable string: `dependency_load`. */
  readonly code = "dependency_load";

  /** The npm dependency that could not be loaded. */
  readonly dependency: string;
  /** The Kit package that loads it. */
  readonly packageName: string;

  /**
   * Creates the error; the message names both packages, the cause and what to
   * do.
   *
   * @param dependency The npm dependency that could not be loaded.
   * @param packageName The Kit package that loads it.
   * @param cause What the runtime's loader threw.
   */
  constructor(dependency: string, packageName: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `${packageName} could not load its dependency '${dependency}': ${reason}. Install it beside ${packageName} (npm install ${dependency}); when bundling the application, keep ${packageName} external (esbuild --packages=external, or list it in your bundler's externals) and ship node_modules with it.`,
      { cause },
    );
    this.name = "DependencyLoadError";
    this.dependency = dependency;
    this.packageName = packageName;
  }
}
