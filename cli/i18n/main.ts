// The `kit-i18n` command (`deno task i18n:types` / `deno task i18n:check`):
// generates key types from a resource file and checks the resources of a
// folder. Run by scripts/i18n.ts (Deno) and bin/kit-i18n.mjs (npm, bundled
// into @vendor/kit-platform-localization). It reads resources through the
// localization module's public API only, so it judges a file exactly as an
// application reads it.
import { readdir, stat, writeFile } from "node:fs/promises";
import { basename, extname, join, resolve } from "node:path";
import process from "node:process";
import {
  ConfigurationManager,
  ConfigurationSourceError,
  ConfigurationValidationError,
  createConfiguration,
} from "../../config/mod.ts";
import {
  FileReadTimeoutError,
  FileTooLargeError,
  NotRegularFileError,
  readBoundedTextFile,
} from "../../internal/bounded_file.ts";
import { cultureChain } from "../../internal/culture_chain.ts";
import {
  flattenLocalizationResource,
  isCultureName,
  LocalizationConfigurationError,
  LocalizationManager,
  LocalizationMessageError,
  MapLocalizationProvider,
  type MessageArgumentKind as ArgumentKind,
  messageArguments,
} from "../../localization/mod.ts";

const DEFAULT_MODULE = "@vendor/kit-platform-localization";

const USAGE = `Usage:
  kit-i18n types <resource.json> [--out <file.d.ts>] [--module <specifier>]
      Writes a .d.ts declaring the keys of the resource (the default
      culture's) and their arguments, so t("cart.items", { count }) is
      type-checked. --out defaults to <resource>.keys.d.ts beside it;
      --module is the module to augment (default ${DEFAULT_MODULE};
      with JSR/Deno imports: @vendor/kit/localization).
  kit-i18n check <folder> [--default <culture>] [--source <dir>]...
                 [--config <dir>]
      Checks the <culture>.json resources of <folder> against the default
      culture's: missing keys, keys no longer in the default culture,
      arguments that differ, invalid ICU messages, a culture of
      localization:supportedCultures without a resource and, with --source,
      keys no source file mentions. The application's configuration is read
      from --config (default: KIT_CONFIG_PATH, else the working directory)
      as the application reads it: appsettings*.json, .env and APP_*
      variables. The default culture is --default, else
      localization:defaultCulture, else en.
Exit code: 0 when all is well, 1 when something is wrong, 2 for bad usage.
`;

class UsageError extends Error {}

/**
 * Runs the command.
 *
 * @param args The arguments after the program name.
 * @returns The exit code: 0 when all is well, 1 when something is wrong, 2
 * for bad usage.
 */
export async function main(args: string[]): Promise<number> {
  try {
    const [command, ...rest] = args;
    if (command === "types") return await types(rest);
    if (command === "check") return await check(rest);
    if (command === "--help" || command === "-h" || command === "help") {
      process.stdout.write(USAGE);
      return 0;
    }
    throw new UsageError(
      command === undefined
        ? "a command is needed"
        : `unknown command ${JSON.stringify(command)}`,
    );
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`kit-i18n: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(
      `kit-i18n: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}

interface Parsed {
  readonly positional: string[];
  readonly options: Map<string, string[]>;
}

function parseArgs(args: readonly string[], known: readonly string[]): Parsed {
  const positional: string[] = [];
  const options = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const cut = arg.indexOf("=");
    const name = cut === -1 ? arg.slice(2) : arg.slice(2, cut);
    if (!known.includes(name)) {
      throw new UsageError(`unknown option --${name}`);
    }
    let value: string | undefined;
    if (cut !== -1) value = arg.slice(cut + 1);
    else value = args[++i];
    if (value === undefined || value === "") {
      throw new UsageError(`--${name} needs a value`);
    }
    options.set(name, [...(options.get(name) ?? []), value]);
  }
  return { positional, options };
}

/** The largest resource read: the loaders' default maxResourceSize. */
const MAX_RESOURCE_SIZE = 10 * 1024 * 1024;
/** The largest source file whose string literals are collected. */
const MAX_SOURCE_SIZE = 64 * 1024 * 1024;
/** The longest one file read may take. */
const READ_TIMEOUT = 10_000;

