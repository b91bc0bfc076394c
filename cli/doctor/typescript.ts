// What the tsconfig.json settings mean for the TypeScript version the project
// has installed. TypeScript 6 deprecated `moduleResolution: node` (node10)
// and `classic` (error TS5107 unless `ignoreDeprecations: "6.0"`), made
// `bundler` the resolver when none is set (except for `module` node16,
// node18, node20 and nodenext), and turned `esModuleInterop` and
// `allowSyntheticDefaultImports` on for good (false is deprecated);
// TypeScript 7 removed what 6 deprecated (TS5108). Before 6, the resolver
// follows `module`, and `node` is the usual choice for CommonJS.
import type { Check } from "./report.ts";

const GROUP = "Compiler" as const;

/** The advice for a resolver TypeScript 6 and later refuse. */
export const MODERN_RESOLUTION =
  'use `nodenext` (or `bundler` with a bundler): "module": "nodenext" ' +
  '(which implies "moduleResolution": "nodenext"), or "moduleResolution": "bundler"';

/** The TypeScript version the checks judge by (`undefined`: not installed). */
export interface TypeScriptVersion {
  /** The version text (`5.9.3`, `7.0.2`). */
  readonly version: string;
  /** The major version. */
  readonly major: number;
}

/**
 * Reads the major version of a TypeScript version text.
 *
 * @param version The `version` of node_modules/typescript/package.json.
 * @returns The version and its major, or `undefined` when it has no number.
 */
export function typescriptVersion(
  version: string | undefined,
): TypeScriptVersion | undefined {
  const major = Number.parseInt(version ?? "", 10);
  return version === undefined || Number.isNaN(major)
    ? undefined
    : { version, major };
}

function lower(value: unknown): string | undefined {
  return typeof value === "string" ? value.toLowerCase() : undefined;
}

// `ignoreDeprecations: "6.0"` lets TypeScript 6 (only) accept what it
// deprecated.
function silenced(options: Record<string, unknown>): boolean {
  return options.ignoreDeprecations === "6.0";
}

/**
 * The `moduleResolution` check: the resolver in effect (set, or what this
 * TypeScript picks from `module` and `target`) and whether it loads Kit's
 * packages with this TypeScript version.
 *
 * @param options The merged compilerOptions.
 * @param where The tsconfig.json file(s), for the message.
 * @param typescript The installed TypeScript, if any.
 * @returns The check, and the resolver it found.
 */
export function resolutionCheck(
  options: Record<string, unknown>,
  where: string,
  typescript: TypeScriptVersion | undefined,
): { check: Check; resolution: string } {
  const module = lower(options.module);
  const target = lower(options.target);
  const modern = typescript !== undefined && typescript.major >= 6;
  let resolution = lower(options.moduleResolution);
  let implied = "";
  if (resolution === undefined) {
    if (module === "node16" || module === "node18" || module === "node20") {
      resolution = "node16";
    } else if (module === "nodenext") resolution = "nodenext";
    else if (modern) {
      resolution = ["amd", "umd", "system", "none"].includes(module ?? "")
        ? "classic"
        : "bundler";
    } else {
      // Without `module`, TypeScript before 6 emits CommonJS for an ES3/ES5
      // target (the default target) and ES2015 modules for any later one.
      const emitted = module ??
        (target === undefined || target === "es3" || target === "es5"
          ? "commonjs"
          : "es2015");
      if (emitted === "preserve") resolution = "bundler";
      else if (emitted === "commonjs") resolution = "node10";
      // Every other module kind, `none` included.
      else resolution = "classic";
    }
    implied = resolution !== "bundler" || !modern ||
        module === "preserve"
      ? ` (not set; ${
        module !== undefined
          ? `module ${module}`
          : `module not set, target ${target ?? "not set"}`
      } makes TypeScript use ${resolution})`
      : ` (not set; TypeScript ${typescript.version} uses bundler${
        module === undefined ? "" : ` for module ${module}`
      })`;
  }
  const version = typescript === undefined
    ? ""
    : ` (TypeScript ${typescript.version})`;
  const message = `${resolution}${implied} in ${where}${version}`;
  const base = { group: GROUP, name: "moduleResolution" } as const;
  const found = resolution;
  const result = (check: Check): { check: Check; resolution: string } => ({
    check,
    resolution: found,
  });
  if (["node16", "nodenext", "bundler"].includes(resolution)) {
    return result({ ...base, status: "pass", message });
  }
  const legacy = resolution === "node" || resolution === "node10";
  if (legacy && typescript === undefined) {
    return result({
      ...base,
      status: "warn",
      message:
        `${message}; TypeScript is not in node_modules, so the doctor cannot tell whether it still takes ${resolution}: TypeScript before 6 does, 6 deprecates it (TS5107) and 7 removed it (TS5108)`,
      advice:
        `keep ${resolution} only with TypeScript before 6; from 6 on, ${MODERN_RESOLUTION}`,
    });
  }
  if (legacy && typescript !== undefined && typescript.major < 6) {
    return result({ ...base, status: "pass", message });
  }
  if (typescript !== undefined && typescript.major >= 7) {
    return result({
      ...base,
      status: "fail",
      message:
        `${message}: TypeScript 7 removed it and stops with error TS5108 ("Option 'moduleResolution=${resolution}' has been removed")`,
      advice: MODERN_RESOLUTION,
    });
  }
  if (typescript !== undefined && typescript.major === 6) {
    if (legacy && silenced(options)) {
      return result({
        ...base,
        status: "warn",
        message:
          `${message}: deprecated, accepted only because of "ignoreDeprecations": "6.0"; TypeScript 7 refuses it (TS5108)`,
        advice: `before moving to TypeScript 7, ${MODERN_RESOLUTION}`,
      });
    }
    return result({
      ...base,
      status: "fail",
      message:
        `${message}: TypeScript 6 deprecated it and stops with error TS5107 ("Option 'moduleResolution=${resolution}' is deprecated")`,
      advice: MODERN_RESOLUTION,
    });
  }
  // classic before TypeScript 6 (or with no TypeScript installed).
  return result({
    ...base,
    status: "fail",
    message,
    advice:
      `set "moduleResolution" to "node" (with "module": "commonjs"), "node16", "nodenext" or "bundler": with ${resolution} TypeScript reports "Cannot find module '@vendor/kit-…' or its corresponding type declarations". Before TypeScript 6, node works; from 6 on, ${MODERN_RESOLUTION}`,
  });
}

