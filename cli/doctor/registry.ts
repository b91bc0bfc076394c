// Registry checks (the 404 and 401 failures of an install): the npm
// configuration of the project and of the user maps the @vendor scope to a
// registry and holds credentials for it. A token is never printed: only
// whether one is set and where.
import { Buffer } from "node:buffer";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { describeNetworkError } from "../../internal/delivery/network_error.ts";
import { readText, UnreadableFileError } from "./files.ts";
import {
  detectPackageManager,
  type PackageManager,
  pnpmIgnoresProjectVariables,
  toolName,
} from "./package_manager.ts";
import type { Project } from "./project.ts";
import { type Check, rememberSecret } from "./report.ts";
import { readYarnRegistry } from "./yarn.ts";

const GROUP = "Registry" as const;
const PUBLIC_REGISTRY = "https://registry.npmjs.org/";

interface NpmrcEntry {
  readonly value: string;
  /** The value as written, before `${NAME}` was filled in. */
  readonly raw: string;
  /** The file it came from (`~/.npmrc`, `<folder>/.npmrc`) or `env NAME`. */
  readonly where: string;
  /** Variables `${NAME}` the value names that are not set. */
  readonly unset: readonly string[];
}

interface Npmrc {
  /** Files read, in precedence order (highest first). */
  readonly files: readonly string[];
  /** Every key with its winning value. */
  readonly entries: ReadonlyMap<string, NpmrcEntry>;
  /**
   * Lines of the project's .npmrc pnpm skips: a `${NAME}` in a credential
   * or a registry address.
   */
  readonly ignored: ReadonlyMap<string, NpmrcEntry>;
  /** Files that are there but could not be read (a FIFO, a device…). */
  readonly unreadable: readonly UnreadableFileError[];
}

// Keys whose `${NAME}` pnpm no longer fills in from a project .npmrc.
const PNPM_GUARDED =
  /^(registry|@[^:]+:registry|proxy|https-proxy|http-proxy|_authToken|_auth|_password|username|tokenHelper|cert|key)$/;

// pnpm's own user-level auth file (pnpm 11 and later write tokens there).
function pnpmAuthIni(): string {
  const env = process.env;
  const home = env.HOME ?? homedir();
  const base = env.XDG_CONFIG_HOME
    ? join(env.XDG_CONFIG_HOME, "pnpm")
    : process.platform === "win32"
    ? join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "pnpm", "config")
    : process.platform === "darwin"
    ? join(home, "Library", "Preferences", "pnpm")
    : join(home, ".config", "pnpm");
  return join(base, "auth.ini");
}

/**
 * Reads the project and user `.npmrc` files; the project's win. For pnpm,
 * its auth.ini comes between them and, when `dropProjectVariables`, a
 * project line with `${NAME}` in a credential or address is set aside in
 * `ignored`, as pnpm does.
 */
async function readNpmrc(
  folder: string,
  manager: PackageManager,
): Promise<Npmrc> {
  const env = process.env;
  const userConfig = env.NPM_CONFIG_USERCONFIG ?? env.npm_config_userconfig ??
    join(env.HOME ?? homedir(), ".npmrc");
  const entries = new Map<string, NpmrcEntry>();
  const ignored = new Map<string, NpmrcEntry>();
  const files: string[] = [];
  const project = join(folder, ".npmrc");
  const paths = manager.name === "pnpm"
    ? [project, pnpmAuthIni(), userConfig]
    : [project, userConfig];
  const drop = manager.name === "pnpm" &&
    pnpmIgnoresProjectVariables(manager.version);
  const unreadable: UnreadableFileError[] = [];
  for (const path of paths) {
    let text: string | undefined;
    try {
      text = await readText(path);
    } catch (error) {
      if (!(error instanceof UnreadableFileError)) throw error;
      unreadable.push(error);
      continue;
    }
    if (text === undefined) continue;
    files.push(path);
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
      const equals = line.indexOf("=");
      if (equals < 0) continue;
      const key = line.slice(0, equals).trim();
      let value = line.slice(equals + 1).trim();
      if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
      if (entries.has(key)) continue;
      if (
        path === project && manager.name === "pnpm" && value.includes("${") &&
        (key.startsWith("//") || PNPM_GUARDED.test(key))
      ) {
        const entry = { value, raw: value, where: path, unset: [] };
        if (drop) {
          if (!ignored.has(key)) ignored.set(key, entry);
          continue;
        }
      }
      const unset: string[] = [];
      const expanded = value.replace(
        /\$\{([^}]+)\}/g,
        (_match, name: string) => {
          const set = env[name];
          if (set === undefined || set === "") unset.push(name);
          return set ?? "";
        },
      );
      entries.set(key, { value: expanded, raw: value, where: path, unset });
    }
  }
  // npm also reads npm_config_<key> variables. They count here only for
  // keys no file sets: npx passes npm's defaults (the public registry) down
  // as variables, which would hide the files' settings.
  for (const [name, value] of Object.entries(env)) {
    const match = /^npm_config_(.+)$/i.exec(name);
    if (match === null || value === undefined) continue;
    const key = match[1].toLowerCase() === "@vendor:registry"
      ? "@vendor:registry"
      : match[1];
    if (!entries.has(key)) {
      entries.set(key, {
        value,
        raw: value,
        where: `env ${name}`,
        unset: [],
      });
    }
  }
  return { files, entries, ignored, unreadable };
}

