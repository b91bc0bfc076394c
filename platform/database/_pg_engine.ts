// The PostgreSQL engine: a node-postgres (`pg`) pool, loaded on first use so
// that importing the entry point loads no driver. The pool is sized by
// database:poolSize; database:timeout bounds the wait for a connection and,
// sent as the session's statement_timeout, each statement on the server
// (which cancels it and keeps the connection usable). A client-side limit a
// little past it catches a server that stops answering: the statements in
// flight are looked at once a second (one timer per engine, not one per
// statement, which cost a tenth of a statement's own work), and the
// connection of one past the limit is ended, never reused.
//
// A connection the server drops (a restart, a failover,
// pg_terminate_backend) emits an error: without a listener it would end the
// process. Every connection gets a listener of Kit's from its start to its
// end, which notes that it broke and reports it: a connection can fail as
// it opens (a server that shuts down sends the end of its start-up and its
// FATAL in one write, which pg reads after pg-pool took its own listener off
// and before pool.connect() resolves), while it is idle, or while it is
// held. A held connection that broke is closed when it is given back.
import type {
  Engine,
  EngineConnection,
  EngineResult,
  PoolCounters,
} from "./_engine.ts";
import type { ConnectionTarget } from "./_connection_target.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import {
  type ErrorContext,
  spoilsConnection,
  translateError,
} from "./_driver_errors.ts";
import { DatabasePoolTimeoutError } from "./database_pool_timeout_error.ts";
import { DatabaseTimeoutError } from "./database_timeout_error.ts";
import { DatabaseQueryError } from "./database_query_error.ts";
import { DatabaseUnavailableError } from "./database_unavailable_error.ts";
import { loadDriver } from "./_load_driver.ts";
import { firstLine } from "./_statement.ts";
import { closedError } from "./_runner.ts";

/** What the engine uses of a pg result. */
interface PgResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** What the engine uses of a pg client checked out of the pool. */
interface PgClient {
  query(
    text: string,
    values: unknown[] | undefined,
    callback: (error: Error | null, result: PgResult | PgResult[]) => void,
  ): void;
  release(destroy?: boolean | Error): void;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** What the engine uses of a pg pool. */
interface PgPool {
  connect(
    callback: (error: Error | undefined, client: PgClient) => void,
  ): void;
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
// How often the statements in flight are looked at.
const SWEEP_INTERVAL = 1_000;

/** A statement in flight, for the client-side limit. */
interface InFlight {
  readonly started: number;
  readonly client: PgClient;
  /** Set when the limit ended its connection. */
  timedOut: boolean;
  /** Set when dispose's deadline ended its connection. */
  disposed?: boolean;
}

/**
 * Kit's result of pg's: a text of several statements (a migration's, run
 * with the simple protocol) answers an array, of which the last counts.
 */
function resultOf(answered: PgResult | PgResult[]): EngineResult {
  const result = Array.isArray(answered)
    ? answered[answered.length - 1] ?? { rows: [], rowCount: 0 }
    : answered;
  return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length };
}

// pg's callback forms: its promise forms wrap each call in promises of
// their own, which cost about a third of a statement's work on the client.

/** The connections that broke, as their lifelong listener noted. */
const brokenClients = new WeakSet<PgClient>();

/** Kit's answer to one statement: its error, or pg's result. */
type Answer = (
  error: Error | undefined,
  spoiled: boolean,
  result: PgResult | PgResult[] | undefined,
) => void;

/**
 * Runs one statement on `client`, watched by the client-side limit, and
 * answers Kit's error (and whether the connection is spoiled) or the
 * result.
 */
function runWatched(
  client: PgClient,
  text: string,
  values: unknown[] | undefined,
  inFlight: Set<InFlight>,
  context: (text: string) => ErrorContext,
  answer: Answer,
): void {
  const statement: InFlight = {
    started: performance.now(),
    client,
    timedOut: false,
  };
  inFlight.add(statement);
  // pg calls back twice for a value it cannot serialise (its error from
  // prepare, then the result at ReadyForQuery): only the first counts, or
  // db.query would give its connection back twice.
  let answered = false;
  client.query(text, values, (error, result) => {
    if (answered) return;
    answered = true;
    inFlight.delete(statement);
    if (error === null || error === undefined) {
      answer(undefined, false, result);
      return;
    }
    const facts = context(text);
    if (statement.disposed) {
      answer(
        closedError(
          `The database was disposed while this statement ran (${facts.statement}): its connection was closed at the deadline`,
        ),
        true,
        undefined,
      );
      return;
    }
    if (statement.timedOut) {
      answer(
        new DatabaseTimeoutError(facts.statement, facts.timeout),
        true,
        undefined,
      );
      return;
    }
    answer(translateError(error, facts), spoilsConnection(error), undefined);
  });
}

class PgConnection implements EngineConnection {
  readonly #client: PgClient;
  readonly #context: (text: string) => ErrorContext;
  readonly #inFlight: Set<InFlight>;
  #broken = false;
  #released = false;
  /** The statement that ran past the limit, once the limit closed the link. */
  #timedOut: string | undefined;

