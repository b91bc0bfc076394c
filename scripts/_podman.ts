/**
 * Podman for the checks that build and run a real image from a Dockerfile
 * (scripts/service_check.ts, scripts/create_check.ts): the flags every call
 * needs on the CI machines, a synchronous command runner, and the local
 * stand-in of the base image `node:20-bookworm-slim`.
 *
 * The CI machines have no Docker engine and reach no image registry. Debian's
 * podman runs there with `--runtime runc` (crun refuses the hybrid cgroup
 * layout), `--cgroup-manager cgroupfs` (no systemd) and lower `nofile` and
 * `nproc` limits on `build` and `run` (the defaults are above what the
 * machine may set). The base image is made from the machine's own Node.js 20
 * and npm, under the name the Dockerfiles use, so that they are built
 * unchanged with `--pull=never`; a check that uses it says so.
 *
 * @module
 */
import { existsSync } from "node:fs";
import {
  chmod,
  chown,
  cp,
  mkdir,
  mkdtemp,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runSync } from "./_run.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The base image the Dockerfiles start from, as podman names it. */
export const BASE_IMAGE = "docker.io/library/node:20-bookworm-slim";

/** The global flags every podman call needs on these machines. */
export const PODMAN_FLAGS: readonly string[] = [
  "--runtime",
  "runc",
  "--cgroup-manager",
  "cgroupfs",
];

/** The limits `podman build` and `podman run` must be given here. */
export const ULIMITS: readonly string[] = [
  "--ulimit",
  "nofile=10000:10000",
  "--ulimit",
  "nproc=9000:9000",
];

/** A finished command: its exit code (1 when it could not run) and output. */
export interface Ran {
  /** The exit code; 1 when the command failed to start or was killed. */
  code: number;
  /** Everything it wrote to stdout. */
  stdout: string;
  /** Everything it wrote to stderr, and the spawn error if any. */
  stderr: string;
}

/**
 * Runs a command to its end (killed past `timeout`, 10 min by default).
 *
 * @param command The program.
 * @param args Its arguments.
 * @param options The folder (the checkout by default), the time limit in
 * ms, and variables added to the environment.
 * @returns Its exit code and output.
 */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; timeout?: number; env?: Record<string, string> } =
    {},
): Ran {
  return runSync(command, args, {
    cwd: options.cwd ?? ROOT,
    timeout: options.timeout,
    env: { ...process.env, ...options.env },
  });
}

/**
 * Runs `podman` with {@linkcode PODMAN_FLAGS} before `args`.
 *
 * @param args The podman command and its arguments.
 * @param timeout The time limit in ms (1 min by default).
 * @returns Its exit code and output.
 */
export function podman(args: readonly string[], timeout = 60_000): Ran {
  return run("podman", [...PODMAN_FLAGS, ...args], { timeout });
}

/**
 * The output of a command that must have succeeded.
 *
 * @param ran The finished command.
 * @param what What it was, for the error.
 * @returns Its stdout.
 * @throws {Error} When it exited with another code than 0, with the end
 * of its output.
 */
export function must(ran: Ran, what: string): string {
  if (ran.code !== 0) {
    throw new Error(
      `${what} failed (${ran.code}):\n${ran.stdout.slice(-3000)}\n${
        ran.stderr.slice(-3000)
      }`,
    );
  }
  return ran.stdout;
}

/**
 * Why podman cannot build and run images here, if it cannot.
 *
 * @returns The reason, or `undefined` when podman answers `podman info`.
 */
export function whyNoPodman(): string | undefined {
  if (run("sh", ["-c", "command -v podman"]).code !== 0) {
    return "podman is not installed (apt-get install podman runc busybox-static)";
  }
  if (!existsSync("/bin/busybox")) {
    return "/bin/busybox is missing (apt-get install busybox-static), needed for the stand-in base image";
  }
  const info = podman(["info", "--format", "{{.Host.OCIRuntime.Name}}"]);
  if (info.code !== 0) {
    return `podman cannot run here: ${
      info.stderr.trim().split("\n").slice(-2).join(" ")
    }`;
  }
  return undefined;
}

