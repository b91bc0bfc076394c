/**
 * Writes the table of every configuration key Kit reads into
 * `docs/config.md`, between the lines `<!-- kit-config-keys:start -->` and
 * `<!-- kit-config-keys:end -->`, from the keys' one declaration
 * (`kitConfigurationSections` of the config module): key, type, bounds or
 * allowed values, default and the environment variables that set it.
 *
 * ```sh
 * deno run -A scripts/config_keys.ts          # rewrites docs/config.md
 * deno run -A scripts/config_keys.ts --check  # exits 1 when it is out of date
 * deno run -A scripts/config_keys.ts --check --file other.md
 * ```
 *
 * The page is passed through `deno fmt` after the table is placed, so the
 * check compares what `deno fmt` would leave in the repository.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type KitConfigurationKey,
  kitConfigurationSections,
  standardVariables,
} from "../config/mod.ts";
import { declaredKeys } from "../config/schema/_kit_sections.ts";
import { keyToVariable } from "../internal/settings/env_naming.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const START = "<!-- kit-config-keys:start -->";
const END = "<!-- kit-config-keys:end -->";

const TYPES: Record<KitConfigurationKey["type"], string> = {
  string: "string",
  url: "URL",
  number: "number",
  integer: "integer",
  boolean: "boolean",
  list: "list of `{ type, options }`",
  cultures: "list of culture names",
};

function code(value: string | number | boolean): string {
  return `\`${String(value)}\``;
}

function typeOf(declaration: KitConfigurationKey): string {
  const type = TYPES[declaration.type];
  return declaration.required === true ? `${type}, required` : type;
}

function boundsOf(declaration: KitConfigurationKey): string {
  const { min, max, values } = declaration;
  const parts: string[] = [];
  if (declaration.type === "list") {
    if (min !== undefined) {
      parts.push(`at least ${min} item${min === 1 ? "" : "s"}`);
    }
    if (values !== undefined) {
      parts.push(`\`type\`: ${values.map(code).join(", ")}`);
    }
    return parts.join("; ");
  }
  if (declaration.type === "cultures") {
    return "BCP 47 names; in a variable, separated by commas";
  }
  if (min !== undefined && max !== undefined) parts.push(`${min}–${max}`);
  else if (min !== undefined) parts.push(`≥ ${min}`);
  else if (max !== undefined) parts.push(`≤ ${max}`);
  if (values !== undefined) parts.push(values.map(code).join(", "));
  if (declaration.nonEmpty === true) parts.push("not blank");
  return parts.join("; ");
}

function variablesOf(key: string, declaration: KitConfigurationKey): string {
  const names = [`APP_${keyToVariable(key.split(":"))}`];
  for (const [name, target] of Object.entries(standardVariables)) {
    if (target === key) names.push(name);
  }
  names.push(...(declaration.variables ?? []));
  return names.map(code).join(", ");
}

/** The table, one row a key, in declaration order. */
export function keysTable(): string {
  const rows = [
    "| Key | Type | Bounds / allowed values | Default | Environment variables |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const [key, declaration] of declaredKeys(kitConfigurationSections)) {
    const cells = [
      code(key),
      typeOf(declaration),
      boundsOf(declaration) || "—",
      declaration.default === undefined ? "—" : code(declaration.default),
      variablesOf(key, declaration),
    ];
    rows.push(`| ${cells.join(" | ")} |`);
  }
  return rows.join("\n");
}

/**
 * The page with the table placed between the markers.
 *
 * @throws {Error} When the page lacks the markers.
 */
export function withTable(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) {
    throw new Error(
      `The page has no ${START} … ${END} lines to put the table between`,
    );
  }
  return page.slice(0, start + START.length) + "\n\n" + keysTable() + "\n\n" +
    page.slice(end);
}

async function formatMarkdown(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code: status, stdout, stderr } = await child.output();
  if (status !== 0) {
    throw new Error(`deno fmt failed: ${new TextDecoder().decode(stderr)}`);
  }
  return new TextDecoder().decode(stdout);
}

async function main(args: string[]): Promise<number> {
  const check = args.includes("--check");
  const fileAt = args.indexOf("--file");
  const file = fileAt >= 0 && args[fileAt + 1] !== undefined
    ? args[fileAt + 1]
    : join(ROOT, "docs", "config.md");
  const page = await Deno.readTextFile(file);
  const updated = await formatMarkdown(withTable(page));
  if (updated === page) return 0;
  if (check) {
    console.error(
      `${file} is out of date with the declared configuration keys: run ` +
        "deno run -A scripts/config_keys.ts",
    );
    return 1;
  }
  await Deno.writeTextFile(file, updated);
  console.log(`${file}: the table of configuration keys was rewritten`);
  return 0;
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