/**
 * A file's text through Kit's bounded file reader: a FIFO or a device is
 * refused at once, a file past `limit` bytes is not read to its end.
 *
 * @throws {UsageError} `cannot read <path>: <why>`.
 */
async function readBounded(path: string, limit: number): Promise<string> {
  try {
    return await readBoundedTextFile(path, { limit, timeout: READ_TIMEOUT });
  } catch (error) {
    const why = error instanceof NotRegularFileError
      ? `not a regular file (${error.kind})`
      : error instanceof FileTooLargeError
      ? `larger than the limit of ${limit} bytes`
      : error instanceof FileReadTimeoutError
      ? `not read within ${READ_TIMEOUT} ms`
      : error instanceof Error
      ? error.message
      : String(error);
    throw new UsageError(`cannot read ${path}: ${why}`);
  }
}

async function readResource(
  path: string,
  culture: string,
): Promise<Map<string, string>> {
  const text = await readBounded(path, MAX_RESOURCE_SIZE);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${path} is not valid JSON: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  return flattenLocalizationResource(json, culture, path);
}

// ---------------------------------------------------------------- signatures

// What a text reads from the arguments: named values (ICU), positional
// values, or an error.
interface Signature {
  readonly named: Map<string, ArgumentKind>;
  readonly positional: Map<number, ArgumentKind>;
  readonly error?: LocalizationMessageError;
}

