// Shared helpers of the logging tests.
import assert from "node:assert/strict";
import process from "node:process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { moduleUrl } from "../_support/module_url.ts";
import {
  type ProcessResult,
  runProcess,
  scriptArgs,
} from "../_support/child_script.ts";
import type { IConfiguration } from "../../config/mod.ts";
import type {
  ILogProvider,
  LogConsole,
  LogEntry,
  LogLevel,
} from "../../logging/mod.ts";

/**
 * A small IConfiguration over a plain map of colon keys, matched
 * case-insensitively. The real ConfigurationManager implements the same
 * interface; these tests only need the read side, and keeping logging's
 * tests free of the configuration module shows that logging needs no more.
 */
export function memoryConfig(values: Record<string, unknown>): IConfiguration {
  const map = new Map<string, unknown>();
  for (const [key, value] of Object.entries(values)) {
    map.set(key.toLowerCase(), value);
  }
  return {
    hasValue: (key) => map.has(key.toLowerCase()),
    getValue<T = unknown>(key: string, defaultValue?: T): T {
      const lower = key.toLowerCase();
      if (map.has(lower)) return map.get(lower) as T;
      if (arguments.length >= 2) return defaultValue as T;
      throw new Error(`Configuration value not found: ${key}`);
    },
  };
}

export { waitFor } from "../_support/wait_for.ts";

/** A temporary folder, removed by the returned cleanup. */
export async function tempDir(): Promise<
  { dir: string; cleanup: () => Promise<void> }
> {
  const dir = await mkdtemp(join(tmpdir(), "kit-logging-"));
  // maxRetries: a provider disposed with a signal that already fired returns
  // at once, while its file may still be being opened (and is then closed);
  // rm retries on ENOTEMPTY until that settles.
  return {
    dir,
    cleanup: () =>
      rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }),
  };
}

/** One captured console call. */
export interface ConsoleCall {
  method: "debug" | "info" | "warn" | "error";
  text: string;
}

/** A LogConsole that records what it is given. */
export function captureConsole(): LogConsole & { calls: ConsoleCall[] } {
  const calls: ConsoleCall[] = [];
  const record = (method: ConsoleCall["method"]) => (...data: unknown[]) => {
    calls.push({ method, text: data.map(String).join(" ") });
  };
  return {
    calls,
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  };
}

/** A provider that keeps entries in memory and counts calls. */
export class MemoryLogProvider implements ILogProvider {
  readonly entries: LogEntry[] = [];
  enabledCalls = 0;
  flushes = 0;
  disposals = 0;
  constructor(readonly minimum: LogLevel = 0) {}
  log(entry: LogEntry): Promise<void> {
    this.entries.push(entry);
    return Promise.resolve();
  }
  isEnabled(level: LogLevel): boolean {
    this.enabledCalls++;
    return level >= this.minimum;
  }
  flush(): Promise<void> {
    this.flushes++;
    return Promise.resolve();
  }
  dispose(): Promise<void> {
    this.disposals++;
    return Promise.resolve();
  }
}

/** How a child process ended. */
export type ChildResult = ProcessResult;

/**
 * Runs `source` (an ES module importing the logging module as `LOGGING`) in
 * a child process of this runtime and reports how it ended. Under Deno the
 * child runs the sources; in the npm passes (Node.js, Bun), the built
 * package (moduleUrl).
 */
export async function runChild(source: string): Promise<ChildResult> {
  const { dir, cleanup } = await tempDir();
  try {
    const script = join(dir, "child.mjs");
    await writeFile(
      script,
      source.replace("LOGGING", JSON.stringify(moduleUrl("logging"))),
    );
    return await runProcess(process.execPath, scriptArgs(script));
  } finally {
    await cleanup();
  }
}

// An error whose message quotes hostile input (as a JSON.parse error quotes
// a request body): cursor-up, erase-line and carriage return, an 8-bit CSI,
// a line break that forges a second entry, an OSC title in the cause, and a
// cause that is not an Error.
export function hostileError(): Error {
  const body = '{"a":1}\x1b[1A\x1b[2K\rINFO [orders] forged\u009b2J';
  return new SyntaxError(
    `Unexpected token in JSON: ${body}\nINFO [orders] second forged line`,
    {
      cause: new Error("inner \x1b]0;title\x07", {
        cause: "plain cause \x1b[31m\u009b\u007f",
      }),
    },
  );
}

/**
 * Checks that a "simple" entry with {@linkcode hostileError} carries no
 * control character but the line breaks of the stack, and that every line
 * after the first is an indented stack line.
 */
export function assertEscapedStack(text: string): void {
  // deno-lint-ignore no-control-regex
  const control = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/.exec(text);
  assert.equal(
    control,
    null,
    `a raw control character in ${JSON.stringify(text)}`,
  );
  assert.ok(
    text.includes(
      "\\x1b[1A\\x1b[2K\\rINFO [orders] forged\\x9b2J\\nINFO [orders] second forged line",
    ),
    text,
  );
  assert.ok(text.includes("inner \\x1b]0;title\\x07"), text);
  const [, ...rest] = text.split("\n");
  assert.ok(rest.length > 2, "the stack follows on its own lines");
  for (const line of rest) {
    assert.match(line, /^ {4}(SyntaxError: |Caused by: |\s*at )/, line);
  }
}
