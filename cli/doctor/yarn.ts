// Registry settings of Yarn 2 and later, which never read .npmrc: the
// `.yarnrc.yml` of the project folder and of each folder above it, then the
// user's `~/.yarnrc.yml`, then YARN_NPM_* variables. Yarn expands
// `${NAME}` in any of these files and stops with "Environment variable not
// found (NAME)" when one is not set (`${NAME:-}` and `${NAME-}` give a
// fallback instead).
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { readText } from "./files.ts";

/** A setting of a .yarnrc.yml and where it came from. */
export interface YarnSetting {
  /** The value with the variables it names filled in. */
  readonly value: string;
  /** The file (`<folder>/.yarnrc.yml`) or `env NAME`. */
  readonly where: string;
  /** The setting's path, as the message names it (`npmScopes.vendor.npmAuthToken`). */
  readonly key: string;
  /** Variables the value names that are not set and have no fallback. */
  readonly missing: readonly string[];
}

/** What Yarn uses for the @vendor scope. */
export interface YarnRegistry {
  /** The .yarnrc.yml files read, nearest first. */
  readonly files: readonly string[];
  /** The registry address, when a file or variable sets one. */
  readonly server?: YarnSetting;
  /** The token or ident Yarn sends to it. */
  readonly auth?: YarnSetting & {
    readonly kind: "npmAuthToken" | "npmAuthIdent";
  };
}

type Tree = { [key: string]: string | Tree };

// The subset of YAML a .yarnrc.yml uses: nested mappings of scalars,
// comments, quoted strings. Lists and other forms are skipped.
function parseYarnrc(text: string): Tree {
  const root: Tree = {};
  const stack: { indent: number; tree: Tree }[] = [{ indent: -1, tree: root }];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, "").replace(/^\s*#.*$/, "");
    if (line.trim() === "" || line.trim().startsWith("-")) continue;
    const match = /^(\s*)("[^"]*"|'[^']*'|[^:\s][^:]*?)\s*:(?:\s+(.*))?$/.exec(
      line,
    );
    if (match === null) continue;
    const indent = match[1].length;
    const key = unquote(match[2]);
    while (stack.length > 1 && stack[stack.length - 1].indent >= indent) {
      stack.pop();
    }
    const parent = stack[stack.length - 1].tree;
    const value = match[3]?.trim();
    if (value === undefined || value === "") {
      const child: Tree = {};
      parent[key] = child;
      stack.push({ indent, tree: child });
    } else {
      parent[key] = unquote(value);
    }
  }
  return root;
}

function unquote(text: string): string {
  const trimmed = text.trim();
  if (/^(["']).*\1$/.test(trimmed)) return trimmed.slice(1, -1);
  return trimmed;
}

function treeAt(tree: Tree | undefined, key: string): Tree | undefined {
  const value = tree?.[key];
  return typeof value === "object" ? value : undefined;
}

function textAt(tree: Tree | undefined, key: string): string | undefined {
  const value = tree?.[key];
  return typeof value === "string" ? value : undefined;
}

// Fills in ${NAME}, ${NAME:-fallback} and ${NAME-fallback} as Yarn does.
function expand(value: string): { value: string; missing: string[] } {
  const missing: string[] = [];
  const env = process.env;
  const expanded = value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g,
    (_match, name: string, operator: string | undefined, fallback = "") => {
      const set = env[name];
      if (operator === ":-") {
        return set === undefined || set === "" ? fallback : set;
      }
      if (operator === "-") return set === undefined ? fallback : set;
      if (set === undefined) missing.push(name);
      return set ?? "";
    },
  );
  return { value: expanded, missing };
}

// The .yarnrc.yml files Yarn merges, nearest first: the folder, each folder
// above it, then the home folder's.
async function readFiles(
  folder: string,
): Promise<{ path: string; tree: Tree }[]> {
  const found: { path: string; tree: Tree }[] = [];
  const paths: string[] = [];
  for (let dir = folder;; dir = dirname(dir)) {
    paths.push(join(dir, ".yarnrc.yml"));
    if (dirname(dir) === dir) break;
  }
  const home = join(process.env.HOME ?? homedir(), ".yarnrc.yml");
  if (!paths.includes(home)) paths.push(home);
  for (const path of paths) {
    const text = await readText(path);
    if (text !== undefined) found.push({ path, tree: parseYarnrc(text) });
  }
  return found;
}

/**
 * Reads what Yarn 2 and later use as the @vendor scope's registry and
 * credentials.
 *
 * @param folder The project folder.
 * @param scope The scope without `@` (`vendor`).
 * @returns The files read, the registry address and the credential found.
 */
export async function readYarnRegistry(
  folder: string,
  scope: string,
): Promise<YarnRegistry> {
  const files = await readFiles(folder);
  const setting = (
    key: string,
    pick: (tree: Tree) => string | undefined,
  ): YarnSetting | undefined => {
    for (const file of files) {
      const raw = pick(file.tree);
      if (raw !== undefined) {
        return { ...expand(raw), where: file.path, key };
      }
    }
    return undefined;
  };
  const fromEnv = (name: string, key: string): YarnSetting | undefined => {
    const value = process.env[name];
    return value === undefined || value === ""
      ? undefined
      : { value, where: `env ${name}`, key, missing: [] };
  };
  const scoped = (tree: Tree): Tree | undefined =>
    treeAt(treeAt(tree, "npmScopes"), scope) ??
      treeAt(treeAt(tree, "npmScopes"), `@${scope}`);
  const server = setting(
    `npmScopes.${scope}.npmRegistryServer`,
    (tree) => textAt(scoped(tree), "npmRegistryServer"),
  ) ?? fromEnv("YARN_NPM_REGISTRY_SERVER", "npmRegistryServer") ??
    setting("npmRegistryServer", (tree) => textAt(tree, "npmRegistryServer"));
  const address = server?.value;
  let auth: YarnRegistry["auth"];
  for (const kind of ["npmAuthToken", "npmAuthIdent"] as const) {
    const envName = kind === "npmAuthToken"
      ? "YARN_NPM_AUTH_TOKEN"
      : "YARN_NPM_AUTH_IDENT";
    // The scope's own setting, then the registry's (npmRegistries keyed by
    // its address), then the top-level one.
    const found = setting(
      `npmScopes.${scope}.${kind}`,
      (tree) => textAt(scoped(tree), kind),
    ) ??
      (address === undefined ? undefined : setting(
        `npmRegistries["${address}"].${kind}`,
        (tree) => {
          const registries = treeAt(tree, "npmRegistries");
          const key = Object.keys(registries ?? {}).find((item) =>
            sameRegistry(item, address)
          );
          return key === undefined
            ? undefined
            : textAt(treeAt(registries, key), kind);
        },
      )) ??
      fromEnv(envName, kind) ??
      setting(kind, (tree) => textAt(tree, kind));
    if (found !== undefined) {
      auth = { ...found, kind };
      break;
    }
  }
  return { files: files.map((file) => file.path), server, auth };
}

function sameRegistry(a: string, b: string): boolean {
  const strip = (url: string): string =>
    url.replace(/^https?:/, "").replace(/\/+$/, "");
  return strip(a) === strip(b);
}
