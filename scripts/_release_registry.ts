// The private registry of the release check (scripts/release_check.ts): the
// pinned tools it needs, a Verdaccio started on loopback with htpasswd
// authentication for the @vendor scope and the public registry proxied for
// everything else, a user created through the registry's API, and the
// publish helper whose refusal names the registry and the package.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import {
  killAll,
  mask,
  OUTPUT_LIMIT,
  run,
  type RunOptions,
  type RunResult,
  track,
} from "./_run.ts";

/**
 * The tools the check installs into its folder, pinned. Verdaccio 6.8 is
 * the last line that runs on Node.js 20 (6.9 and later want 22); pnpm 12
 * ships as a native program; Bun as npm's `bun` package, as
 * scripts/test_npm.ts gets it; both TypeScript lines under their own names.
 */
export const TOOL_PINS = {
  verdaccio: "6.8.0",
  pnpm: "12.21.0",
  bun: "1.4.5",
  "typescript-5.9": "npm:typescript@5.9.3",
  "typescript-7": "npm:typescript@7.0.2",
} as const;

/**
 * verdaccio-audit asks for `node-fetch@cjs`, a dist-tag some registries
 * (mirrors) do not carry; 2.7.0 is the CommonJS line that tag names.
 */
const TOOL_OVERRIDES = { "node-fetch": "2.7.0" } as const;

/** What a finished command left. */
export type Result = RunResult;

/** A command and where it runs. */
export type { RunOptions };

export { killAll, mask, run };

/**
 * A port free on loopback right now.
 *
 * @returns The port.
 * @throws {Error} When the system gives none.
 */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolvePromise(address.port)
          : reject(new Error("no free port on 127.0.0.1"))
      );
    });
  });
}

/** The programs of the tools folder. */
export interface Tools {
  /** Verdaccio's command-line program (a Node.js script). */
  verdaccio: string;
  /** pnpm. */
  pnpm: string;
  /** bun. */
  bun: string;
  /** tsc of TypeScript 5.9 (a Node.js script). */
  tsc59: string;
  /** tsc of TypeScript 7 (a launcher of the native compiler). */
  tsc7: string;
}

/**
 * Installs the pinned tools into `dir` with `npm install --prefix`, unless
 * the folder already holds exactly these pins.
 *
 * @param dir The tools folder (kept between runs).
 * @param env The environment npm runs with.
 * @returns The programs, and whether they were installed now.
 * @throws {Error} When npm fails, with the end of its output.
 */
export async function installTools(
  dir: string,
  env: Record<string, string>,
): Promise<{ tools: Tools; installed: boolean }> {
  const manifest = JSON.stringify(
    {
      private: true,
      description: "Tools of scripts/release_check.ts, installed by it.",
      dependencies: TOOL_PINS,
      overrides: TOOL_OVERRIDES,
    },
    null,
    2,
  ) + "\n";
  const stamp = join(dir, "node_modules", ".release-check-pins.json");
  const bin = join(dir, "node_modules", ".bin");
  const tools: Tools = {
    verdaccio: join(dir, "node_modules", "verdaccio", "bin", "verdaccio"),
    pnpm: join(bin, "pnpm"),
    bun: join(bin, "bun"),
    tsc59: join(dir, "node_modules", "typescript-5.9", "bin", "tsc"),
    tsc7: join(dir, "node_modules", "typescript-7", "bin", "tsc"),
  };
  const current = existsSync(stamp)
    ? await readFile(stamp, "utf8").catch(() => "")
    : "";
  if (current === manifest && Object.values(tools).every(existsSync)) {
    return { tools, installed: false };
  }
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), manifest);
  const result = await run("npm", [
    "install",
    "--prefix",
    dir,
    "--no-audit",
    "--no-fund",
    "--no-package-lock",
    "--loglevel=error",
  ], { cwd: dir, env, timeoutMs: 240_000 });
  if (result.code !== 0) {
    throw new Error(
      `npm install of the release check's tools into ${dir} failed (${result.code}):\n${
        result.output.slice(-3000)
      }`,
    );
  }
  const missing = Object.values(tools).filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new Error(
      `npm install into ${dir} left out ${missing.join(", ")}`,
    );
  }
  await writeFile(stamp, manifest);
  return { tools, installed: true };
}

