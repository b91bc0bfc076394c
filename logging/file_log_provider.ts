import type { LogEntry } from "./log_entry.ts";
import { LogLevel, type LogLevelName } from "./log_level.ts";
import type { ILogProvider } from "./log_provider.ts";
import { LogDeliveryError } from "./log_delivery_error.ts";
import { checkOptions } from "./_options.ts";
import { FILE_RULES } from "./_rules.ts";
import { Redactor } from "./_redactor.ts";
import { JsonFormatter } from "./_format.ts";
import { textFormatter } from "./_text_format.ts";
import { RESOLVED } from "./_resolved.ts";
import type { LogFile } from "./_node_file.ts";

/** Options of {@linkcode FileLogProvider} (spec §2.4). */
export interface FileLogProviderOptions {
  /**
   * Path of the current log file, for example `logs/app.log`. The folder is
   * created when missing; an existing file is appended to.
   */
  filename: string;
  /**
   * Largest size of one file in bytes. Before an entry would make the current
   * file larger, the files rotate. A single entry larger than this gets a file
   * of its own. Default 10 MiB (`10 * 1024 * 1024`).
   */
  maxFileSize?: number;
  /**
   * How many files to keep, the current one included: `app.log` and
   * `app.log.1` (newest) … `app.log.<maxFiles-1>` (oldest). Default 5.
   */
  maxFiles?: number;
  /**
   * `"json"` (default): one JSON object per line (JSON Lines), the shape
   * documented in the README. `"simple"`: the console provider's text line.
   */
  format?: "json" | "simple";
  /** Lowest level this provider writes. Default `debug` (all). */
  level?: LogLevel | LogLevelName;
  /** Keys to mask besides the defaults (see `DEFAULT_REDACTED_KEYS`). */
  redactKeys?: readonly (string | RegExp)[];
  /**
   * Receives a {@linkcode LogDeliveryError} when entries cannot be written
   * (the folder cannot be created, the disk is full…). Default:
   * `console.error`.
   */
  onError?: (error: Error) => void;
}

const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;
const DEFAULT_MAX_FILES = 5;
// Upper bound of one write call, to keep memory and latency in check.
const MAX_CHUNK = 1024 * 1024;

/**
 * Appends entries to a file, one line each (JSON Lines by default), and
 * rotates by size: `app.log` → `app.log.1` … `app.log.<maxFiles-1>`, never
 * more than `maxFiles` files and none over `maxFileSize` unless a single
 * entry is bigger. After a restart it appends to the existing file and
 * continues the rotation from what is on disk.
 *
 * `log()` queues the formatted line and returns at once; a single writer
 * appends queued lines in order with large writes, so concurrent calls never
 * interleave or lose entries. `flush()` resolves when every queued byte is
 * written to the file; `dispose()` flushes and closes it. Like pino's
 * asynchronous destination it does not fsync per write (only on dispose).
 *
 * File access lives in a runtime adapter that is imported on the first
 * write, so importing this class in a browser bundle pulls no `node:` module.
 *
 * @example Usage
 * ```ts
 * import { FileLogProvider, LoggerManager } from "@vendor/kit/logging";
 * import { mkdtemp } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 *
 * const dir = await mkdtemp(join(tmpdir(), "kit-"));
 * const manager = new LoggerManager().configure({
 *   level: "info",
 *   providers: [
 *     new FileLogProvider({
 *       filename: join(dir, "logs", "app.log"),
 *       maxFileSize: 10 * 1024 * 1024,
 *       maxFiles: 5,
 *       format: "json",
 *     }),
 *   ],
 * });
 * manager.getLogger("app").info("Started", { port: 3000 });
 * await manager.dispose();
 * ```
 */
export class FileLogProvider implements ILogProvider {
  readonly #path: string;
  readonly #maxFileSize: number;
  readonly #maxFiles: number;
  readonly #level: LogLevel;
  readonly #format: (entry: LogEntry) => string;
  readonly #onError: (error: Error) => void;

  // Formatted lines waiting for the writer; #head is the first unwritten one.
  #lines: string[] = [];
  #head = 0;
  #file: LogFile | undefined;
  #draining: Promise<void> | undefined;
  #disposed = false;
  #dropped = 0;

  /**
   * Creates the provider. Nothing is opened until the first entry.
   *
   * @param options See {@linkcode FileLogProviderOptions}.
   * @throws {LogProviderOptionError} When `filename` is missing or an option
   * is unknown or invalid.
   */
  constructor(options: FileLogProviderOptions) {
    const checked = checkOptions("FileLogProvider", FILE_RULES, options, [
      "filename",
    ]);
    this.#path = checked.filename as string;
    this.#maxFileSize = (checked.maxFileSize as number | undefined) ??
      DEFAULT_MAX_FILE_SIZE;
    this.#maxFiles = (checked.maxFiles as number | undefined) ??
      DEFAULT_MAX_FILES;
    this.#level = (checked.level as LogLevel | undefined) ?? LogLevel.Debug;
    this.#onError = (checked.onError as ((error: Error) => void) | undefined) ??
      ((error) => globalThis.console.error(error));
    const redactor = new Redactor(
      checked.redactKeys as readonly (string | RegExp)[] | undefined,
    );
    if (checked.format === "simple") {
      const text = textFormatter({
        colorize: false,
        timestamp: true,
        redactor,
      });
      this.#format = (entry) => text(entry) + "\n";
    } else {
      const json = new JsonFormatter(redactor);
      this.#format = (entry) => json.format(entry) + "\n";
    }
  }

