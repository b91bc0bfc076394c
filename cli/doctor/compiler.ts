// Compiler checks (the "Cannot find module … or its corresponding type
// declarations" failure): the tsconfig.json settings that load Kit's
// CommonJS packages, stale *.tsbuildinfo files, and installed Kit versions
// that agree with each other, with package.json and with deno.json.
import { dirname, join, relative } from "node:path";
import {
  findFiles,
  JsonSyntax,
  modifiedAt,
  objectOf,
  parseJsonc,
  readText,
} from "./files.ts";
import {
  type Installed,
  installedKitPackages,
  installedVersion,
  satisfies,
} from "./packages.ts";
import { type Project, splitSpecifier } from "./project.ts";
import type { Check } from "./report.ts";
import {
  interopChecks,
  resolutionCheck,
  typescriptVersion,
} from "./typescript.ts";

const GROUP = "Compiler" as const;

interface TsConfig {
  readonly options: Record<string, unknown>;
  /** The files read, the project's first. */
  readonly files: readonly string[];
}

// tsconfig.json with its `extends` chain merged (relative paths and
// packages in node_modules); a syntax error comes back as a string.
async function loadTsConfig(
  path: string,
  seen: string[] = [],
): Promise<TsConfig | string | undefined> {
  if (seen.includes(path) || seen.length > 8) return undefined;
  const text = await readText(path);
  if (text === undefined) return undefined;
  const parsed = parseJsonc(text);
  if (parsed instanceof JsonSyntax) {
    return `${path}:${parsed.line}:${parsed.column}: ${parsed.message}`;
  }
  const json = objectOf(parsed) ?? {};
  let base: TsConfig | undefined;
  const extendsList = Array.isArray(json.extends)
    ? json.extends
    : json.extends === undefined
    ? []
    : [json.extends];
  for (const item of extendsList) {
    if (typeof item !== "string") continue;
    const target = item.startsWith(".") || item.startsWith("/")
      ? join(dirname(path), item.endsWith(".json") ? item : item + ".json")
      : (await installedVersion(
        dirname(path),
        item.split("/").slice(
          0,
          item.startsWith("@") ? 2 : 1,
        ).join("/"),
      ))?.path;
    if (target === undefined) continue;
    const file = target.endsWith(".json") ? target : join(
      target,
      item.split("/").slice(item.startsWith("@") ? 2 : 1).join("/") ||
        "tsconfig.json",
    );
    const loaded = await loadTsConfig(file, [...seen, path]);
    if (typeof loaded === "string") return loaded;
    if (loaded !== undefined) {
      base = {
        options: { ...base?.options, ...loaded.options },
        files: [...(base?.files ?? []), ...loaded.files],
      };
    }
  }
  return {
    options: {
      ...base?.options,
      ...objectOf(json.compilerOptions),
    },
    files: [path, ...(base?.files ?? [])],
  };
}

/** The tsconfig.json settings, stale build info and installed versions. */
export async function checkCompiler(project: Project): Promise<Check[]> {
  const checks: Check[] = [];
  for (const broken of project.broken) {
    checks.push({
      group: GROUP,
      name: "project file",
      status: "fail",
      message: `does not parse: ${broken}`,
      advice: "fix the JSON at that line and column",
    });
  }
  for (const error of project.unreadable) {
    checks.push({
      group: GROUP,
      name: "project file",
      status: "fail",
      message: error.message,
      advice: error.advice,
    });
  }
  checks.push(...await checkTsConfig(project));
  checks.push(...await checkBuildInfo(project));
  checks.push(...await checkVersions(project));
  return checks;
}

async function checkTsConfig(project: Project): Promise<Check[]> {
  const path = join(project.folder, "tsconfig.json");
  const config = await loadTsConfig(path);
  if (config === undefined) {
    return [{
      group: GROUP,
      name: "tsconfig.json",
      status: "skip",
      message: project.packageJson === undefined
        ? "no tsconfig.json (Deno reads its settings from deno.json)"
        : "no tsconfig.json in the folder",
    }];
  }
  if (typeof config === "string") {
    return [{
      group: GROUP,
      name: "tsconfig.json",
      status: "fail",
      message: `does not parse: ${config}`,
      advice: "fix the JSON at that line and column, then compile again",
    }];
  }
  const options = config.options;
  const where = config.files.length > 1
    ? `${path} (with ${config.files.slice(1).join(", ")})`
    : path;
  const typescript = typescriptVersion(
    (await installedVersion(project.folder, "typescript"))?.version,
  );
  const { check, resolution } = resolutionCheck(options, where, typescript);
  return [
    check,
    ...interopChecks(options, where, path, typescript, resolution),
  ];
}