  constructor(
    client: PgClient,
    context: (text: string) => ErrorContext,
    inFlight: Set<InFlight>,
  ) {
    this.#client = client;
    this.#context = context;
    this.#inFlight = inFlight;
  }

  get broken(): boolean {
    return this.#broken || brokenClients.has(this.#client);
  }

  #run(text: string, values: unknown[] | undefined): Promise<EngineResult> {
    // Its connection was closed when a statement ran past the limit: the
    // next (the transaction's ROLLBACK, the session's next query) says so,
    // rather than reading as the database being unreachable.
    if (this.#timedOut !== undefined) {
      return Promise.reject(
        closedError(
          `The connection was closed when a statement ran past database:timeout (${this.#timedOut}); its transaction, if any, was rolled back by the server: run the work again in a new session or transaction`,
        ),
      );
    }
    return new Promise((resolve, reject) =>
      runWatched(
        this.#client,
        text,
        values,
        this.#inFlight,
        this.#context,
        (error, spoiled, result) => {
          if (error === undefined) {
            resolve(resultOf(result!));
            return;
          }
          if (spoiled) this.#broken = true;
          if (error instanceof DatabaseTimeoutError && spoiled) {
            this.#timedOut = firstLine(text);
          }
          reject(error);
        },
      )
    );
  }

  query(
    text: string,
    params?: readonly unknown[],
  ): Promise<EngineResult> {
    return this.#run(text, params as unknown[] | undefined);
  }

  async execute(text: string): Promise<void> {
    // Several statements in one text (the simple protocol): pg answers an
    // array of results, of which nothing is kept.
    await this.#run(text, undefined);
  }

