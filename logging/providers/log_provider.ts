import type { DisposeOptions } from "../../core/mod.ts";
import type { HealthCheckResult } from "../../platform/mod.ts";
import type { LogEntry } from "../log_entry.ts";
import type { LogLevel } from "../log_level.ts";

/**
 * A destination for log entries: Kit's extension point. Kit ships
 * {@linkcode ConsoleLogProvider}, {@linkcode FileLogProvider} and
 * {@linkcode RemoteLogProvider}; write your own for anything else and pass it
 * to {@linkcode LoggerManager.configure}.
 *
 * The manager asks `isEnabled(level)` before it calls `log(entry)`. `log` may
 * return before the entry is written (buffering providers do); `flush()` must
 * then resolve only once everything accepted so far is written, and
 * `dispose()` must flush and release what the provider holds. Both receive
 * the `{ signal }` of the manager's `flush(options)` / `dispose(options)`:
 * when it aborts, stop retrying, count what was not delivered as dropped,
 * report it once and resolve. A rejected `log` promise is reported by the
 * manager, never thrown at the caller. A provider with a `checkHealth()`
 * method is included in the manager's `checkHealth()`.
 *
 * Built-in providers mask secret properties (see
 * {@linkcode redactProperties}); a custom provider that writes properties
 * should call it too.
 *
 * @example A provider that keeps entries in memory
 * ```ts
 * import {
 *   type ILogProvider,
 *   type LogEntry,
 *   LoggerManager,
 *   type LogLevel,
 * } from "@vendor/kit/logging";
 *
 * class MemoryLogProvider implements ILogProvider {
 *   readonly entries: LogEntry[] = [];
 *   log(entry: LogEntry): Promise<void> {
 *     this.entries.push(entry);
 *     return Promise.resolve();
 *   }
 *   isEnabled(_level: LogLevel): boolean {
 *     return true;
 *   }
 * }
 *
 * const memory = new MemoryLogProvider();
 * const manager = new LoggerManager().configure({
 *   level: "debug",
 *   providers: [memory],
 * });
 * manager.getLogger("app").info("hello");
 * console.log(memory.entries.length); // 1
 * ```
 */
export interface ILogProvider {
  /**
   * Writes (or accepts for writing) one entry.
   *
   * @param entry The entry; do not change it.
   * @returns A promise that settles when the entry is written or queued.
   */
  log(entry: LogEntry): Promise<void>;
  /**
   * Tells whether this provider wants entries of a level.
   *
   * @param level The level of a prospective entry.
   * @returns `true` when `log` should be called for it.
   */
  isEnabled(level: LogLevel): boolean;
  /**
   * Writes out everything accepted so far.
   *
   * @param options A `signal` (and/or `timeout`) that ends the wait.
   * @returns A promise that settles when nothing is left buffered.
   */
  flush?(options?: DisposeOptions): Promise<void>;
  /**
   * Flushes, then releases files, timers and connections.
   *
   * @param options A `signal` (and/or `timeout`) that ends the wait.
   * @returns A promise that settles when the provider is closed.
   */
  dispose?(options?: DisposeOptions): Promise<void>;
  /**
   * Reports how the provider is doing, for the manager's `checkHealth()`.
   *
   * @param signal Aborts a check that takes too long.
   * @returns The status and a detail without secrets.
   */
  checkHealth?(
    signal?: AbortSignal,
  ): HealthCheckResult | Promise<HealthCheckResult>;
}
