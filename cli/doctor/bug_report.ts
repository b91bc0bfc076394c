// `--report`: the facts a bug report needs (runtime and its version, the
// TypeScript compiler, the Kit package versions, the operating system), as
// one block ready to paste.
import { arch, release, type } from "node:os";
import process from "node:process";
import { installedKitPackages, installedVersion } from "./packages.ts";
import type { Project } from "./project.ts";

interface DenoVersion {
  readonly deno: string;
  readonly typescript: string;
}

function denoVersion(): DenoVersion | undefined {
  return (globalThis as { Deno?: { version?: DenoVersion } }).Deno?.version;
}

/** The runtime running the doctor, with its version. */
export function runtimeName(): string {
  const deno = denoVersion();
  if (deno !== undefined) return `Deno ${deno.deno}`;
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun !== undefined) return `Bun ${versions.bun}`;
  return `Node.js ${process.version}`;
}

/** Builds the bug-report fields for a project. */
export async function bugReport(
  project: Project,
): Promise<Record<string, string>> {
  const typescript: string[] = [];
  const installedTs = await installedVersion(project.folder, "typescript");
  if (installedTs !== undefined) {
    typescript.push(`${installedTs.version} (node_modules)`);
  }
  const deno = denoVersion();
  if (deno !== undefined) typescript.push(`${deno.typescript} (Deno's own)`);
  const kit = (await installedKitPackages(project.folder)).map((item) =>
    `${item.name}@${item.version}`
  );
  for (const [alias, specifier] of project.denoImports) {
    kit.push(`${alias} → ${specifier} (${project.denoJsonName})`);
  }
  const unique = [...new Set(kit)];
  return {
    "Runtime": runtimeName(),
    "TypeScript": typescript.length === 0
      ? "not installed in the project"
      : typescript.join(", "),
    "Kit packages": unique.length === 0
      ? "none found in node_modules or deno.json"
      : unique.join(", "),
    "Operating system":
      `${type()} ${release()} (${process.platform} ${arch()})`,
    "Folder": project.folder,
  };
}