/**
 * A container's output, stdout and stderr through one pipe so that the
 * lines keep their order.
 *
 * @param name The container.
 * @returns Its log lines, without the trailing newline.
 */
export function containerLogs(name: string): string[] {
  return run("sh", [
    "-c",
    `podman ${PODMAN_FLAGS.join(" ")} logs "$0" 2>&1`,
    name,
  ], { timeout: 30_000 }).stdout.trim().split("\n");
}

/**
 * Makes `node:20-bookworm-slim` from this machine's Node.js 20 and npm when
 * no such image is present (no registry is reachable here): busybox, node
 * and its libraries, npm, CA certificates, root and the `node` user.
 *
 * @returns How the image came to be there: `present already`, or made
 * from which node.
 * @throws {Error} When this machine's node is not version 20, or `tar` or
 * `podman import` fails.
 */
export async function ensureBaseImage(): Promise<string> {
  if (podman(["image", "exists", BASE_IMAGE]).code === 0) {
    return "present already";
  }
  const node = run("sh", ["-c", 'readlink -f "$(command -v node)"']).stdout
    .trim();
  const major = run(node, ["--version"]).stdout.trim();
  if (!major.startsWith("v20.")) {
    throw new Error(
      `this machine's node is ${major}: the stand-in of node:20 needs Node.js 20`,
    );
  }
  const root = await mkdtemp(join(tmpdir(), "kit-node-base-"));
  try {
    for (const dir of ["bin", "usr/bin", "etc/ssl/certs", "tmp", "root"]) {
      await mkdir(join(root, dir), { recursive: true });
    }
    await chmod(join(root, "tmp"), 0o1777);
    await cp("/bin/busybox", join(root, "bin/busybox"));
    const applets = run("/bin/busybox", ["--list"]).stdout.split("\n")
      .filter((name) => /^[\w.[-]+$/.test(name) && name !== "busybox");
    for (const applet of applets) {
      await symlink("/bin/busybox", join(root, "bin", applet));
    }
    await symlink("/bin/busybox", join(root, "usr/bin/env"));
    await cp(node, join(root, "usr/bin/node"));
    const libraries = run("ldd", [node]).stdout.split("\n").map((line) =>
      /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1]
    ).filter((path): path is string => path !== undefined);
    for (const library of libraries) {
      await mkdir(join(root, dirname(library)), { recursive: true });
      await cp(library, join(root, library), { dereference: true });
    }
    await cp(
      "/usr/lib/node_modules/npm",
      join(root, "usr/lib/node_modules/npm"),
      {
        recursive: true,
        dereference: true,
      },
    );
    await symlink(
      "../lib/node_modules/npm/bin/npm-cli.js",
      join(root, "usr/bin/npm"),
    );
    await symlink(
      "../lib/node_modules/npm/bin/npx-cli.js",
      join(root, "usr/bin/npx"),
    );
    await writeFile(
      join(root, "etc/passwd"),
      "root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\n",
    );
    await writeFile(join(root, "etc/group"), "root:x:0:\nnode:x:1000:\n");
    await mkdir(join(root, "home/node"), { recursive: true });
    await chown(join(root, "home/node"), 1000, 1000);
    await cp(
      "/etc/ssl/certs/ca-certificates.crt",
      join(root, "etc/ssl/certs/ca-certificates.crt"),
    );
    const tar = join(tmpdir(), `kit-node-base-${process.pid}.tar`);
    must(run("tar", ["-C", root, "-cf", tar, "."]), "tar of the base image");
    try {
      must(
        podman([
          "import",
          "--change",
          "ENV PATH=/usr/local/bin:/usr/bin:/bin",
          "--change",
          "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt",
          tar,
          BASE_IMAGE,
        ], 300_000),
        "podman import of the base image",
      );
    } finally {
      await rm(tar, { force: true });
    }
    return `made from this machine's node ${major}`;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