  /** The path of the current file. */
  get filename(): string {
    return this.#path;
  }

  /** Entries lost so far (write failures, or logged after `dispose()`). */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Queues the entry for writing.
   *
   * @param entry The entry.
   * @returns A settled promise; use `flush()` to wait for the disk.
   */
  log(entry: LogEntry): Promise<void> {
    if (this.#disposed) {
      this.#lose(1, "logged after dispose()");
      return RESOLVED;
    }
    let line: string;
    try {
      line = this.#format(entry);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#lines.push(line);
    if (this.#draining === undefined) this.#draining = this.#drain();
    return RESOLVED;
  }

  /**
   * Tells whether entries of a level are written.
   *
   * @param level A level.
   * @returns `true` from the provider's `level` up, until disposed.
   */
  isEnabled(level: LogLevel): boolean {
    return !this.#disposed && level >= this.#level;
  }

  /**
   * Waits until every entry queued so far is written to the file.
   *
   * @returns A promise that settles when the queue is empty.
   */
  async flush(): Promise<void> {
    while (this.#draining !== undefined || this.#head < this.#lines.length) {
      await (this.#draining ??= this.#drain());
    }
  }

  /**
   * Flushes, then closes the file (with an fsync). Entries logged afterwards
   * are counted in `dropped` and reported.
   *
   * @returns A promise that settles when the file is closed.
   */
  async dispose(): Promise<void> {
    await this.flush();
    this.#disposed = true;
    const file = this.#file;
    this.#file = undefined;
    if (file !== undefined) {
      try {
        await file.close(true);
      } catch (error) {
        this.#onError(
          error instanceof Error ? error : new Error(String(error)),
        );
      }
    }
  }

  // The single writer. Runs until the queue is empty; clears #draining itself
  // before returning, so a log() right after sees no writer and starts one.
  async #drain(): Promise<void> {
    let chunkCount = 0;
    try {
      let file = this.#file;
      if (file === undefined) {
        const adapter = await import("./_node_file.ts");
        file = await adapter.openLogFile(this.#path, this.#maxFiles);
        this.#file = file;
      }
      const lines = this.#lines;
      const max = this.#maxFileSize;
      while (this.#head < lines.length) {
        const room = max - file.size;
        // Fast path: a UTF-16 code unit takes at most 3 UTF-8 bytes, so lines
        // whose length times 3 fits are taken without measuring each one.
        const sure = Math.min(room, MAX_CHUNK);
        let end = this.#head;
        let chars = 0;
        while (end < lines.length && (chars + lines[end].length) * 3 <= sure) {
          chars += lines[end].length;
          end++;
        }
        if (end === this.#head) {
          // Near the limit: measure exactly.
          const first = file.byteLength(lines[end]);
          if (file.size > 0 && first > room) {
            await file.rotate();
            continue;
          }
          // At least one line (an oversized entry alone in a fresh file),
          // then as many as fit in the file and in one chunk.
          end++;
          let bytes = first;
          const limit = Math.min(Math.max(room, first), MAX_CHUNK);
          while (end < lines.length) {
            const size = file.byteLength(lines[end]);
            if (bytes + size > limit) break;
            bytes += size;
            end++;
          }
        }
        const chunk = end - this.#head === 1
          ? lines[this.#head]
          : lines.slice(this.#head, end).join("");
        chunkCount = end - this.#head;
        this.#head = end;
        this.#compact();
        await file.write(chunk);
        chunkCount = 0;
      }
    } catch (error) {
      // The chunk being written is lost (or, when the file could not be
      // opened, everything queued): count it, report it, reopen next time.
      const lost = this.#file === undefined
        ? this.#lines.length - this.#head
        : chunkCount;
      if (this.#file === undefined) {
        this.#lines = [];
        this.#head = 0;
      }
      const file = this.#file;
      this.#file = undefined;
      file?.close(false).catch(() => {});
      this.#lose(
        lost,
        error instanceof Error ? error.message : String(error),
        error,
      );
    } finally {
      this.#draining = undefined;
    }
  }

  #compact(): void {
    const lines = this.#lines;
    if (this.#head === lines.length) {
      lines.length = 0;
      this.#head = 0;
    } else if (this.#head > 4096 && this.#head * 2 > lines.length) {
      lines.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #lose(count: number, reason: string, cause?: unknown): void {
    this.#dropped += count;
    const what = count === 1 ? "1 entry" : `${count} entries`;
    const error = new LogDeliveryError(
      "FileLogProvider",
      reason === "logged after dispose()"
        ? `FileLogProvider: ${what} dropped: logged after dispose()`
        : `FileLogProvider: ${what} lost writing ${this.#path}: ${reason}`,
      count,
      undefined,
      cause === undefined ? undefined : { cause },
    );
    try {
      this.#onError(error);
    } catch {
      // A failing error handler must not break logging.
    }
  }
}