// `https://host:port/path/` → `//host:port/path/` (npm's "nerf dart").
function nerfDart(url: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname.endsWith("/")
      ? parsed.pathname
      : parsed.pathname + "/";
    return `//${parsed.host}${path}`;
  } catch {
    return url;
  }
}

interface Credential {
  readonly kind: string;
  readonly entry: NpmrcEntry;
  readonly key: string;
  /** With `_password`: the `username` entry beside it. */
  readonly username?: NpmrcEntry;
}

// The most specific credential entry for a registry, as npm picks it.
function credentialFor(
  entries: ReadonlyMap<string, NpmrcEntry>,
  registry: string,
): Credential | undefined {
  const target = nerfDart(registry);
  let best: Credential | undefined;
  for (const [key, entry] of entries) {
    const match = /^(\/\/.+?):(_authToken|_auth|_password|username)$/.exec(
      key,
    );
    if (match === null || match[2] === "username") continue;
    const prefix = match[1].endsWith("/") ? match[1] : match[1] + "/";
    if (!target.startsWith(prefix)) continue;
    if (best === undefined || prefix.length > best.key.length) {
      best = {
        kind: match[2],
        entry,
        key: prefix,
        username: match[2] === "_password"
          ? entries.get(`${match[1]}:username`)
          : undefined,
      };
    }
  }
  return best;
}

/** The registry, credentials, and (with `--connect`) what the registry says. */
export async function checkRegistry(
  project: Project,
  connect: boolean,
  timeout: number,
): Promise<Check[]> {
  const usesNpm = project.packageJson !== undefined ||
    [...project.denoImports.values()].some((spec) => spec.startsWith("npm:"));
  if (!usesNpm) {
    return [{
      group: GROUP,
      name: "npm registry",
      status: "skip",
      message: project.denoJson !== undefined
        ? "the Deno project takes no Kit package from npm (jsr: imports need no registry setting)"
        : "no package.json or deno.json in the folder",
    }];
  }
  const manager = await detectPackageManager(project);
  const checks = manager.berry
    ? await checkYarnrc(project, manager, connect, timeout)
    : await checkNpmrc(project, manager, connect, timeout);
  checks.push({
    group: GROUP,
    name: "package manager",
    status: "pass",
    message: `${toolName(manager)} (${manager.source}), which reads ${
      manager.berry
        ? ".yarnrc.yml (never .npmrc)"
        : manager.name === "pnpm"
        ? ".npmrc, a ${VARIABLE} in a token only from the user's"
        : ".npmrc, the project's and the user's"
    }`,
  });
  return checks;
}

// Where the token line goes for this tool, as a sentence for a fix
// (`verb` is "add" or "move").
function tokenAdvice(
  manager: PackageManager,
  dart: string,
  verb = "add",
): string {
  const line = `\`${dart}:_authToken=\${KIT_REGISTRY_TOKEN}\``;
  return manager.name === "pnpm"
    ? `${verb} ${line} to your user ~/.npmrc (pnpm ignores a variable in a token of the project's .npmrc), or run \`pnpm config set "${dart}:_authToken" "$KIT_REGISTRY_TOKEN"\`, which writes the token itself to your user configuration`
    : `${verb} ${line} to the project's .npmrc (never the token itself)`;
}

