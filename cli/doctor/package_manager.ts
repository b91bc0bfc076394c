// Which package manager installs the project, since each reads registry
// settings from other files: package.json's `packageManager` field (what
// Corepack enforces) first, then the lockfile, then the user agent of the
// tool that started the doctor (`pnpm dlx`, `yarn dlx`, `bunx`, `npx` set
// npm_config_user_agent), else npm.
import { join } from "node:path";
import process from "node:process";
import semver from "semver";
import { exists, readText } from "./files.ts";
import type { Project } from "./project.ts";

/** The package managers the doctor knows the registry rules of. */
export type PackageManagerName = "npm" | "pnpm" | "yarn" | "bun";

/** The package manager of a project and how the doctor knows it. */
export interface PackageManager {
  /** The tool. */
  readonly name: PackageManagerName;
  /** Its version, when the field or the user agent says it. */
  readonly version?: string;
  /** Yarn 2 or later, which reads .yarnrc.yml and never .npmrc. */
  readonly berry: boolean;
  /** What told it: `package.json packageManager`, `pnpm-lock.yaml`… */
  readonly source: string;
}

const LOCKFILES: readonly [string, PackageManagerName][] = [
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
  ["package-lock.json", "npm"],
  ["npm-shrinkwrap.json", "npm"],
];

const TOOL = /^(npm|pnpm|yarn|bun)[@/]v?([0-9][^\s+]*)?/;

/**
 * Finds the package manager of a project folder.
 *
 * @param project The project files.
 * @returns The tool, its version when known, and what said so.
 */
export async function detectPackageManager(
  project: Project,
): Promise<PackageManager> {
  const agent = TOOL.exec(process.env.npm_config_user_agent ?? "");
  const field = typeof project.packageJson?.packageManager === "string"
    ? TOOL.exec(project.packageJson.packageManager)
    : null;
  let name: PackageManagerName;
  let version: string | undefined;
  let source: string;
  const locks: [string, PackageManagerName][] = [];
  for (const [file, tool] of LOCKFILES) {
    if (await exists(join(project.folder, file))) locks.push([file, tool]);
  }
  if (field !== null) {
    name = field[1] as PackageManagerName;
    version = field[2];
    source = "package.json packageManager";
  } else if (locks.length > 0) {
    // With several lockfiles, the one of the tool running the doctor.
    const lock = locks.find(([, tool]) => tool === agent?.[1]) ?? locks[0];
    [source, name] = lock;
    if (agent?.[1] === name) version = agent[2];
  } else if (agent !== null) {
    name = agent[1] as PackageManagerName;
    version = agent[2];
    source = "the user agent of the tool running the doctor";
  } else {
    return {
      name: "npm",
      berry: false,
      source: "no packageManager field or lockfile: npm assumed",
    };
  }
  let berry = false;
  if (name === "yarn") {
    const major = version === undefined ? undefined : semver.coerce(version);
    berry = major !== null && major !== undefined
      ? major.major >= 2
      : (await readText(join(project.folder, "yarn.lock")) ?? "").includes(
        "__metadata:",
      ) || await exists(join(project.folder, ".yarnrc.yml"));
  }
  return { name, version, berry, source };
}

/** How a report names the tool: `pnpm 10.34.9`, `Yarn 4.18.1`, `Yarn 1`. */
export function toolName(manager: PackageManager): string {
  const name = manager.name === "yarn"
    ? "Yarn"
    : manager.name === "bun"
    ? "Bun"
    : manager.name;
  if (manager.version !== undefined) return `${name} ${manager.version}`;
  if (manager.name === "yarn") return manager.berry ? "Yarn 2+" : "Yarn 1";
  return name;
}

/**
 * Whether this pnpm ignores `${VARIABLE}` in registry credentials and
 * addresses of the project's .npmrc: 10.34.2 and later on the 10 line,
 * 11.5.3 and later, every 12. A pnpm of unknown version is taken to be a
 * current one.
 *
 * @param version The pnpm version, if known.
 * @returns `true` when pnpm ignores such a line.
 */
export function pnpmIgnoresProjectVariables(
  version: string | undefined,
): boolean {
  const parsed = version === undefined ? null : semver.coerce(version);
  if (parsed === null) return true;
  return semver.satisfies(parsed, ">=10.34.2 <11.0.0 || >=11.5.3");
}
