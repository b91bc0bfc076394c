// Node.js and Bun flavour of the valibot loader (chosen by
// scripts/_variants.ts in place of _valibot_deno.ts): valibot is loaded on
// the first call, synchronously, when a schema is first validated or
// appConfigSchema is first used, so importing the package does not pay for
// it.
//
// requireDependency (core) resolves it from this package's own folder, the
// same instance as the application's own import (valibot's global
// configuration, set with `v.setGlobalConfig`, is then shared).
import { requireDependency } from "../../internal/require_dependency.ts";
import type * as Valibot from "valibot";

declare const __filename: string | undefined;

let valibot: typeof Valibot | undefined;

/** Returns `valibot`, loading it on the first call. */
export function loadValibot(): typeof Valibot {
  if (valibot === undefined) {
    valibot = requireDependency(
      "valibot",
      "@vendor/kit-platform-configuration",
      import.meta,
      typeof __filename === "string" ? __filename : undefined,
    ) as typeof Valibot;
  }
  return valibot;
}
