// Shared helpers of the logging tests.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IConfiguration } from "../../config/mod.ts";
import type {
  ILogProvider,
  LogConsole,
  LogEntry,
  LogLevel,
} from "../../logging/mod.ts";

/**
 * A small IConfiguration over a plain map of colon keys, matched
 * case-insensitively. The real ConfigurationManager (issue 3) implements the
 * same interface; these tests only need the read side.
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

/** Polls until `check` is true; fails after `timeout` ms. */
export async function waitFor(
  check: () => boolean,
  what: string,
  timeout = 10_000,
): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeout) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A temporary folder, removed by the returned cleanup. */
export async function tempDir(): Promise<
  { dir: string; cleanup: () => Promise<void> }
> {
  const dir = await mkdtemp(join(tmpdir(), "kit-logging-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
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