/**
 * The `esModuleInterop` and `allowSyntheticDefaultImports` checks for this
 * TypeScript version.
 *
 * @param options The merged compilerOptions.
 * @param where The tsconfig.json file(s), for the message.
 * @param path The project's tsconfig.json, for the advice.
 * @param typescript The installed TypeScript, if any.
 * @param resolution The resolver in effect (bundler implies synthetic
 * default imports).
 * @returns The two checks.
 */
export function interopChecks(
  options: Record<string, unknown>,
  where: string,
  path: string,
  typescript: TypeScriptVersion | undefined,
  resolution: string,
): Check[] {
  const module = lower(options.module);
  if (typescript !== undefined && typescript.major >= 6) {
    return ["esModuleInterop", "allowSyntheticDefaultImports"].map(
      (name): Check => {
        const value = options[name];
        if (value !== false) {
          return {
            group: GROUP,
            name,
            status: "pass",
            message: value === undefined
              ? `on (TypeScript ${typescript.version} turns it on by default)`
              : `${String(value)} in ${where}`,
          };
        }
        const seven = typescript.major >= 7;
        return {
          group: GROUP,
          name,
          status: seven || !silenced(options) ? "fail" : "warn",
          message: `false in ${where}: ${
            seven
              ? `TypeScript ${typescript.version} removed it and stops with error TS5108`
              : `TypeScript ${typescript.version} deprecated it (error TS5107${
                silenced(options) ? ', silenced by "ignoreDeprecations"' : ""
              })`
          }`,
          advice:
            `remove "${name}": false from ${path} (it is always on from TypeScript 6)`,
        };
      },
    );
  }
  const interopImplied = module === "node16" || module === "nodenext" ||
    module === "preserve";
  const interop = options.esModuleInterop === true ||
    (options.esModuleInterop === undefined && interopImplied);
  const synthetic = options.allowSyntheticDefaultImports === true ||
    (options.allowSyntheticDefaultImports === undefined &&
      (interop || module === "system" || resolution === "bundler"));
  return [
    {
      group: GROUP,
      name: "esModuleInterop",
      status: interop ? "pass" : "fail",
      message: options.esModuleInterop === undefined
        ? interop ? `implied by module ${module}` : "not set"
        : `${String(options.esModuleInterop)} in ${where}`,
      advice: interop ? undefined : `set "esModuleInterop": true in ${path}`,
    },
    {
      group: GROUP,
      name: "allowSyntheticDefaultImports",
      status: synthetic ? "pass" : "fail",
      message: options.allowSyntheticDefaultImports === undefined
        ? synthetic ? "implied by esModuleInterop" : "not set"
        : `${String(options.allowSyntheticDefaultImports)} in ${where}`,
      advice: synthetic
        ? undefined
        : `set "allowSyntheticDefaultImports": true in ${path}`,
    },
  ];
}