async function checkBuildInfo(project: Project): Promise<Check[]> {
  const files = await findFiles(project.folder, ".tsbuildinfo");
  if (files.length === 0) {
    return [{
      group: GROUP,
      name: "compiler cache",
      status: "pass",
      message: "no *.tsbuildinfo files",
    }];
  }
  const kit = await installedKitPackages(project.folder);
  const typescript = await installedVersion(project.folder, "typescript");
  const tsconfigAt = await modifiedAt(join(project.folder, "tsconfig.json"));
  const checks: Check[] = [];
  for (const file of files) {
    const at = await modifiedAt(file) ?? 0;
    const reasons: string[] = [];
    const recorded = recordedVersion(await readText(file) ?? "");
    if (
      recorded !== undefined && typescript !== undefined &&
      recorded !== typescript.version
    ) {
      reasons.push(
        `written by TypeScript ${recorded}, but ${typescript.version} is installed`,
      );
    }
    const newer: string[] = [];
    for (const item of kit) {
      const installedAt = await modifiedAt(join(item.path, "package.json"));
      if (installedAt !== undefined && installedAt > at) {
        newer.push(`${item.name}@${item.version}`);
      }
    }
    if (newer.length > 0) {
      reasons.push(`older than the installed ${newer.join(", ")}`);
    }
    if (tsconfigAt !== undefined && tsconfigAt > at) {
      reasons.push("older than tsconfig.json");
    }
    const name = relative(project.folder, file);
    checks.push(
      reasons.length === 0
        ? {
          group: GROUP,
          name: "compiler cache",
          status: "pass",
          message:
            `${name} is newer than the installed packages and tsconfig.json`,
        }
        : {
          group: GROUP,
          name: "compiler cache",
          status: "fail",
          message: `${name} is stale: ${reasons.join("; ")}`,
          advice:
            `delete ${name} (and the build output next to it if errors persist), then compile again and restart the editor's TypeScript server`,
        },
    );
  }
  return checks;
}

// The TypeScript version a .tsbuildinfo file records.
function recordedVersion(text: string): string | undefined {
  const version = objectOf(parseJsonc(text))?.version;
  return typeof version === "string" ? version : undefined;
}

async function checkVersions(project: Project): Promise<Check[]> {
  const installed = await installedKitPackages(project.folder);
  const declared = project.npmDependencies;
  const deno = project.denoImports;
  if (installed.length === 0 && declared.size === 0 && deno.size === 0) {
    return [{
      group: GROUP,
      name: "Kit packages",
      status: "skip",
      message: "the project declares and installs no @vendor/kit package",
    }];
  }
  const checks: Check[] = [];
  const missing = [...declared.keys()].filter((name) =>
    !installed.some((item) => item.name === name)
  );
  if (missing.length > 0) {
    checks.push({
      group: GROUP,
      name: "Kit packages installed",
      status: "fail",
      message: `package.json lists ${missing.join(", ")}, but ${
        missing.length === 1 ? "it is" : "they are"
      } not in node_modules: TypeScript reports "Cannot find module … or its corresponding type declarations"`,
      advice:
        "run `npm install` (or your package manager's install) in the folder",
    });
  }
  const mismatched: string[] = [];
  for (const [name, range] of declared) {
    const copy = installed.find((item) => item.name === name);
    if (copy !== undefined && !satisfies(copy.version, range)) {
      mismatched.push(
        `${name}: package.json asks ${range}, ${copy.version} is installed`,
      );
    }
  }
  for (const [alias, specifier] of deno) {
    const { registry, name, range } = splitSpecifier(specifier);
    if (range === undefined) continue;
    const copies = registry === "jsr"
      ? installed
      : installed.filter((item) => item.name === name);
    for (const copy of copies) {
      if (!satisfies(copy.version, range)) {
        mismatched.push(
          `${project.denoJsonName} imports "${alias}" as ${specifier}, but node_modules holds ${copy.name}@${copy.version}`,
        );
      }
    }
  }
  const versions = new Map<string, Installed[]>();
  for (const item of installed) {
    versions.set(item.version, [...versions.get(item.version) ?? [], item]);
  }
  const denoVersions = new Set(
    [...deno.values()].map((spec) => splitSpecifier(spec).range).filter((
      range,
    ): range is string => range !== undefined).map((range) =>
      range.replace(/^[\^~=]|^>=/, "")
    ),
  );
  if (versions.size > 1) {
    mismatched.push(
      `installed versions differ: ${
        installed.map((item) =>
          `${item.name}@${item.version} (${
            relative(project.folder, item.path)
          })`
        ).join(", ")
      }`,
    );
  }
  if (denoVersions.size > 1) {
    mismatched.push(
      `${project.denoJsonName} asks for different Kit versions: ${
        [...deno.values()].join(", ")
      }`,
    );
  }
  if (mismatched.length > 0) {
    checks.push({
      group: GROUP,
      name: "Kit versions agree",
      status: "fail",
      message: "the Kit packages do not agree on one version",
      details: mismatched,
      advice:
        "give every @vendor/kit-* package the same version in package.json (and deno.json), then reinstall (`npm install`); `npm ls @vendor/kit-core` shows what pulls in another copy",
    });
  } else if (installed.length > 0 || deno.size > 0) {
    checks.push({
      group: GROUP,
      name: "Kit versions agree",
      status: "pass",
      message: installed.length > 0
        ? `${
          installed.map((item) => `${item.name}@${item.version}`).join(", ")
        }`
        : `${[...deno.values()].join(", ")}`,
    });
  }
  return checks;
}