async function checkNpmrc(
  project: Project,
  manager: PackageManager,
  connect: boolean,
  timeout: number,
): Promise<Check[]> {
  const npmrc = await readNpmrc(project.folder, manager);
  // Settled first: what follows is found without these files' settings.
  const checks: Check[] = npmrc.unreadable.map((error) => ({
    group: GROUP,
    name: "npmrc",
    status: "fail",
    message: error.message,
    advice: error.advice,
  }));
  const tool = toolName(manager);
  const scoped = npmrc.entries.get("@vendor:registry");
  const skippedScope = npmrc.ignored.get("@vendor:registry");
  if (skippedScope !== undefined && scoped === undefined) {
    checks.push({
      group: GROUP,
      name: "scope registry",
      status: "fail",
      message:
        `@vendor:registry in ${skippedScope.where} reads a \${VARIABLE}, which ${tool} ignores in a project .npmrc, so it asks the public registry and gets 404 Not Found`,
      advice:
        "write the registry address itself in the project's .npmrc (`@vendor:registry=<registry-url>`; it is not a secret)",
    });
    return checks;
  }
  const fallback = npmrc.entries.get("registry");
  let registry: string | undefined;
  if (scoped !== undefined && scoped.value !== "") {
    registry = scoped.value;
    checks.push({
      group: GROUP,
      name: "scope registry",
      status: "pass",
      message: `@vendor:registry=${scoped.value} (${scoped.where})`,
    });
  } else if (
    fallback !== undefined && fallback.value !== "" &&
    nerfDart(fallback.value) !== nerfDart(PUBLIC_REGISTRY)
  ) {
    registry = fallback.value;
    checks.push({
      group: GROUP,
      name: "scope registry",
      status: "pass",
      message:
        `no @vendor:registry line, but the default registry is ${fallback.value} (${fallback.where}), which then serves @vendor too`,
    });
  } else {
    checks.push({
      group: GROUP,
      name: "scope registry",
      status: "fail",
      message: `the @vendor scope is not mapped to a registry (${
        npmrc.files.length === 0
          ? "no .npmrc in the project or the home folder"
          : `read ${npmrc.files.join(", ")}`
      }), so the package manager asks the public registry and gets 404 Not Found`,
      advice:
        "add `@vendor:registry=<registry-url>` to the project's .npmrc (or run `npm config set @vendor:registry <registry-url>`) with the address your administrator gives you",
    });
    return checks;
  }
  const credential = credentialFor(npmrc.entries, registry);
  const dart = nerfDart(registry);
  const skipped = credentialFor(npmrc.ignored, registry);
  if (
    skipped !== undefined &&
    (credential === undefined || credential.key.length < skipped.key.length)
  ) {
    checks.push({
      group: GROUP,
      name: "credentials",
      status: "fail",
      message:
        `${skipped.key}:${skipped.kind} in ${skipped.entry.where} reads ${
          /\$\{[^}]*\}/.exec(skipped.entry.raw)?.[0]
        }, which ${tool} ignores in a project .npmrc (pnpm fills in variables in credentials only from the user's files since 10.34.2 and 11.5.3), so the registry answers 401 Unauthorized (ERR_PNPM_FETCH_401)`,
      advice: `keep \`@vendor:registry=…\` in the project's .npmrc and ${
        tokenAdvice(manager, dart, "move")
      }`,
    });
    return checks;
  }
  if (credential === undefined) {
    checks.push({
      group: GROUP,
      name: "credentials",
      status: "fail",
      message: `no token for ${dart} in ${
        npmrc.files.length === 0 ? "any .npmrc" : npmrc.files.join(" or ")
      }, so the registry answers 401 Unauthorized`,
      advice:
        `ask an administrator for a token, export it as KIT_REGISTRY_TOKEN and ${
          tokenAdvice(manager, dart)
        }`,
    });
    return checks;
  }
  rememberSecret(credential.entry.value);
  if (credential.entry.unset.length > 0 || credential.entry.value === "") {
    const names = credential.entry.unset.join(", ");
    checks.push({
      group: GROUP,
      name: "credentials",
      status: "fail",
      message:
        `${credential.key}:${credential.kind} in ${credential.entry.where} ${
          names === ""
            ? "is empty"
            : `reads \${${names}}, which is not set in this shell`
        }, so the registry answers 401 Unauthorized`,
      advice: names === ""
        ? "put the token your administrator issued in an environment variable and reference it: " +
          `\`${credential.key}:_authToken=\${KIT_REGISTRY_TOKEN}\``
        : `export ${names} with the token your administrator issued (for example in your shell profile or the CI secrets)`,
    });
    return checks;
  }
  if (
    credential.kind === "_password" &&
    (credential.username === undefined || credential.username.value === "")
  ) {
    checks.push({
      group: GROUP,
      name: "credentials",
      status: "fail",
      message:
        `${credential.key}:_password is set (${credential.entry.where}) but ${credential.key}:username is not, so npm sends no credentials and the registry answers 401 Unauthorized`,
      advice:
        `add \`${credential.key}:username=<user>\` beside the password, or use a token: \`${credential.key}:_authToken=\${KIT_REGISTRY_TOKEN}\``,
    });
    return checks;
  }
  if (
    manager.name === "pnpm" &&
    credential.entry.where === join(project.folder, ".npmrc") &&
    credential.entry.raw.includes("${")
  ) {
    // An older pnpm that still fills the variable in.
    checks.push({
      group: GROUP,
      name: "credentials",
      status: "warn",
      message:
        `${tool} fills in the \${VARIABLE} of ${credential.key}:${credential.kind} in ${credential.entry.where}, but pnpm 10.34.2 and later (and 11.5.3 and later) ignore it there and get 401 Unauthorized`,
      advice: `before upgrading pnpm, ${tokenAdvice(manager, dart, "move")}`,
    });
    if (connect) {
      checks.push(await probeRegistry(registry, credential, timeout));
    }
    return checks;
  }
  checks.push({
    group: GROUP,
    name: "credentials",
    status: "pass",
    message: `a ${
      credential.kind === "_authToken" ? "token" : "credential"
    } for ${credential.key} is set (${credential.entry.where}); not shown`,
  });
  if (connect) checks.push(await probeRegistry(registry, credential, timeout));
  return checks;
}

