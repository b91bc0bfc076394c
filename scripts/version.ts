/**
 * `deno task version <x.y.z>`: moves Kit to a new version and opens its
 * section in CHANGELOG.md.
 *
 * The version lives in one place, `version` in deno.json: JSR publishes it,
 * `scripts/build_npm.ts` gives it to every npm package (the eight libraries,
 * their `^` ranges on each other, and `@vendor/create-kit`, whose program
 * reads it from its own package.json and makes a generated project depend on
 * Kit at `^` it). So this task writes deno.json, and in CHANGELOG.md turns
 * what `## [Unreleased]` lists into `## [x.y.z] - <today, UTC>`, leaving an
 * empty `## [Unreleased]` above it.
 *
 * It refuses (exit 1, nothing written) a version that is not semver, one
 * that is not greater than the current version, an `[Unreleased]` section
 * that lists nothing, and a version CHANGELOG.md already has. `--root
 * <folder>` works on another checkout (the tests use a copy).
 *
 * Run: `deno task version 1.2.0`.
 *
 * @module
 */
// @ts-types="npm:@types/semver@^7.7.1"
import semver from "semver";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const USAGE = "usage: deno task version <x.y.z> [--root <folder>]";

/** A version change the task refuses, with what to do instead. */
export class VersionError extends Error {
  /**
   * @param message What is wrong and what to do.
   */
  constructor(message: string) {
    super(message);
    this.name = "VersionError";
  }
}

/** What `bumpVersion` changed. */
export interface VersionChange {
  /** The version before. */
  previous: string;
  /** The version now. */
  next: string;
  /** The CHANGELOG.md heading it wrote. */
  heading: string;
}

/** The `version` field of deno.json's text, with where it stands. */
function findVersion(text: string, file: string): {
  value: string;
  start: number;
  end: number;
} {
  const match = /"version"\s*:\s*"([^"]*)"/.exec(text);
  if (match === null) {
    throw new VersionError(
      `${file} has no "version" field: add "version": "0.0.0" at its top level`,
    );
  }
  const start = match.index + match[0].lastIndexOf(`"${match[1]}"`) + 1;
  return { value: match[1], start, end: start + match[1].length };
}

/**
 * Opens the section of `next` in a Keep a Changelog text: the entries under
 * `## [Unreleased]` move under `## [next] - date`, and an empty
 * `## [Unreleased]` stays above it.
 *
 * @param text CHANGELOG.md.
 * @param next The new version.
 * @param date The release date, `YYYY-MM-DD`.
 * @param file The file's path, for messages.
 * @returns The new text and the heading written.
 * @throws {VersionError} When there is no `## [Unreleased]` section, it lists
 * nothing, or `next` has a section already.
 */
export function openChangelogSection(
  text: string,
  next: string,
  date: string,
  file = "CHANGELOG.md",
): { text: string; heading: string } {
  const unreleased = /^## \[Unreleased\][^\n]*\n/m.exec(text);
  if (unreleased === null) {
    throw new VersionError(
      `${file} has no "## [Unreleased]" section: add one above the last release and list the changes under it`,
    );
  }
  const escaped = next.replace(/[.+]/g, "\\$&");
  if (new RegExp(`^## \\[${escaped}\\]`, "m").test(text)) {
    throw new VersionError(
      `${file} already has a section for ${next}: choose another version`,
    );
  }
  const bodyStart = unreleased.index + unreleased[0].length;
  const following = /^## \[/m.exec(text.slice(bodyStart));
  const bodyEnd = following === null
    ? text.length
    : bodyStart + following.index;
  const body = text.slice(bodyStart, bodyEnd);
  // Link reference definitions at the end of the file are not entries.
  const entries = body.replace(/^\[[^\]]+\]:\s*\S+.*$/gm, "").trim();
  if (entries === "") {
    throw new VersionError(
      `${file}: "## [Unreleased]" lists nothing; write what changed under it before releasing ${next}`,
    );
  }
  const heading = `## [${next}] - ${date}`;
  return {
    text: text.slice(0, bodyStart) + "\n" + heading + "\n" + body +
      text.slice(bodyEnd),
    heading,
  };
}

/**
 * Sets Kit's version to `next` in `root` (deno.json) and opens its section
 * in CHANGELOG.md. Nothing is written when anything is refused.
 *
 * @param root The checkout.
 * @param next The new version, semver (`1.2.3`, `2.0.0-rc.1`).
 * @param date The release date, `YYYY-MM-DD`.
 * @returns What changed.
 * @throws {VersionError} When `next` is not semver or not greater than the
 * current version, or CHANGELOG.md cannot take it.
 */
export async function bumpVersion(
  root: string,
  next: string,
  date: string,
): Promise<VersionChange> {
  const configFile = join(root, "deno.json");
  const changelogFile = join(root, "CHANGELOG.md");
  const config = await readFile(configFile, "utf8");
  const current = findVersion(config, configFile);
  // valid() also accepts " v1.2.3 " and answers "1.2.3": only the clean form.
  if (semver.valid(next) !== next) {
    throw new VersionError(
      `"${next}" is not a semantic version: give major.minor.patch, such as 1.2.3 (or 2.0.0-rc.1 for a pre-release)`,
    );
  }
  if (semver.valid(current.value) === null) {
    throw new VersionError(
      `${configFile}: the current version "${current.value}" is not a semantic version; fix it by hand first`,
    );
  }
  if (!semver.gt(next, current.value)) {
    throw new VersionError(
      `${next} is not greater than the current version ${current.value} (${configFile}): give a higher one, such as ${
        semver.inc(current.value, "patch")
      }`,
    );
  }
  const changelog = openChangelogSection(
    await readFile(changelogFile, "utf8").catch(() => {
      throw new VersionError(
        `${changelogFile} does not exist: start one with a "## [Unreleased]" section`,
      );
    }),
    next,
    date,
    changelogFile,
  );
  await writeFile(
    configFile,
    config.slice(0, current.start) + next + config.slice(current.end),
  );
  await writeFile(changelogFile, changelog.text);
  return { previous: current.value, next, heading: changelog.heading };
}

/**
 * The task's program.
 *
 * @param args The arguments after the task name.
 * @returns The exit code: 0 done, 1 refused, 2 bad usage.
 */
export async function main(args: readonly string[]): Promise<number> {
  let root = ROOT;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--root") {
      const value = args[++i];
      if (value === undefined) {
        console.error(`--root needs a folder\n${USAGE}`);
        return 2;
      }
      root = resolve(value);
    } else if (args[i] === "-h" || args[i] === "--help") {
      console.log(USAGE);
      return 0;
    } else positional.push(args[i]);
  }
  if (positional.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  try {
    const change = await bumpVersion(
      root,
      positional[0],
      new Date().toISOString().slice(0, 10),
    );
    console.log(
      `${change.previous} -> ${change.next}: deno.json (JSR and every npm package take it from there); CHANGELOG.md: ${change.heading}`,
    );
    return 0;
  } catch (error) {
    if (error instanceof VersionError) {
      console.error(`version: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
