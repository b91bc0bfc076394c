// The database's up/down state as its log tells it: the first failure to
// reach the server is one warning, the recovery one info line with how long
// it took, and the idle connections a restart drops at once are one warning
// for them all (the pool replaces them on the next statement).
import type { ApplicationLogger } from "../mod.ts";
import { writeLine } from "./_observer.ts";
import type { DatabaseUnavailableError } from "./database_unavailable_error.ts";

/** The up/down state of one database, and its lines. */
export class OutageLog {
  readonly #address: string;
  readonly #logger: ApplicationLogger | undefined;
  #downSince: number | undefined;
  #linkReported = false;

  constructor(address: string, logger: ApplicationLogger | undefined) {
    this.#address = address;
    this.#logger = logger;
  }

  /** A statement or connection reached the server. */
  reached(): void {
    this.#linkReported = false;
    const since = this.#downSince;
    if (since === undefined) return;
    this.#downSince = undefined;
    writeLine(
      this.#logger,
      "info",
      `The database at ${this.#address} is reachable again after ${
        Math.round(performance.now() - since)
      } ms`,
      {},
    );
  }

  /** The server could not be reached. */
  unreachable(error: DatabaseUnavailableError): void {
    if (this.#downSince !== undefined) return;
    this.#downSince = performance.now();
    writeLine(this.#logger, "warning", error.message, {});
  }

  /** A connection nobody was using broke (the server dropped it). */
  linkError(error: unknown): void {
    if (this.#linkReported || this.#downSince !== undefined) return;
    this.#linkReported = true;
    const reason = error instanceof Error ? error.message : String(error);
    writeLine(
      this.#logger,
      "warning",
      `A connection to the database at ${this.#address} was closed by the server (${reason}); the pool replaces it on the next statement`,
      {},
    );
  }
}
