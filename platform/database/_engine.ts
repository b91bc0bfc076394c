// What the database façade needs of an engine (a pg pool, or PGlite in
// process): connections taken from a bounded pool and given back, one-shot
// statements, counters, and closing. Each engine turns its driver's errors
// into Kit's (see _driver_errors.ts) before they reach the façade.

/** A statement's result as the engines return it. */
export interface EngineResult {
  /** The rows, as objects keyed by column name. */
  readonly rows: Record<string, unknown>[];
  /** Rows returned (SELECT) or affected (INSERT, UPDATE, DELETE). */
  readonly rowCount: number;
}

/** One connection taken from an engine's pool. */
export interface EngineConnection {
  /** Runs one statement, with `$1`… parameters. */
  query(text: string, params?: readonly unknown[]): Promise<EngineResult>;
  /** Runs text of one or more statements without parameters. */
  execute(text: string): Promise<void>;
  /**
   * Gives the connection back; `destroy` closes it instead (its state is
   * unknown: a broken link, a statement cut short on the client's side).
   * Calling it again does nothing.
   */
  release(destroy: boolean): void;
  /** Whether the link broke while the connection was held. */
  readonly broken: boolean;
}

/** The pool's counters. */
export interface PoolCounters {
  /** Connections open (idle or in use). */
  readonly total: number;
  /** Open connections nobody holds. */
  readonly idle: number;
  /** Callers waiting for a connection. */
  readonly waiting: number;
}

/** An open engine. */
export interface Engine {
  /** `postgresql` (a server through `pg`) or `pglite` (in process). */
  readonly kind: "postgresql" | "pglite";
  /** The driver's own object: a `pg.Pool`, or a `PGlite`. */
  readonly driver: unknown;
  /** The pool's size. */
  readonly poolSize: number;
  /** Takes a connection, waiting for one at most the pool's timeout. */
  connect(): Promise<EngineConnection>;
  /** Runs one statement on any free connection. */
  query(text: string, params?: readonly unknown[]): Promise<EngineResult>;
  /** The pool's counters now. */
  counters(): PoolCounters;
  /**
   * Closes every connection; those still held are closed too once `signal`
   * aborts.
   */
  end(signal?: AbortSignal): Promise<void>;
}
