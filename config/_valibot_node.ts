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
import type * as Valibot from "valibot";

declare const __filename: string | undefined;

let valibot: typeof Valibot | undefined;

/** Returns `valibot`, loading it on the first call. */
export function loadValibot(): typeof Valibot {
  if (valibot === undefined) {
    const meta = import.meta as Partial<ImportMeta>;
    valibot = (typeof meta.resolve === "function"
      ? createRequire(meta.url!)(fileURLToPath(meta.resolve(NAME)))
      : createRequire(__filename!)(NAME)) as typeof Valibot;
  }
  return valibot;
}

const NAME = "valibot";
