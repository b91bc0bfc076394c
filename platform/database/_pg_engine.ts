// The PostgreSQL engine: a node-postgres (`pg`) pool, loaded on first use so
// that importing the entry point loads no driver. The pool is sized by
// database:poolSize; database:timeout bounds the wait for a connection and,
// sent as the session's statement_timeout, each statement on the server
// (which cancels it and keeps the connection usable). A client-side limit a
// little past it catches a server that stops answering; the connection it
// cut short is closed, never reused.
//
// An idle connection the server drops (a restart, a failover,
// pg_terminate_backend) emits an error: without a listener it would end the
// process. The pool's listener and one on each connection while it is held
// report it instead, and a held connection that broke is closed when it is
// given back. A new connection can also fail between the two: a server that
// shuts down as it opens sends the end of its start-up and its FATAL in one
// write, which pg reads in one go after pg-pool took its own listener off
// and before the promise of pool.connect() lets Kit put one on. So every
// connection gets a listener of Kit's from its start to its end, which
// notes that it broke.
import type {
  Engine,
  EngineConnection,
  EngineResult,
  PoolCounters,
} from "./_engine.ts";
import type { ConnectionTarget } from "./_connection_target.ts";
import {
  type ErrorContext,
  spoilsConnection,
  translateError,
} from "./_driver_errors.ts";
import { DatabasePoolTimeoutError } from "./database_pool_timeout_error.ts";
import { DatabaseQueryError } from "./database_query_error.ts";
import { DatabaseUnavailableError } from "./database_unavailable_error.ts";
import { loadDriver } from "./_load_driver.ts";
import { firstLine } from "./_statement.ts";

/** What the engine uses of a pg result. */
interface PgResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** What the engine uses of a pg client checked out of the pool. */
interface PgClient {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  release(destroy?: boolean | Error): void;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}

/** What the engine uses of a pg pool. */
interface PgPool {
  connect(): Promise<PgClient>;
  query(text: string, values?: unknown[]): Promise<PgResult>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "connect", listener: (client: PgClient) => void): unknown;
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
}

/** The settings of a pg engine. */
export interface PgEngineSettings {
  readonly poolSize: number;
  readonly timeout: number;
  readonly idleTimeout: number;
  readonly applicationName: string | undefined;
  readonly includeErrorDetail: boolean;
  /** Options passed to `pg.Pool` as they are, over Kit's. */
  readonly driverOptions: Readonly<Record<string, unknown>> | undefined;
  /** Told of each error of a connection nobody was using. */
  readonly onLinkError: (error: unknown) => void;
  /** Told once when the server refuses a setting Kit sends. */
  readonly onNotice: (message: string) => void;
}

const REFUSED_TIMEOUT = /unsupported startup parameter: statement_timeout/i;

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : String(error);
}

// How much longer than database:timeout the client waits for an answer
// before it gives up on the server itself.
const CLIENT_GRACE = 5_000;

function rowCountOf(result: PgResult): number {
  return result.rowCount ?? result.rows.length;
}

/** The connections that broke, as their lifelong listener noted. */
const brokenClients = new WeakSet<PgClient>();

class PgConnection implements EngineConnection {
  readonly #client: PgClient;
  readonly #context: (text: string) => ErrorContext;
  readonly #onError: (error: Error) => void;
  #broken = false;
  #released = false;

  constructor(
    client: PgClient,
    context: (text: string) => ErrorContext,
    onLinkError: (error: unknown) => void,
  ) {
    this.#client = client;
    this.#context = context;
    // Broken before it was handed over (see the top of this file).
    this.#broken = brokenClients.has(client);
    this.#onError = (error) => {
      this.#broken = true;
      onLinkError(error);
    };
    client.on("error", this.#onError);
  }

  get broken(): boolean {
    return this.#broken;
  }

  async query(
    text: string,
    params?: readonly unknown[],
  ): Promise<EngineResult> {
    try {
      const result = await this.#client.query(
        text,
        params === undefined ? undefined : [...params],
      );
      return { rows: result.rows, rowCount: rowCountOf(result) };
    } catch (error) {
      if (spoilsConnection(error)) this.#broken = true;
      throw translateError(error, this.#context(text));
    }
  }

