// One writer per log file, shared by every FileLogProvider of that file.
//
// Reloading the logging setup (LoggerManager.configure or fromConfiguration
// again) builds a new FileLogProvider for the same file while the old one is
// still writing what it queued. Two writers of one file rotate it under each
// other: entries are lost and files grow past maxFileSize. So the providers
// of a file only queue lines; the file's single sink writes them, first all
// of an older provider's queue, then the newer one's (an older provider gets
// no new entries after a reload, so the order of entries is kept), and
// rotates with the limits of the provider whose lines it writes. The file
// is closed when the last provider of it is disposed.
//
// The registry is keyed by the filename as given; two spellings of one path
// (`logs/app.log` and `./logs/app.log`) are not recognized as the same file.
import type { LogFile } from "#logging/providers/node_file";

// Upper bound of one write call, to keep memory and latency in check.
const MAX_CHUNK = 1024 * 1024;

/** The lines one provider has queued, and how they are to be written. */
export interface LineQueue {
  /** Formatted lines; `head` is the first one not yet taken. */
  lines: string[];
  head: number;
  /** Lines of this queue in the write under way. */
  writing: number;
  readonly maxFileSize: number;
  readonly maxFiles: number;
  /** Counts and reports lines that could not be written. */
  lose(count: number, reason: string, cause: unknown): void;
}

const sinks = new Map<string, FileSink>();

/** The sink of a file, created on first use. */
export function sinkFor(path: string): FileSink {
  let sink = sinks.get(path);
  if (sink === undefined) {
    sink = new FileSink(path);
    sinks.set(path, sink);
  }
  return sink;
}

/** The single writer of one file. */
export class FileSink {
  readonly #path: string;
  readonly #queues: LineQueue[] = [];
  #file: LogFile | undefined;
  #draining: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  /** Adds a provider's queue. */
  attach(queue: LineQueue): void {
    this.#queues.push(queue);
  }

  /**
   * Removes a provider's queue (written out or given up on before). When it
   * was the last one, waits for the write under way and closes the file.
   */
  async detach(queue: LineQueue): Promise<void> {
    const index = this.#queues.indexOf(queue);
    if (index >= 0) this.#queues.splice(index, 1);
    if (this.#queues.length > 0) return;
    await this.#draining;
    if (this.#queues.length > 0) return;
    const file = this.#file;
    this.#file = undefined;
    if (file !== undefined) {
      const closing = file.close(true);
      this.#closing = closing.catch(() => {});
      try {
        await closing;
      } finally {
        this.#closing = undefined;
      }
    }
    if (this.#queues.length === 0 && sinks.get(this.#path) === this) {
      sinks.delete(this.#path);
    }
  }

  /** Starts the writer if it is idle; resolves when it runs out of lines. */
  write(): Promise<void> {
    return this.#draining ??= this.#drain();
  }

  // The writer. Runs until every queue is empty; clears #draining itself
  // before returning, so a log() right after sees no writer and starts one.
  async #drain(): Promise<void> {
    let queue: LineQueue | undefined;
    try {
      while ((queue = this.#queues.find((q) => q.head < q.lines.length))) {
        if (this.#file === undefined) {
          if (this.#closing !== undefined) await this.#closing;
          const adapter = await import("#logging/providers/node_file");
          this.#file = await adapter.openLogFile(this.#path, queue.maxFiles);
        }
        await this.#writeSome(this.#file, queue);
      }
    } catch (error) {
      // The chunk being written is lost (or, when the file could not be
      // opened, everything queued): count it, report it, reopen next time.
      const opened = this.#file !== undefined;
      const file = this.#file;
      this.#file = undefined;
      file?.close(false).catch(() => {});
      const reason = error instanceof Error ? error.message : String(error);
      if (opened) {
        if (queue !== undefined && queue.writing > 0) {
          const lost = queue.writing;
          queue.writing = 0;
          queue.lose(lost, reason, error);
        }
      } else {
        for (const item of [...this.#queues]) {
          const lost = item.lines.length - item.head;
          item.lines = [];
          item.head = 0;
          if (lost > 0) item.lose(lost, reason, error);
        }
      }
    } finally {
      this.#draining = undefined;
    }
  }

  // Writes one chunk of the queue's lines, rotating first when the next
  // line would not fit.
  async #writeSome(file: LogFile, queue: LineQueue): Promise<void> {
    const lines = queue.lines;
    const max = queue.maxFileSize;
    const room = max - file.size;
    // Fast path: a UTF-16 code unit takes at most 3 UTF-8 bytes, so lines
    // whose length times 3 fits are taken without measuring each one.
    const sure = Math.min(room, MAX_CHUNK);
    let end = queue.head;
    let chars = 0;
    while (end < lines.length && (chars + lines[end].length) * 3 <= sure) {
      chars += lines[end].length;
      end++;
    }
    if (end === queue.head) {
      // Near the limit: measure exactly.
      const first = file.byteLength(lines[end]);
      if (file.size > 0 && first > room) {
        await file.rotate(queue.maxFiles);
        return;
      }
      // At least one line (an oversized entry alone in a fresh file), then
      // as many as fit in the file and in one chunk.
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
    const chunk = end - queue.head === 1
      ? lines[queue.head]
      : lines.slice(queue.head, end).join("");
    queue.writing = end - queue.head;
    queue.head = end;
    compact(queue);
    await file.write(chunk);
    queue.writing = 0;
  }
}

function compact(queue: LineQueue): void {
  const lines = queue.lines;
  if (queue.head === lines.length) {
    lines.length = 0;
    queue.head = 0;
  } else if (queue.head > 4096 && queue.head * 2 > lines.length) {
    lines.splice(0, queue.head);
    queue.head = 0;
  }
}
