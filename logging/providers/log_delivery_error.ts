import { KitError } from "../../core/mod.ts";

/**
 * Reported (never thrown at the logging call) when a provider could not
 * deliver entries: a file write failed, a remote endpoint refused a batch,
 * retries ran out, or the remote buffer overflowed. It reaches the provider's
 * `onError` option, by default `console.error`. `dropped` counts the entries
 * lost in this event; every provider also keeps a running total in its own
 * `dropped` property.
 *
 * Messages:
 * - `FileLogProvider: <n> entries lost writing <path>: <reason>`
 * - `RemoteLogProvider: <endpoint> answered <status>; <n> entries dropped (not retried)`
 * - `RemoteLogProvider: <n> entries dropped after <k> attempts: <reason>`
 * - `RemoteLogProvider: <n> entries dropped: <endpoint> is unreachable (a batch used up its retries and the next attempt failed too)`
 * - `RemoteLogProvider: <n> entries dropped: flush() stopped (<reason>) before <endpoint> took them`
 *   (or `dispose()`: the `signal` or `timeout` given to it fired)
 * - `RemoteLogProvider: buffer full (maxBufferSize <m>); oldest entries are being dropped`
 * - `FileLogProvider: <n> entries lost writing <path>: dispose() stopped (<reason>) before they were written`
 * - `<Provider>: 1 entry dropped: logged after dispose()`
 *
 * (`<n> entries` reads `1 entry` for one.)
 *
 * @example Usage
 * ```ts
 * import { LogDeliveryError, RemoteLogProvider } from "@vendor/kit/logging";
 *
 * const provider = new RemoteLogProvider({
 *   endpoint: "https://logs.example.com/ingest",
 *   onError: (error) => {
 *     if (error instanceof LogDeliveryError) console.warn(error.dropped, error.status);
 *   },
 * });
 * await provider.dispose();
 * ```
 */
export class LogDeliveryError extends KitError {
  /** What went wrong, as a stable string: `log_delivery`. */
  readonly code = "log_delivery";

  /** The provider class, for example `RemoteLogProvider`. */
  readonly provider: string;
  /** Entries lost in this event (0 for a buffer-full warning). */
  readonly dropped: number;
  /** The HTTP status, when a remote endpoint answered. */
  readonly status: number | undefined;

  /**
   * Creates the error.
   *
   * @param provider The provider class name.
   * @param message The message.
   * @param dropped Entries lost in this event.
   * @param status The HTTP status, if any.
   * @param options Standard error options (`cause`).
   */
  constructor(
    provider: string,
    message: string,
    dropped: number,
    status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "LogDeliveryError";
    this.provider = provider;
    this.dropped = dropped;
    this.status = status;
  }
}
