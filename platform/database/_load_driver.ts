// The drivers are optional peers of @vendor/kit-platform: loaded on the
// first use of the engine that needs them, so that importing the entry
// point (and the rest of the package) loads neither.
import { DependencyLoadError } from "../../core/mod.ts";

const loaded = new Map<string, Promise<unknown>>();

/** The npm package this entry point belongs to, for the message. */
const PACKAGE = "@vendor/kit-platform";

async function importDriver(name: "pg" | "@electric-sql/pglite") {
  // Literal specifiers, so bundlers and Deno see them.
  return name === "pg"
    ? await import("pg")
    : await import("@electric-sql/pglite");
}

/**
 * The driver's module (its CommonJS export for `pg`), loaded once.
 *
 * @throws {DependencyLoadError} When it is not installed.
 */
export function loadDriver<T>(name: "pg" | "@electric-sql/pglite"): Promise<T> {
  let module = loaded.get(name);
  if (module === undefined) {
    module = importDriver(name).then(
      (value: unknown) => {
        const withDefault = value as { default?: unknown };
        // pg is CommonJS: its exports are the default export of the ES
        // module view (Node.js, Deno) or the module itself (a bundle).
        return name === "pg" &&
            typeof (value as { Pool?: unknown }).Pool !== "function" &&
            withDefault.default !== undefined
          ? withDefault.default
          : value;
      },
      (error: unknown) => {
        loaded.delete(name);
        throw new DependencyLoadError(name, PACKAGE, error);
      },
    );
    loaded.set(name, module);
  }
  return module as Promise<T>;
}
