// Small helpers shared by the caching tests.
import process from "node:process";
import type { IConfiguration } from "../../config/mod.ts";
import type { CacheError } from "../../caching/mod.ts";

/** A controllable clock for CacheManager / MemoryCacheProvider. */
export class FakeClock {
  now: number;
  constructor(start = 1_700_000_000_000) {
    this.now = start;
  }
  readonly read = (): number => this.now;
  advance(ms: number): void {
    this.now += ms;
  }
}

/** A promise with its resolve/reject exposed. */
export function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets queued microtasks and immediate callbacks run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Collects reported errors. */
export function errorLog(): {
  errors: CacheError[];
  onError: (error: CacheError) => void;
} {
  const errors: CacheError[] = [];
  return { errors, onError: (error) => errors.push(error) };
}

/**
 * A minimal IConfiguration over a plain object of colon keys (what a
 * ConfigurationManager fed by REDIS_HOST/PORT/PASSWORD answers); values are
 * strings, as environment variables are.
 */
export function configFrom(values: Record<string, string>): IConfiguration {
  const lower = new Map(
    Object.entries(values).map(([k, v]) => [k.toLowerCase(), v]),
  );
  return {
    hasValue: (key) => lower.has(key.toLowerCase()),
    getValue<T>(key: string, defaultValue?: T): T {
      const value = lower.get(key.toLowerCase());
      if (value !== undefined) return value as T;
      if (defaultValue !== undefined) return defaultValue;
      throw new Error(`Configuration value not found: ${key}`);
    },
  };
}

/**
 * The runtime's active handles (sockets, timers, child processes), by kind.
 * Used to prove that dispose() leaves nothing behind.
 */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  const info = (process as { getActiveResourcesInfo?: () => string[] })
    .getActiveResourcesInfo?.() ?? [];
  for (const kind of info) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** Kinds whose count grew between two snapshots. */
export function grownResources(
  before: Map<string, number>,
  after: Map<string, number>,
): string[] {
  const grown: string[] = [];
  for (const [kind, count] of after) {
    if (count > (before.get(kind) ?? 0)) {
      grown.push(`${kind} +${count - (before.get(kind) ?? 0)}`);
    }
  }
  return grown;
}

/**
 * Fails unless every socket, ref'd timer and child process opened since
 * `baseline` was taken is gone (allowing `timeout` ms for closes in flight).
 */
export async function assertNothingLeft(
  baseline: Map<string, number>,
  timeout = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeout;
  let grown = grownResources(baseline, activeResources());
  while (grown.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    grown = grownResources(baseline, activeResources());
  }
  if (grown.length > 0) {
    throw new Error(`Still active after the tests: ${grown.join(", ")}`);
  }
}
