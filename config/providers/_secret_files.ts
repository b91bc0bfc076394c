// `<NAME>_FILE` variables: the value of `<NAME>` read from the file the
// variable names (Docker and Kubernetes secrets are mounted as files), for
// the prefixed and the standard variables. Read through the bounded file
// reading of _file_system_node.ts (a browser has no variables, so never gets
// here). Failures name the variable and the path, never the content.
import type { SecretMatcher } from "../../core/mod.ts";
import type { ConfigurationEntry } from "./configuration_provider.ts";
import { ConfigurationValidationError } from "../schema/configuration_validation_error.ts";
import {
  pollFile,
  readTextFile,
  resolveConfigPath,
} from "#config/providers/file_system";
import { isFileSource } from "../../internal/settings/file_variable.ts";

// The `_FILE` naming rule is shared with the platform's settings reader.
export {
  FILE_SUFFIX,
  isFileSource,
  withoutFileSuffix,
} from "../../internal/settings/file_variable.ts";

/** The largest secret file read: 64 KiB. */
export const MAX_SECRET_FILE_SIZE = 64 * 1024;

/** One `<NAME>_FILE` variable and the key its file's content sets. */
export interface FileVariable {
  /** The variable, for example `APP_DATABASE__PASSWORD_FILE`. */
  readonly variable: string;
  /** The key the content sets. */
  readonly key: string;
  /** The path the variable holds. */
  readonly path: string;
}

/** The failure line for a variable set both directly and through a file. */
export function bothSetFailure(name: string, fileVariable: string): string {
  return `${name} and ${fileVariable} are both set; set only one: unset ${name} to read the value from the file ${fileVariable} names, or unset ${fileVariable} to use ${name} as it is`;
}

/**
 * The `<NAME>_FILE` files of one environment provider: read with the
 * provider's other entries at each load, and polled (the ones the last load
 * read) when the provider watches.
 */
export class SecretFileSet {
  readonly #watch: boolean;
  readonly #pollInterval: number;
  #read: ReadSecretFile[] = [];

  constructor(options: { watch?: boolean; pollInterval?: number }) {
    this.#watch = options.watch === true;
    this.#pollInterval = options.pollInterval ?? 250;
  }

  /**
   * The provider's `entries` with those of `files` after them; synchronous
   * when there is no file to read and no failure to report.
   */
  load(
    entries: ConfigurationEntry[],
    files: readonly FileVariable[],
    failures: readonly string[],
  ): ConfigurationEntry[] | Promise<ConfigurationEntry[]> {
    if (files.length === 0 && failures.length === 0) {
      this.#read = [];
      return entries;
    }
    const read: ReadSecretFile[] = [];
    return readFileVariables(files, failures, read).then((fromFiles) => {
      this.#read = read;
      return [...entries, ...fromFiles];
    });
  }

  /**
   * Polls the files the last load read, when watching was asked for.
   *
   * @returns A function that stops polling, or `undefined` when not asked
   * to watch or no file was read.
   */
  watch(
    onChange: () => void,
  ): Promise<(() => Promise<void>) | undefined> {
    if (!this.#watch || this.#read.length === 0) {
      return Promise.resolve(undefined);
    }
    return Promise.resolve(
      watchSecretFiles(this.#read, this.#pollInterval, onChange),
    );
  }
}

/** A file read for a `<NAME>_FILE` variable: its absolute path and text. */
export interface ReadSecretFile {
  readonly path: string;
  readonly text: string;
}

/**
 * Reads the files, one trailing newline dropped from each. Every problem
 * (a missing, unreadable or too large file, and the `failures` found
 * before) is collected into one error. `read` receives the files read, for
 * watching.
 *
 * @throws {ConfigurationValidationError} listing every failure.
 */
export async function readFileVariables(
  files: readonly FileVariable[],
  failures: readonly string[],
  read: ReadSecretFile[] = [],
): Promise<ConfigurationEntry[]> {
  const problems = [...failures];
  const entries: ConfigurationEntry[] = [];
  const results = await Promise.all(files.map(readOne));
  for (const result of results) {
    if (typeof result === "string") {
      problems.push(result);
    } else {
      entries.push(result.entry);
      read.push(result.file);
    }
  }
  if (problems.length > 0) throw new ConfigurationValidationError(problems);
  return entries;
}

/**
 * Polls the files last read and calls `onChange` when one changes (a timer
 * that never keeps the process alive). Returns a function that stops.
 */
export function watchSecretFiles(
  files: readonly ReadSecretFile[],
  interval: number,
  onChange: () => void,
): () => Promise<void> {
  const stops = files.map((file) =>
    pollFile(file.path, file.text, interval, onChange, MAX_SECRET_FILE_SIZE)
  );
  return async (): Promise<void> => {
    await Promise.all(stops.map((stop) => stop()));
  };
}

async function readOne(
  file: FileVariable,
): Promise<{ entry: ConfigurationEntry; file: ReadSecretFile } | string> {
  const source = `env ${file.variable}`;
  if (file.path.trim() === "") {
    return `${file.variable} is set but empty; set it to the path of the file that holds the value, or unset it`;
  }
  let text: string | undefined;
  let absolute: string;
  try {
    absolute = await resolveConfigPath(file.path, undefined);
    text = await readTextFile(absolute, source, MAX_SECRET_FILE_SIZE);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/larger than the limit/.test(message)) {
      return `${file.variable} names the file ${file.path}, which is larger than the limit of 64 KiB for a value read from a file`;
    }
    if (/not valid UTF-8/.test(message)) {
      return `${file.variable} names the file ${file.path}, which is not UTF-8 text; save the value as UTF-8`;
    }
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return `${file.variable} names the file ${file.path}, which could not be read (${
      code ?? "unreadable"
    }); check the path and the file's permissions`;
  }
  if (text === undefined) {
    return `${file.variable} names the file ${file.path}, which does not exist; mount the file there or correct the path`;
  }
  return {
    entry: { key: file.key, value: text.replace(/\r?\n$/, ""), source },
    file: { path: absolute, text },
  };
}

/**
 * A matcher that also treats as secret every key whose value came from a
 * `<NAME>_FILE` variable: a value kept in a file is a secret whatever its
 * key's name.
 */
export function withFileSecrets(
  secrets: SecretMatcher,
  leaves: readonly { readonly key: string; readonly source: string }[],
  mask: string,
): SecretMatcher {
  const keys = new Set<string>();
  for (const leaf of leaves) {
    if (isFileSource(leaf.source)) keys.add(leaf.key.toLowerCase());
  }
  if (keys.size === 0) return secrets;
  const fromFile = (key: string): boolean => keys.has(key.toLowerCase());
  return {
    match: (key) => fromFile(key) ? "value" : secrets.match(key),
    isSecret: (key) => fromFile(key) || secrets.isSecret(key),
    maskValue: (key, value) =>
      fromFile(key) && value !== undefined && value !== null
        ? mask
        : secrets.maskValue(key, value),
  };
}
