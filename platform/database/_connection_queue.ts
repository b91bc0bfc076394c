// One connection shared in turn: the embedded engine's only connection, and
// the test kit's connection inside its rolled-back transaction. Callers
// take it first come, first served; one that waits longer than the timeout
// gets the error a full pool gives.
import { unrefTimer } from "../../internal/unref_timer.ts";
import { DatabasePoolTimeoutError } from "./database_pool_timeout_error.ts";

/** A queue for the one connection: first come, first served. */
export class ConnectionQueue {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  get held(): boolean {
    return this.#held;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Resolves once the connection is ours.
   *
   * @throws {DatabasePoolTimeoutError} After `timeout` ms of waiting.
   */
  take(timeout: number): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const turn = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = unrefTimer(setTimeout(() => {
        const index = this.#waiting.indexOf(turn);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(new DatabasePoolTimeoutError(timeout, 1, 1, this.waiting));
      }, timeout));
      this.#waiting.push(turn);
    });
  }

  /** Hands the connection to the next caller, or frees it. */
  give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#held = false;
    else next();
  }
}
