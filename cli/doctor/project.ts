// What kind of project the doctor looks at: package.json (Node.js, Bun),
// deno.json (Deno), and the Kit packages each declares.
import { join } from "node:path";
import {
  JsonSyntax,
  objectOf,
  parseJsonc,
  readText,
  UnreadableFileError,
} from "./files.ts";

/** The project files the checks share. */
export interface Project {
  /** The folder checked (absolute). */
  readonly folder: string;
  /** package.json, parsed, when present and well-formed. */
  readonly packageJson?: Record<string, unknown>;
  /** deno.json or deno.jsonc, parsed, when present and well-formed. */
  readonly denoJson?: Record<string, unknown>;
  /** The file name of the Deno configuration found (`deno.json`…). */
  readonly denoJsonName?: string;
  /** Project files that exist but do not parse: `file:line:column: message`. */
  readonly broken: readonly string[];
  /** Project files that are there but could not be read (a FIFO…). */
  readonly unreadable: readonly UnreadableFileError[];
  /** `@vendor/kit-*` names package.json depends on, with their ranges. */
  readonly npmDependencies: ReadonlyMap<string, string>;
  /**
   * Kit specifiers of deno.json's imports: `npm:@vendor/kit-core@^0.0.1`,
   * `jsr:@vendor/kit@0.0.1`, keyed by the import name.
   */
  readonly denoImports: ReadonlyMap<string, string>;
}

/** The Kit packages' scope. */
export const SCOPE = "@vendor";

const KIT_NAME = /^@vendor\/kit(-[a-z-]+)?$/;

/** Reads the project files of a folder. */
export async function readProject(folder: string): Promise<Project> {
  const broken: string[] = [];
  const unreadable: UnreadableFileError[] = [];
  const load = async (
    name: string,
  ): Promise<Record<string, unknown> | undefined> => {
    let text: string | undefined;
    try {
      text = await readText(join(folder, name));
    } catch (error) {
      if (!(error instanceof UnreadableFileError)) throw error;
      unreadable.push(error);
      return undefined;
    }
    if (text === undefined) return undefined;
    const parsed = parseJsonc(text);
    if (parsed instanceof JsonSyntax) {
      broken.push(
        `${
          join(folder, name)
        }:${parsed.line}:${parsed.column}: ${parsed.message}`,
      );
      return undefined;
    }
    return objectOf(parsed);
  };
  const packageJson = await load("package.json");
  let denoJson: Record<string, unknown> | undefined;
  let denoJsonName: string | undefined;
  for (const name of ["deno.json", "deno.jsonc"]) {
    denoJson = await load(name);
    if (denoJson !== undefined) {
      denoJsonName = name;
      break;
    }
  }
  const npmDependencies = new Map<string, string>();
  for (
    const field of [
      "dependencies",
      "devDependencies",
      "peerDependencies",
      "optionalDependencies",
    ]
  ) {
    for (
      const [name, range] of Object.entries(
        objectOf(packageJson?.[field]) ?? {},
      )
    ) {
      if (KIT_NAME.test(name) && typeof range === "string") {
        npmDependencies.set(name, range);
      }
    }
  }
  const denoImports = new Map<string, string>();
  for (
    const [name, specifier] of Object.entries(
      objectOf(denoJson?.imports) ?? {},
    )
  ) {
    if (
      typeof specifier === "string" &&
      /^(npm|jsr):@vendor\/kit/.test(specifier)
    ) {
      denoImports.set(name, specifier);
    }
  }
  return {
    folder,
    packageJson,
    denoJson,
    denoJsonName,
    broken,
    unreadable,
    npmDependencies,
    denoImports,
  };
}

/** Whether a package name is one of Kit's (`@vendor/kit-core`…). */
export function isKitName(name: string): boolean {
  return KIT_NAME.test(name);
}

/** Splits `npm:@vendor/kit-core@^0.0.1` into name and version range. */
export function splitSpecifier(
  specifier: string,
): { registry: string; name: string; range: string | undefined } {
  const match = /^(npm|jsr):(@[^/]+\/[^@/]+)(?:@([^/]+))?/.exec(specifier);
  if (match === null) {
    return { registry: "", name: specifier, range: undefined };
  }
  return { registry: match[1], name: match[2], range: match[3] };
}