// The registry and credentials of Yarn 2 and later, from .yarnrc.yml.
async function checkYarnrc(
  project: Project,
  manager: PackageManager,
  connect: boolean,
  timeout: number,
): Promise<Check[]> {
  const tool = toolName(manager);
  const yarn = await readYarnRegistry(project.folder, "vendor");
  const checks: Check[] = [];
  const snippet = (server: string): string =>
    `npmScopes:\n  vendor:\n    npmRegistryServer: "${server}"\n    npmAuthToken: "\${KIT_REGISTRY_TOKEN}"\n` +
    // Yarn 4 holds back versions less than a day old, a release included.
    `npmPreapprovedPackages:\n  - "@vendor/*"`;
  const server = yarn.server;
  if (
    server === undefined || server.value === "" ||
    /registry\.(yarnpkg\.com|npmjs\.org)/.test(server.value)
  ) {
    const npmrc = await readText(join(project.folder, ".npmrc"));
    checks.push({
      group: GROUP,
      name: "scope registry",
      status: "fail",
      message: `${tool} does not read .npmrc${
        npmrc?.includes("@vendor:registry")
          ? " (where this project maps @vendor)"
          : ""
      } and no .yarnrc.yml maps the @vendor scope (${
        yarn.files.length === 0 ? "none found" : `read ${yarn.files.join(", ")}`
      }), so Yarn asks the public registry and gets 404 Not Found`,
      advice:
        `add to the project's .yarnrc.yml (Yarn 2 and later fill in \${KIT_REGISTRY_TOKEN} there):\n${
          snippet("<registry-url>")
        }`,
    });
    return checks;
  }
  checks.push({
    group: GROUP,
    name: "scope registry",
    status: "pass",
    message: `${server.key}: ${server.value} (${server.where})`,
  });
  const auth = yarn.auth;
  if (auth === undefined) {
    checks.push({
      group: GROUP,
      name: "credentials",
      status: "fail",
      message: `no npmAuthToken for the vendor scope or ${server.value} in ${
        yarn.files.join(" or ")
      }, so the registry answers 401 Unauthorized`,
      advice:
        `ask an administrator for a token, export it as KIT_REGISTRY_TOKEN and add \`npmAuthToken: "\${KIT_REGISTRY_TOKEN}"\` under npmScopes.vendor in .yarnrc.yml:\n${
          snippet(server.value)
        }`,
    });
    return checks;
  }
  rememberSecret(auth.value);
  if (auth.missing.length > 0) {
    checks.push({
      group: GROUP,
      name: "credentials",
      status: "fail",
      message: `${auth.key} in ${auth.where} reads \${${
        auth.missing[0]
      }}, which is not set in this shell: ${tool} stops with "Environment variable not found (${
        auth.missing[0]
      })"`,
      advice: `export ${
        auth.missing.join(", ")
      } with the token your administrator issued (for example in your shell profile or the CI secrets)`,
    });
    return checks;
  }
  if (auth.value === "") {
    checks.push({
      group: GROUP,
      name: "credentials",
      status: "fail",
      message:
        `${auth.key} in ${auth.where} is empty, so the registry answers 401 Unauthorized`,
      advice:
        'export KIT_REGISTRY_TOKEN with the token your administrator issued and reference it: `npmAuthToken: "${KIT_REGISTRY_TOKEN}"`',
    });
    return checks;
  }
  checks.push({
    group: GROUP,
    name: "credentials",
    status: "pass",
    message: `${auth.key} is set (${auth.where}); not shown`,
  });
  if (connect) {
    const entry = {
      value: auth.value,
      raw: auth.value,
      where: auth.where,
      unset: [],
    };
    checks.push(
      await probeRegistry(server.value, {
        // An ident is `user:password` in base64, as npm's `_auth`.
        kind: auth.kind === "npmAuthToken" ? "_authToken" : "_auth",
        entry,
        key: nerfDart(server.value),
      }, timeout),
    );
  }
  return checks;
}