  release(destroy: boolean): void {
    if (this.#released) return;
    this.#released = true;
    // The lifelong listener stays on: a closing link may still report.
    this.#client.release(destroy || this.broken ? true : undefined);
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
      keepAlive: true,
      ...(settings.applicationName === undefined
        ? {}
        : { application_name: settings.applicationName }),
      ...settings.driverOptions,
    });
    // pg-pool passes on the error of an idle connection, and throws when
    // nobody listens: the connection's own listener below reports it.
    made.on("error", () => {});
    // Emitted as a new connection is made, before pg-pool hands it out.
    made.on("connect", (client) => {
      client.on("error", (error) => {
        brokenClients.add(client);
        settings.onLinkError(error);
      });
    });
    return made;
  };
  // The client-side limit: a statement running longer than it is past the
  // server's own (or, with no server limit, at database:timeout).
  const inFlight = new Set<InFlight>();
  const sweeper = unrefTimer(setInterval(() => {
    if (inFlight.size === 0) return;
    const limit = settings.timeout + (serverTimeout ? CLIENT_GRACE : 0);
    const now = performance.now();
    for (const statement of inFlight) {
      if (statement.timedOut || now - statement.started < limit) continue;
      statement.timedOut = true;
      // Ending the connection fails its statement; it is then closed.
      statement.client.end().catch(() => {});
    }
  }, SWEEP_INTERVAL));
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
  // A connection, or Kit's error; the refusal of statement_timeout makes
  // the pool again (see above).
  const refused = (
    error: unknown,
    attempted: PgPool,
    full: boolean,
  ): Promise<PgConnection> => {
    if (!REFUSED_TIMEOUT.test(messageOf(error))) {
      throw connectError(error, full || isFull());
    }
    // Connections asked for at once all meet the refusal: the first
    // makes the pool again, the others use it.
    if (attempted !== pool) return attempt();
    if (serverTimeout) {
      serverTimeout = false;
      pool = makePool();
      attempted.end().catch(() => {});
      settings.onNotice(
        `The server at ${target.address} (a pooler such as PgBouncer?) refused statement_timeout at connection start-up: statements are now given up by the client after database:timeout, and their connection closed. To have the server cancel them instead, set it on the role: ALTER ROLE <user> SET statement_timeout = '${settings.timeout}ms'`,
      );
      return attempt();
    }
    throw connectError(error, full || isFull());
  };
  const attempt = (): Promise<PgConnection> => {
    const full = isFull();
    const attempted = pool;
    return new Promise((resolve, reject) =>
      attempted.connect((error, client) => {
        if (error === undefined || error === null) {
          resolve(new PgConnection(client, context, inFlight));
          return;
        }
        try {
          resolve(refused(error, attempted, full));
        } catch (translated) {
          reject(translated);
        }
      })
    );
  };
  // One statement on a connection taken the slow way (the first one).
  const oneShot = async (
    connection: PgConnection,
    text: string,
    values: unknown[] | undefined,
  ): Promise<EngineResult> => {
    try {
      return await connection.query(text, values);
    } finally {
      connection.release(connection.broken);
    }
  };
  // The first connection is made alone: should the server refuse
  // statement_timeout, the pool is made again before others queue on it.
  let first: Promise<unknown> | undefined;
  let opened = false;
  const connect = (): Promise<PgConnection> => {
    if (opened) return attempt();
    if (first === undefined) {
      const made = attempt();
      first = made.then(() => opened = true, () => opened = true);
      return made;
    }
    return first.then(attempt);
  };
  return {
    kind: "postgresql",
    get driver(): unknown {
      return pool;
    },
    poolSize: settings.poolSize,
    connect,
    query(
      text: string,
      params?: readonly unknown[],
    ): Promise<EngineResult> {
      // One statement on a connection of its own, so that a connection cut
      // short or broken is closed rather than given back; in pg's callback
      // forms, one promise in all (this is db.query's path).
      const values = params as unknown[] | undefined;
      if (!opened) {
        return connect().then((connection) =>
          oneShot(connection, text, values)
        );
      }
      return new Promise((resolve, reject) => {
        const attempted = pool;
        const full = isFull();
        attempted.connect((error, client) => {
          if (error !== undefined && error !== null) {
            try {
              refused(error, attempted, full).then((connection) =>
                oneShot(connection, text, values)
              ).then(resolve, reject);
            } catch (translated) {
              reject(translated);
            }
            return;
          }
          runWatched(
            client,
            text,
            values,
            inFlight,
            context,
            (failure, spoiled, result) => {
              // Settled first: nothing the release does can leave it pending.
              if (failure !== undefined) reject(failure);
              else resolve(resultOf(result!));
              client.release(
                spoiled || brokenClients.has(client) ? true : undefined,
              );
            },
          );
        });
      });
    },
    counters,
    async end(signal?: AbortSignal): Promise<void> {
      const ended = pool.end();
      // The client-side limit stays on until the pool has ended: a statement
      // on a server that stopped answering would hold pool.end() for ever.
      const stopSweeping = (): void => clearInterval(sweeper);
      ended.then(stopSweeping, stopSweeping);
      if (signal === undefined) return await ended;
      await new Promise<void>((resolve, reject) => {
        // At the deadline, the connections of statements still running are
        // closed (their statements fail), so nothing outlives the database.
        const stop = (): void => {
          for (const statement of inFlight) {
            if (statement.timedOut || statement.disposed) continue;
            statement.disposed = true;
            statement.client.end().catch(() => {});
          }
          resolve();
        };
        if (signal.aborted) return stop();
        signal.addEventListener("abort", stop, { once: true });
        ended.then(resolve, reject).finally(() =>
          signal.removeEventListener("abort", stop)
        );
      });
    },
  };
}
