// Node.js and Bun flavour of the valibot loader (chosen by
// scripts/build_npm.ts in place of _valibot_deno.ts): valibot is loaded on
// the first call, synchronously, when a schema is first validated or
// appConfigSchema is first used, so importing the package does not pay for
// it. The ES bundle loads valibot's ES module file through require(esm), the
// same instance as the application's own `import "valibot"` (its global
// configuration, set with `v.setGlobalConfig`, is then shared); the CommonJS
// bundle, where esbuild leaves `import.meta` empty, loads what `require`
// gives. The name resolves from this package's own folder, as in
// core/_open_telemetry_api_node.ts.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DependencyLoadError } from "../core/mod.ts";
import type * as Valibot from "valibot";

declare const __filename: string | undefined;

let valibot: typeof Valibot | undefined;

/** Returns `valibot`, loading it on the first call. */
export function loadValibot(): typeof Valibot {
  if (valibot === undefined) {
    valibot = requireDependency() as typeof Valibot;
  }
  return valibot;
}

const NAME = "valibot";
const PACKAGE = "@vendor/kit-platform-configuration";

// Loads NAME from this package's folder (see the first comment); a failure
// (not installed, or left out of a bundle) names both packages and the fix.
function requireDependency(): unknown {
  const meta = import.meta as Partial<ImportMeta>;
  try {
    if (typeof meta.resolve === "function") {
      return createRequire(meta.url!)(fileURLToPath(meta.resolve(NAME)));
    }
    if (typeof __filename === "string") return createRequire(__filename)(NAME);
    throw new Error(
      "this module host has neither import.meta.resolve nor __filename",
    );
  } catch (error) {
    throw new DependencyLoadError(NAME, PACKAGE, error);
  }
}