  async execute(text: string): Promise<void> {
    // Several statements in one text (the simple protocol): pg answers an
    // array of results, of which nothing is kept.
    try {
      await this.#client.query(text);
    } catch (error) {
      if (spoilsConnection(error)) this.#broken = true;
      throw translateError(error, this.#context(text));
    }
  }

  release(destroy: boolean): void {
    if (this.#released) return;
    this.#released = true;
    if (destroy || this.#broken) {
      // The listener stays: a closing link may still report an error.
      this.#client.release(true);
      return;
    }
    this.#client.removeListener("error", this.#onError);
    this.#client.release();
  }
}

/**
 * Opens a pg pool for `target` (no connection is made yet).
 *
 * @throws {DependencyLoadError} When `pg` is not installed.
 */
export async function openPgEngine(
  target: Extract<ConnectionTarget, { kind: "postgresql" }>,
  settings: PgEngineSettings,
): Promise<Engine> {
  const pg = await loadDriver<PgModule>("pg");
  // statement_timeout goes with each connection's start-up, so the server
  // cancels a statement at database:timeout and the connection stays
  // usable. A pooler in transaction mode (PgBouncer) refuses start-up
  // parameters it does not know: the pool is then made again without it,
  // and the client gives up on a statement at database:timeout instead.
  let serverTimeout = true;
  const makePool = (): PgPool => {
    const made = new pg.Pool({
      connectionString: target.connectionString,
      max: settings.poolSize,
      connectionTimeoutMillis: settings.timeout,
      idleTimeoutMillis: settings.idleTimeout,
      // Idle connections never keep the process alive.
      allowExitOnIdle: true,
      ...(serverTimeout ? { statement_timeout: settings.timeout } : {}),
      query_timeout: settings.timeout + (serverTimeout ? CLIENT_GRACE : 0),
      keepAlive: true,
      ...(settings.applicationName === undefined
        ? {}
        : { application_name: settings.applicationName }),
      ...settings.driverOptions,
    });
    made.on("error", (error) => settings.onLinkError(error));
    // Emitted as a new connection is handed out, before pg-pool takes its
    // own listener off it.
    made.on("connect", (client) => {
      client.on("error", () => brokenClients.add(client));
    });
    return made;
  };
  let pool = makePool();
  const context = (text: string): ErrorContext => ({
    statement: firstLine(text),
    address: target.address,
    timeout: settings.timeout,
    includeDetail: settings.includeErrorDetail,
  });
  const counters = (): PoolCounters => ({
    total: pool.totalCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
  });
  // pg says "timeout exceeded when trying to connect" both when no
  // connection was free and when connecting took too long: the pool's
  // state tells which.
  const connectError = (error: unknown, full: boolean): Error => {
    const message = (error as { message?: unknown } | null)?.message;
    if (
      full && typeof message === "string" &&
      message.startsWith("timeout exceeded when trying to connect")
    ) {
      const now = counters();
      return new DatabasePoolTimeoutError(
        settings.timeout,
        settings.poolSize,
        now.total - now.idle,
        now.waiting,
      );
    }
    const translated = translateError(error, context("connect"));
    return translated instanceof DatabaseUnavailableError
      ? translated
      : new DatabaseUnavailableError(
        target.address,
        translated instanceof DatabaseQueryError
          ? `${translated.reason}${
            translated.sqlState === undefined ? "" : ` (${translated.sqlState})`
          }`
          : translated.message,
      );
  };
  const isFull = (): boolean =>
    pool.idleCount === 0 && pool.totalCount >= settings.poolSize;
  const attempt = async (): Promise<PgConnection> => {
    const full = isFull();
    const attempted = pool;
    let client: PgClient;
    try {
      client = await attempted.connect();
    } catch (error) {
      if (!REFUSED_TIMEOUT.test(messageOf(error))) {
        throw connectError(error, full || isFull());
      }
      // Connections asked for at once all meet the refusal: the first
      // makes the pool again, the others use it.
      if (attempted !== pool) return await attempt();
      if (serverTimeout) {
        serverTimeout = false;
        const refused = pool;
        pool = makePool();
        refused.end().catch(() => {});
        settings.onNotice(
          `The server at ${target.address} (a pooler such as PgBouncer?) refused statement_timeout at connection start-up: statements are now given up by the client after database:timeout, and their connection closed. To have the server cancel them instead, set it on the role: ALTER ROLE <user> SET statement_timeout = '${settings.timeout}ms'`,
        );
        return await attempt();
      }
      throw connectError(error, full || isFull());
    }
    return new PgConnection(client, context, settings.onLinkError);
  };
  // The first connection is made alone: should the server refuse
  // statement_timeout, the pool is made again before others queue on it.
  let first: Promise<unknown> | undefined;
  const connect = async (): Promise<PgConnection> => {
    if (first === undefined) {
      const made = attempt();
      first = made.catch(() => {});
      return await made;
    }
    await first;
    return await attempt();
  };
  return {
    kind: "postgresql",
    get driver(): unknown {
      return pool;
    },
    poolSize: settings.poolSize,
    connect,
    async query(
      text: string,
      params?: readonly unknown[],
    ): Promise<EngineResult> {
      // One statement on a connection of its own, so that a connection cut
      // short or broken is closed rather than given back.
      const connection = await connect();
      let destroy = false;
      try {
        return await connection.query(text, params);
      } catch (error) {
        destroy = connection.broken;
        throw error;
      } finally {
        connection.release(destroy);
      }
    },
    counters,
    async end(signal?: AbortSignal): Promise<void> {
      const ended = pool.end();
      if (signal === undefined) return await ended;
      await new Promise<void>((resolve, reject) => {
        const stop = (): void => resolve();
        if (signal.aborted) return resolve();
        signal.addEventListener("abort", stop, { once: true });
        ended.then(resolve, reject).finally(() =>
          signal.removeEventListener("abort", stop)
        );
      });
    },
  };
}