const POSITIONAL = /\{\{|\}\}|\{(\d+)\}/g;
const REFERENCE = /\{\{|\{@([^{}\s]+)\}/g;

function signatureOf(
  texts: ReadonlyMap<string, string>,
  key: string,
  culture: string,
  seen: Set<string> = new Set(),
): Signature {
  const named = new Map<string, ArgumentKind>();
  const positional = new Map<number, ArgumentKind>();
  const text = texts.get(key) ?? "";
  if (seen.has(key) || seen.size > 32) return { named, positional };
  seen.add(key);
  const add = (name: string, kind: ArgumentKind): void => {
    const target = /^\d+$/.test(name) ? positional : named;
    const id = (/^\d+$/.test(name) ? Number(name) : name) as never;
    const known = target.get(id);
    if (known === undefined || known === "value") target.set(id, kind);
  };
  let icu: ReadonlyMap<string, ArgumentKind> | undefined;
  try {
    icu = messageArguments(text, culture, key);
  } catch (error) {
    if (error instanceof LocalizationMessageError) {
      return { named, positional, error };
    }
    throw error;
  }
  if (icu !== undefined) {
    for (const [name, kind] of icu) add(name, kind);
  } else {
    for (const match of text.matchAll(POSITIONAL)) {
      if (match[1] !== undefined) add(match[1], "value");
    }
  }
  for (const match of text.matchAll(REFERENCE)) {
    if (match[1] === undefined || !texts.has(match[1])) continue;
    const inner = signatureOf(texts, match[1], culture, seen);
    for (const [name, kind] of inner.named) add(name, kind);
    for (const [index, kind] of inner.positional) add(String(index), kind);
  }
  seen.delete(key);
  return { named, positional };
}

function describeSignature(signature: Signature): string {
  const parts = [
    ...[...signature.positional.keys()].sort((a, b) => a - b).map((i) =>
      `{${i}}`
    ),
    ...[...signature.named.keys()].sort().map((name) => `{${name}}`),
  ];
  return parts.length === 0 ? "no arguments" : parts.join(", ");
}

// ---------------------------------------------------------------- types

const TS_TYPES: Record<ArgumentKind, string> = {
  value: "string | number | bigint | Date",
  number: "number",
  date: "Date | number",
  string: "string",
};

type Group = "plain" | "named" | "positional";

// Which group of the declaration a key goes to, and its type there.
function declarationOf(signature: Signature): [Group, string] {
  const { named, positional } = signature;
  if (named.size !== 0 && positional.size !== 0) {
    return ["positional", "unknown[]"];
  }
  if (named.size !== 0) {
    const fields = [...named.keys()].sort().map((name) =>
      `${propertyName(name)}: ${TS_TYPES[named.get(name)!]}`
    );
    return ["named", `{ ${fields.join("; ")} }`];
  }
  if (positional.size === 0) return ["plain", ""];
  const last = Math.max(...positional.keys());
  const items: string[] = [];
  for (let i = 0; i <= last; i++) {
    const kind = positional.get(i);
    items.push(
      `arg${i}: ${
        kind === undefined || kind === "value" ? "unknown" : TS_TYPES[kind]
      }`,
    );
  }
  return ["positional", `[${items.join(", ")}]`];
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

async function types(args: readonly string[]): Promise<number> {
  const { positional, options } = parseArgs(args, ["out", "module"]);
  if (positional.length !== 1) {
    throw new UsageError("types needs exactly one resource file");
  }
  const [resource] = positional;
  const culture = cultureOfFile(resource) ?? "default";
  const texts = await readResource(resource, culture);
  const specifier = options.get("module")?.at(-1) ?? DEFAULT_MODULE;
  const out = options.get("out")?.at(-1) ??
    resource.replace(/\.json$/i, "") + ".keys.d.ts";
  const plain: string[] = [];
  const named: string[] = [];
  const positionalKeys: string[] = [];
  // Each distinct argument type is declared once and named (Args0, Args1…):
  // thousands of keys share a few shapes, and the compiler then builds a few
  // types instead of one per key.
  const aliases = new Map<string, string>();
  const alias = (type: string): string => {
    let name = aliases.get(type);
    if (name === undefined) {
      name = `Args${aliases.size}`;
      aliases.set(type, name);
    }
    return name;
  };
  let invalid = 0;
  for (const key of [...texts.keys()].sort()) {
    const signature = signatureOf(texts, key, culture);
    if (signature.error !== undefined) {
      invalid++;
      process.stderr.write(`${signature.error.message}\n`);
    }
    const [group, type] = declarationOf(signature);
    const name = JSON.stringify(key);
    if (group === "plain") plain.push(`        | ${name}`);
    else if (group === "named") {
      named.push(`        ${name}: ${alias(type)};`);
    } else positionalKeys.push(`        ${name}: ${alias(type)};`);
  }
  const lines: string[] = [
    `// Generated by kit-i18n types from ${basename(resource)}: the keys of`,
    "// the default culture and the arguments t() takes after each. Do not",
    "// edit; run the command again when the resource changes.",
    "export {};",
    "",
    ...[...aliases].map(([type, name]) => `type ${name} = ${type};`),
    "",
    `declare module ${JSON.stringify(specifier)} {`,
    "  interface LocalizationTypeOptions {",
    "    keys: {",
    plain.length === 0
      ? "      plain: never;"
      : `      plain:\n${plain.join("\n")};`,
    "      named: {",
    ...named,
    "      };",
    "      positional: {",
    ...positionalKeys,
    "      };",
    "    };",
    "  }",
    "}",
    "",
  ];
  await writeFile(out, lines.join("\n"));
  process.stdout.write(
    `kit-i18n: wrote ${texts.size} keys to ${out} (module ${specifier})\n`,
  );
  return invalid === 0 ? 0 : 1;
}

function cultureOfFile(path: string): string | undefined {
  const name = basename(path, extname(path));
  return isCultureName(name) ? name : undefined;
}

// ---------------------------------------------------------------- check

const SOURCE_EXTENSIONS = new Set([
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
  ".vue",
  ".svelte",
  ".html",
  ".astro",
]);
const STRING_LITERAL =
  /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`$\\]*)`/g;

async function check(args: readonly string[]): Promise<number> {
  const { positional, options } = parseArgs(args, [
    "default",
    "source",
    "config",
  ]);
  if (positional.length !== 1) {
    throw new UsageError("check needs exactly one folder");
  }
  const [folder] = positional;
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith(".json"));
  } catch (error) {
    throw new UsageError(
      `cannot read the folder ${folder}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const resources = new Map<string, Map<string, string>>();
  const problems: string[] = [];
  for (const name of names.sort()) {
    const culture = cultureOfFile(name);
    if (culture === undefined) continue;
    try {
      resources.set(culture, await readResource(join(folder, name), culture));
    } catch (error) {
      if (error instanceof UsageError) throw error;
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  const flag = options.get("default")?.at(-1);
  if (flag !== undefined && !isCultureName(flag)) {
    throw new UsageError(
      `--default must be a culture name such as en or fr-CA, got ${
        JSON.stringify(flag)
      }`,
    );
  }
  const settings = await applicationSettings(options.get("config")?.at(-1));
  const defaultCulture = flag ?? settings.defaultCulture ?? "en";
  if (settings.supported !== undefined) {
    problems.push(
      ...unofferedCultures(settings.supported, resources, folder),
    );
  }
  const base = resources.get(defaultCulture);
  if (base === undefined) {
    if (problems.length !== 0) return report(problems, 0);
    throw new UsageError(
      `${join(folder, defaultCulture + ".json")} not found: the default ` +
        "culture's resource is what the others are checked against " +
        "(choose it with --default)",
    );
  }
  const baseSignatures = new Map<string, Signature>();
  for (const key of base.keys()) {
    const signature = signatureOf(base, key, defaultCulture);
    baseSignatures.set(key, signature);
    if (signature.error !== undefined) problems.push(signature.error.message);
  }
  for (const [culture, texts] of resources) {
    if (culture === defaultCulture) continue;
    // A regional culture may leave keys to its parent (fr-CA → fr).
    const chain = cultureChain(culture, undefined).filter((name) =>
      name !== defaultCulture && resources.has(name)
    );
    const missing = [...base.keys()].filter((key) =>
      !chain.some((name) => resources.get(name)!.has(key))
    );
    if (missing.length !== 0) {
      problems.push(
        `${culture}: ${missing.length} missing key${
          missing.length === 1 ? "" : "s"
        } (in ${defaultCulture}): ${missing.join(", ")}`,
      );
    }
    const extra = [...texts.keys()].filter((key) => !base.has(key));
    if (extra.length !== 0) {
      problems.push(
        `${culture}: ${extra.length} key${
          extra.length === 1 ? "" : "s"
        } not in ${defaultCulture}: ${extra.join(", ")}`,
      );
    }
    // References resolve along the culture's chain, then the default.
    const merged = new Map(base);
    for (const name of [...chain].reverse()) {
      for (const [key, text] of resources.get(name)!) merged.set(key, text);
    }
    for (const key of texts.keys()) {
      const expected = baseSignatures.get(key);
      if (expected === undefined) continue;
      const signature = signatureOf(merged, key, culture);
      if (signature.error !== undefined) {
        problems.push(signature.error.message);
        continue;
      }
      if (expected.error !== undefined) continue;
      const want = describeSignature(expected);
      const got = describeSignature(signature);
      if (want !== got) {
        problems.push(
          `${culture}: key ${
            JSON.stringify(key)
          } takes ${got}, but in ${defaultCulture} ${want}`,
        );
      }
    }
  }
  const sources = options.get("source") ?? [];
  if (sources.length !== 0) {
    const used = new Set<string>();
    for (const dir of sources) await collectLiterals(dir, used);
    for (const texts of resources.values()) {
      for (const text of texts.values()) {
        for (const match of text.matchAll(REFERENCE)) {
          if (match[1] !== undefined) used.add(match[1]);
        }
      }
    }
    const unused = [...base.keys()].filter((key) => !used.has(key));
    if (unused.length !== 0) {
      problems.push(
        `${unused.length} unused key${
          unused.length === 1 ? "" : "s"
        } (no source file under ${sources.join(", ")} mentions ${
          unused.length === 1 ? "it" : "them"
        }): ${unused.join(", ")}`,
      );
    }
  }
  return report(problems, resources.size);
}

/** What the application's configuration says about its cultures. */
interface CultureSettings {
  /** `localization:defaultCulture`, when set. */
  readonly defaultCulture?: string;
  /** `localization:supportedCultures` and where it was set, when set. */
  readonly supported?: { cultures: readonly string[]; source: string };
}

/**
 * The cultures of the application's configuration, read as the application
 * reads them (appsettings.json, appsettings.<environment>.json, .env, the
 * standard and APP_ variables), through LocalizationManager.fromConfiguration
 * so that each key is judged exactly as it is at run time. Without
 * appsettings.json, the variables alone.
 *
 * @throws {Error} When a culture key holds a bad value (the message names
 * the key, its source and the value) or a file cannot be read.
 */
async function applicationSettings(
  folder: string | undefined,
): Promise<CultureSettings> {
  const basePath = folder === undefined ? undefined : resolve(folder);
  let config: ConfigurationManager;
  try {
    const root = basePath ?? configuredRoot();
    if (await isFile(join(root, "appsettings.json"))) {
      config = await createConfiguration({ basePath, validate: false });
    } else {
      config = new ConfigurationManager({ basePath });
      config.addStandardVariables();
      config.addEnvironmentVariables("APP");
      await config.loadConfiguration();
    }
  } catch (error) {
    if (
      error instanceof ConfigurationSourceError ||
      error instanceof ConfigurationValidationError
    ) {
      throw new Error(
        `cannot read the application's configuration: ${error.message}`,
      );
    }
    throw error;
  }
  try {
    // The manager is only asked what the configuration says: its
    // translations are never loaded.
    const manager = LocalizationManager.fromConfiguration(config, {
      provider: new MapLocalizationProvider(new Map()),
      cache: false,
    });
    const key = "localization:supportedCultures";
    const cultures = manager.supportedCultures;
    return {
      defaultCulture: config.hasValue("localization:defaultCulture")
        ? manager.culture
        : undefined,
      supported: cultures === undefined || !config.hasValue(key)
        ? undefined
        : { cultures, source: config.getSource(key) ?? "the configuration" },
    };
  } catch (error) {
    if (error instanceof LocalizationConfigurationError) {
      throw new Error(error.message);
    }
    throw error;
  } finally {
    await config.close();
  }
}