// The Authorization header npm sends: `_authToken` as a bearer token,
// `_auth` (base64 of `user:password`) as is, and `_password` (base64 of the
// password) with the `username` beside it as basic credentials.
function authorizationOf(credential: Credential): string {
  const value = credential.entry.value;
  if (credential.kind === "_authToken") return `Bearer ${value}`;
  if (credential.kind === "_auth") {
    // Yarn writes an ident as plain `user:password` and encodes it itself;
    // npm's `_auth` is already base64 (which has no `:`).
    if (!value.includes(":")) return `Basic ${value}`;
    const encoded = Buffer.from(value, "utf8").toString("base64");
    rememberSecret(encoded);
    return `Basic ${encoded}`;
  }
  const password = Buffer.from(value, "base64").toString("utf8");
  const basic = Buffer.from(
    `${credential.username?.value ?? ""}:${password}`,
    "utf8",
  ).toString("base64");
  rememberSecret(password);
  rememberSecret(basic);
  return `Basic ${basic}`;
}

// Asks the registry for @vendor/kit-core's metadata with the credentials.
async function probeRegistry(
  registry: string,
  credential: Credential,
  timeout: number,
): Promise<Check> {
  const base = registry.endsWith("/") ? registry : registry + "/";
  const url = `${base}@vendor%2fkit-core`;
  const authorization = authorizationOf(credential);
  try {
    const response = await fetch(url, {
      headers: { authorization, accept: "application/json" },
      signal: AbortSignal.timeout(timeout),
    });
    await response.body?.cancel().catch(() => {});
    if (response.ok) {
      return {
        group: GROUP,
        name: "registry answers",
        status: "pass",
        message: `${url} answered ${response.status} with the credentials`,
      };
    }
    return {
      group: GROUP,
      name: "registry answers",
      status: "fail",
      message: `${url} answered ${response.status} ${response.statusText}`,
      advice: response.status === 401 || response.status === 403
        ? "the registry refuses the token: ask an administrator for a new one"
        : response.status === 404
        ? "the registry does not have @vendor/kit-core: check the @vendor:registry address with your administrator"
        : "check the registry address and try again later",
    };
  } catch (error) {
    return {
      group: GROUP,
      name: "registry answers",
      status: "fail",
      message: `${url} did not answer (timeout ${timeout} ms): ${
        describeNetworkError(error)
      }`,
      advice:
        "check the @vendor:registry address, the network and any proxy settings",
    };
  }
}
