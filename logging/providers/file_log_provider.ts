import { deadlineSignal, type DisposeOptions } from "../../core/mod.ts";
import type { LogEntry } from "../log_entry.ts";
import { LogLevel, type LogLevelName } from "../log_level.ts";
import type { ILogProvider } from "./log_provider.ts";
import { LogDeliveryError } from "./log_delivery_error.ts";
import { checkOptions } from "./_options.ts";
import { FILE_RULES } from "./_rules.ts";
import { Redactor } from "../_redactor.ts";
import { JsonFormatter } from "../_format.ts";
import { textFormatter } from "../_text_format.ts";
import { RESOLVED } from "./_resolved.ts";
import { type FileSink, type LineQueue, sinkFor } from "./_file_sink.ts";
import { countRecords } from "../_telemetry.ts";

/** Options of {@linkcode FileLogProvider}. */
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

// Resolves when the signal aborts (never without one).
function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

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
 * Every provider of the same `filename` in the process shares that one
 * writer. When the logging setup is reloaded, the old provider's queued
 * lines are written first and the new provider continues in the same open
 * file, so a reload neither loses entries nor lets two writers rotate the
 * same files; the file is closed when its last provider is disposed.
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
  readonly #level: LogLevel;
  readonly #format: (entry: LogEntry) => string;
  readonly #onError: (error: Error) => void;
  readonly #queue: LineQueue;
  // The file's shared writer, joined on the first entry.
  #sink: FileSink | undefined;
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
    this.#queue = {
      lines: [],
      head: 0,
      writing: 0,
      maxFileSize: (checked.maxFileSize as number | undefined) ??
        DEFAULT_MAX_FILE_SIZE,
      maxFiles: (checked.maxFiles as number | undefined) ?? DEFAULT_MAX_FILES,
      lose: (count, reason, cause) => this.#lose(count, reason, cause),
    };
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
    this.#queue.lines.push(line);
    let sink = this.#sink;
    if (sink === undefined) {
      sink = this.#sink = sinkFor(this.#path);
      sink.attach(this.#queue);
    }
    sink.write();
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
   * @param options `signal` and/or `timeout` (ms): when either fires, the
   * call stops waiting and resolves; the queued entries are still written.
   * @returns A promise that settles when the queue is empty.
   * @throws {RangeError} When `timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { FileLogProvider } from "@vendor/kit/logging";
   *
   * const file = new FileLogProvider({ filename: "logs/app.log" });
   * await file.flush({ timeout: 1_000 });
   * await file.dispose();
   * ```
   */
  async flush(options?: DisposeOptions): Promise<void> {
    await this.#written(deadlineSignal(options));
  }

  /**
   * Flushes, then closes the file (with an fsync) unless another provider
   * of the same file still writes to it. Entries logged afterwards are
   * counted in `dropped` and reported.
   *
   * @param options `signal` and/or `timeout` (ms): when either fires, the
   * entries not yet written are dropped, counted and reported once, and the
   * call resolves (the file is closed after the write under way).
   * @returns A promise that settles when the file is closed.
   * @throws {RangeError} When `timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { FileLogProvider } from "@vendor/kit/logging";
   *
   * const file = new FileLogProvider({ filename: "logs/app.log" });
   * await file.dispose({ timeout: 1_000 });
   * ```
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    if (this.#disposed) return;
    const signal = deadlineSignal(options);
    await this.#written(signal);
    this.#disposed = true;
    const queue = this.#queue;
    const left = queue.lines.length - queue.head;
    if (left > 0) {
      queue.lines = [];
      queue.head = 0;
      this.#lose(
        left,
        `dispose() stopped (${
          signal?.reason instanceof Error
            ? signal.reason.message
            : String(signal?.reason)
        }) before they were written`,
      );
    }
    const sink = this.#sink;
    if (sink === undefined) return;
    try {
      await Promise.race([sink.detach(queue), aborted(signal)]);
    } catch (error) {
      this.#onError(
        error instanceof Error ? error : new Error(String(error)),
      );
    }
  }

  /**
   * Same as {@linkcode FileLogProvider.prototype.dispose}, for
   * `await using`.
   *
   * @returns A promise that settles when the file is closed.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  async #written(signal: AbortSignal | undefined): Promise<void> {
    const queue = this.#queue;
    const sink = this.#sink;
    if (sink === undefined) return;
    const stop = aborted(signal);
    while (
      (queue.head < queue.lines.length || queue.writing > 0) &&
      !signal?.aborted
    ) {
      await Promise.race([sink.write(), stop]);
    }
  }

  #lose(count: number, reason: string, cause?: unknown): void {
    this.#dropped += count;
    countRecords("file", "dropped", count);
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