// Where the application reads its files: KIT_CONFIG_PATH, else the working
// directory.
function configuredRoot(): string {
  const configured = process.env.KIT_CONFIG_PATH;
  return configured === undefined || configured.trim() === ""
    ? process.cwd()
    : resolve(configured);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

// The cultures the application offers that the folder has no resource for:
// neither their own nor one of their parents' (fr-CA is served from fr).
function unofferedCultures(
  supported: NonNullable<CultureSettings["supported"]>,
  resources: ReadonlyMap<string, unknown>,
  folder: string,
): string[] {
  const problems: string[] = [];
  for (const culture of supported.cultures) {
    const chain = cultureChain(culture, undefined);
    if (chain.some((name) => resources.has(name))) continue;
    const files = chain.map((name) => join(folder, `${name}.json`));
    problems.push(
      `${culture}: in localization:supportedCultures (from ${supported.source}), but ${
        files.length === 1
          ? `${files[0]} does not exist`
          : `none of ${files.join(", ")} exists`
      }`,
    );
  }
  return problems;
}

function report(problems: readonly string[], cultures: number): number {
  for (const problem of problems) process.stdout.write(`✗ ${problem}\n`);
  if (problems.length === 0) {
    process.stdout.write(`kit-i18n: ${cultures} cultures checked, all good\n`);
    return 0;
  }
  process.stdout.write(
    `kit-i18n: ${problems.length} problem${
      problems.length === 1 ? "" : "s"
    } in ${cultures} cultures\n`,
  );
  return 1;
}

async function collectLiterals(dir: string, used: Set<string>): Promise<void> {
  let info;
  try {
    info = await stat(dir);
  } catch {
    throw new UsageError(`cannot read the source folder ${dir}`);
  }
  if (!info.isDirectory()) {
    await collectFile(dir, used);
    return;
  }
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const entry of await readdir(current, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (SOURCE_EXTENSIONS.has(extname(entry.name))) {
        await collectFile(path, used);
      }
    }
  }
}

async function collectFile(path: string, used: Set<string>): Promise<void> {
  const text = await readBounded(path, MAX_SOURCE_SIZE);
  for (const match of text.matchAll(STRING_LITERAL)) {
    used.add(match[1] ?? match[2] ?? match[3]);
  }
}
