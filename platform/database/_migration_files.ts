// The migrations folder read into the files to apply, in the order of their
// number: only `.sql` files (hidden files such as .gitkeep are skipped), each
// named `<number>_<name>.sql`, no two with one number, none larger than
// 16 MiB. Line endings are read as LF, so a checkout that turns them into
// CRLF does not count as a change.
import { readdir, stat } from "node:fs/promises";
import {
  FileTooLargeError,
  readBoundedTextFile,
} from "../../internal/bounded_file.ts";
import { join, resolve } from "node:path";
import { MigrationError } from "./migration_error.ts";

/** One migration to apply. */
export interface MigrationFile {
  /** The file's name (`001_users.sql`): what the table records. */
  readonly name: string;
  /** The folder and the name, as messages show it. */
  readonly path: string;
  /** Its number. */
  readonly number: bigint;
  /** Its statements, with LF line endings. */
  readonly text: string;
  /** SHA-256 of `text`, in hex. */
  readonly checksum: string;
}

/** The largest migration file read. */
const MAX_FILE = 16 * 1024 * 1024;

/** How long reading one file may take (a hung network mount). */
const READ_TIMEOUT = 10_000;

const NAME = /^(\d+)[^/\\]*\.sql$/;

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(
    new Uint8Array(digest),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}

/**
 * The migrations of `directory`, in order.
 *
 * @throws {MigrationError} Naming the folder or file that cannot be used.
 */
export async function readMigrations(
  directory: string,
): Promise<MigrationFile[]> {
  const absolute = resolve(directory);
  const found = await stat(absolute).catch(() => undefined);
  if (found === undefined) {
    throw new MigrationError(
      directory,
      `The migrations folder '${directory}' does not exist (looked for ${absolute}): create it, or give migrate({ directory }) the folder that holds the .sql files`,
    );
  }
  if (!found.isDirectory()) {
    throw new MigrationError(
      directory,
      `The migrations folder '${directory}' is not a folder (${absolute}): give migrate({ directory }) the folder that holds the .sql files`,
    );
  }
  const entries = await readdir(absolute, { withFileTypes: true });
  const files: { name: string; number: bigint; path: string }[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(directory, entry.name);
    if (!entry.isFile() || !entry.name.toLowerCase().endsWith(".sql")) {
      throw new MigrationError(
        path,
        `${path} is not a .sql file: the migrations folder holds only migrations (001_create_users.sql); move it elsewhere`,
      );
    }
    const match = NAME.exec(entry.name);
    if (match === null) {
      throw new MigrationError(
        path,
        `${path} does not start with a number: name migrations <number>_<what>.sql (001_create_users.sql) so that they apply in order`,
      );
    }
    files.push({ name: entry.name, number: BigInt(match[1]), path });
  }
  files.sort((a, b) =>
    a.number < b.number
      ? -1
      : a.number > b.number
      ? 1
      : a.name < b.name
      ? -1
      : 1
  );
  for (let i = 1; i < files.length; i++) {
    if (files[i].number === files[i - 1].number) {
      throw new MigrationError(
        files[i].path,
        `${files[i - 1].path} and ${files[i].path} have the same number (${
          files[i].number
        }): give one of them the next free number`,
      );
    }
  }
  const migrations: MigrationFile[] = [];
  for (const file of files) {
    let raw: string;
    try {
      raw = await readBoundedTextFile(join(absolute, file.name), {
        limit: MAX_FILE,
        timeout: READ_TIMEOUT,
      });
    } catch (error) {
      throw new MigrationError(
        file.path,
        error instanceof FileTooLargeError
          ? `${file.path} is larger than the ${MAX_FILE} bytes a migration may be: split it`
          : `${file.path} could not be read: ${
            error instanceof Error ? error.message : String(error)
          }`,
        { cause: error },
      );
    }
    const text = raw.replace(/\r\n?/g, "\n");
    migrations.push({ ...file, text, checksum: await sha256(text) });
  }
  return migrations;
}

/**
 * Line and column (1-based) of a character position (1-based) in `text`.
 *
 * @param text The text.
 * @param position The position, as the server reports it.
 */
export function lineAndColumn(
  text: string,
  position: number,
): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, position - 1));
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}