/** A running registry. */
export interface Registry {
  /** Its address, with the trailing slash (`http://127.0.0.1:4873/`). */
  url: string;
  /** The `//host:port/` key of credential lines in `.npmrc`. */
  authKey: string;
  /** Stops it (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/**
 * Starts Verdaccio on a free loopback port: `@vendor/*` only for
 * authenticated users (reading and publishing), every other package proxied
 * to `uplink`, users in an htpasswd file, all state under `dir`.
 *
 * @param verdaccio Verdaccio's program.
 * @param dir A scratch folder for its configuration and storage.
 * @param uplink The registry everything but `@vendor` comes from.
 * @param env The environment it runs with.
 * @returns The running registry.
 * @throws {Error} When it does not answer `/-/ping` within 30 s.
 */
export async function startRegistry(
  verdaccio: string,
  dir: string,
  uplink: string,
  env: Record<string, string>,
): Promise<Registry> {
  await mkdir(join(dir, "storage"), { recursive: true });
  const port = await freePort();
  // JSON is YAML, so the configuration needs no YAML writer.
  const config = {
    storage: join(dir, "storage"),
    auth: { htpasswd: { file: join(dir, "htpasswd"), max_users: 10 } },
    uplinks: { upstream: { url: uplink, timeout: "60s", max_fails: 5 } },
    packages: {
      "@vendor/*": {
        access: "$authenticated",
        publish: "$authenticated",
        unpublish: "$authenticated",
      },
      "**": { access: "$all", publish: "$authenticated", proxy: "upstream" },
    },
    web: { enable: false },
    log: { type: "stdout", format: "pretty", level: "warn" },
    max_body_size: "50mb",
  };
  const configFile = join(dir, "config.yaml");
  await writeFile(configFile, JSON.stringify(config, null, 2));
  const child = spawn("node", [
    verdaccio,
    "--config",
    configFile,
    "--listen",
    `127.0.0.1:${port}`,
  ], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  track(child);
  let output = "";
  const keep = (chunk: Uint8Array): void => {
    output = (output + new TextDecoder().decode(chunk)).slice(-OUTPUT_LIMIT);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const closed = new Promise<void>((resolvePromise) =>
    child.on("close", () => resolvePromise())
  );
  const url = `http://127.0.0.1:${port}/`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopped = await Promise.race([
      closed.then(() => true),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(false), 5_000);
      }),
    ]);
    clearTimeout(timer);
    if (!stopped) {
      child.kill("SIGKILL");
      await closed;
    }
  };
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(`${url}-/ping`, {
        signal: AbortSignal.timeout(2_000),
      });
      await response.body?.cancel();
      if (response.ok) return { url, authKey: `//127.0.0.1:${port}/`, stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(
    `Verdaccio did not answer ${url}-/ping within 30 s:\n${
      output.slice(-3000)
    }`,
  );
}

/**
 * Creates a user through the registry's API (what `npm adduser` sends) and
 * returns the token the registry issued for it.
 *
 * @param registry The registry's address, with the trailing slash.
 * @param name The user name.
 * @param password The password.
 * @returns The token.
 * @throws {Error} When the registry does not answer 201 with a token.
 */
export async function createUser(
  registry: string,
  name: string,
  password: string,
): Promise<string> {
  const response = await fetch(
    `${registry}-/user/org.couchdb.user:${encodeURIComponent(name)}`,
    {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, password, type: "user", roles: [] }),
      signal: AbortSignal.timeout(10_000),
    },
  );
  const text = (await response.text()).slice(0, 4096);
  let token: unknown;
  try {
    token = (JSON.parse(text) as { token?: unknown }).token;
  } catch {
    token = undefined;
  }
  if (response.status !== 201 || typeof token !== "string") {
    throw new Error(
      `${registry}: creating the user ${name} answered ${response.status} without a token: ${
        mask(text, typeof token === "string" ? [password, token] : [password])
      }`,
    );
  }
  return token;
}

/** A publish the registry refused (or that could not reach it). */
export class PublishError extends Error {
  /**
   * @param packageName The package that was not published.
   * @param registry The registry that refused it.
   * @param reason npm's error code and first error line.
   */
  constructor(
    readonly packageName: string,
    readonly registry: string,
    readonly reason: string,
  ) {
    super(
      `publishing ${packageName} to ${registry} failed: ${
        reason.replace(/[.\s]+$/, "")
      }. Check the token in the publishing .npmrc (its //host/:_authToken line for ${registry}) and that the registry lets this user publish ${packageName}.`,
    );
    this.name = "PublishError";
  }
}

/**
 * Publishes a built package folder with `npm publish`, credentials from
 * `userconfig` (a temporary file; its token never reaches the output).
 *
 * @param dir The package folder.
 * @param registry The registry's address.
 * @param userconfig The `.npmrc` holding the credential line.
 * @param env The environment npm runs with.
 * @param secrets Values to mask in any message.
 * @returns The package name and version published.
 * @throws {PublishError} When npm fails, naming the registry and the package.
 */
export async function publish(
  dir: string,
  registry: string,
  userconfig: string,
  env: Record<string, string>,
  secrets: readonly string[],
): Promise<string> {
  const manifest = JSON.parse(
    await readFile(join(dir, "package.json"), "utf8"),
  ) as { name: string; version: string };
  const result = await run("npm", [
    "publish",
    "--registry",
    registry,
    "--userconfig",
    userconfig,
    "--no-provenance",
    "--loglevel=warn",
  ], { cwd: dir, env, timeoutMs: 60_000, secrets });
  if (result.code !== 0) {
    const lines = result.output.split("\n");
    const code = lines.find((line) => /^npm error code /.test(line))
      ?.replace("npm error code ", "");
    const first = lines.find((line) =>
      /^npm error /.test(line) && !/^npm error (code|A complete log)/.test(line)
    )?.replace(/^npm error /, "");
    throw new PublishError(
      manifest.name,
      registry,
      [code, first].filter(Boolean).join(" ") ||
        `npm exited with ${result.code}: ${result.output.slice(-500).trim()}`,
    );
  }
  return `${manifest.name}@${manifest.version}`;
}
