import type { TimerHandle } from "../../internal/timer_handle.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { type HealthCheckResult, RequestContext } from "../../platform/mod.ts";
import {
  Deadlines,
  RedisTimeoutError,
  settleWithin,
  TIMED_OUT,
} from "../redis/_deadlines.ts";
import { ClusterOutages } from "./_cluster_outages.ts";
import type { ErrorReporter } from "../_error_reporter.ts";
import {
  isAuthReply,
  isNotNowReply,
  outageReason,
  withoutPassword,
} from "./_outage_reasons.ts";
import { isErrorReply } from "../redis/_redis_connection.ts";
import {
  backoff,
  type RedisCommands,
  type RedisLink,
  type RedisLinkOptions,
} from "../redis/_redis_link.ts";
import { createLink, type RedisTopology } from "../redis/_redis_topology.ts";
import { CacheStoreError } from "../cache_store_error.ts";
import { CacheStoreRecovered } from "../cache_store_recovered.ts";
import { CacheStoreUnavailableError } from "../cache_store_unavailable_error.ts";
import { CacheValueError } from "../cache_value_error.ts";

// Whether a Redis store answers, kept apart from what the cache asks of it.
// The provider's commands go through here: while the store is down they are
// not sent (each answers its fallback at once), a failure of any of them
// starts an outage that is reported once, and a PING probe, retried with the
// reconnect backoff, ends it with a report of the recovery. On a Redis
// Cluster, a command that fails for a key takes down the slots of that key's
// primary only (_cluster_outages.ts): the other primaries' keys are served.

/**
 * The fallback a command is given so that its caller can tell that the
 * store did not answer (a symbol no reply can be).
 */
export const UNANSWERED: unique symbol = Symbol("unanswered");

/** What the state machine needs from its provider. */
export interface StoreConnectionStateOptions {
  /** The servers: one, a cluster, or a primary named by Sentinel. */
  topology: RedisTopology;
  /** The address, for reports and health checks. */
  address: string;
  /** The options of the main connection (the backoff of the probe too). */
  connectionOptions: RedisLinkOptions;
  /** Where failures, outages and recoveries are reported. */
  reporter: ErrorReporter;
  /** How long a command may go unanswered, in milliseconds. */
  commandTimeout: number;
  /**
   * Called after each reply to a probe, once the state is up, and when a
   * cluster primary's slots answer again.
   */
  onUp: () => void;
  /**
   * On a cluster, a key of `slot` under the provider's prefix, that the
   * probe of a failed primary's slots asks `EXISTS` about.
   */
  probeKey: (slot: number) => string;
}

/**
 * The up/down/probe state of a store's connections and the sending of
 * commands through the main one.
 *
 * "unknown" before the first reply, "up" after a reply, "down" from a
 * failure (reported) until a probe gets a reply (reported too). While down,
 * commands are not sent: reads are misses, writes are skipped.
 */
export class StoreConnectionState {
  readonly #topology: RedisTopology;
  readonly #address: string;
  readonly #connectionOptions: RedisLinkOptions;
  readonly #reporter: ErrorReporter;
  readonly #deadlines: Deadlines;
  readonly #connection: RedisLink;
  readonly #onUp: () => void;
  /** On a cluster, the slots of the primaries that stopped answering. */
  readonly #outages: ClusterOutages | undefined;
  #subscriberConnection: RedisLink | undefined;
  #state: "unknown" | "up" | "down" = "unknown";
  #downSince = 0;
  #downReport: CacheStoreUnavailableError | undefined;
  #probeTimer: TimerHandle | undefined;
  #probing: Promise<boolean> | undefined;
  #probeFailures = 0;
  /** Commands sent and not settled yet (each bounded by commandTimeout). */
  readonly #inFlight = new Set<Promise<unknown>>();
  #disposed = false;

  constructor(options: StoreConnectionStateOptions) {
    this.#topology = options.topology;
    this.#address = options.address;
    this.#connectionOptions = options.connectionOptions;
    this.#reporter = options.reporter;
    this.#onUp = options.onUp;
    this.#deadlines = new Deadlines(options.commandTimeout);
    this.#outages = this.#topology.kind === "cluster"
      ? new ClusterOutages({
        address: this.#address,
        reporter: this.#reporter,
        reconnectDelay: this.#connectionOptions.reconnectDelay,
        maxReconnectDelay: this.#connectionOptions.maxReconnectDelay,
        password: this.#connectionOptions.password,
        commands: () =>
          this.#disposed ? undefined : this.#connection.readyClient,
        commandTimeout: options.commandTimeout,
        race: (promise) => this.race(promise),
        probeKey: options.probeKey,
        // The probe's reply is the store's: before the first reply this
        // is it, and what the outage held back is re-sent now.
        onUp: () => {
          this.answered();
          if (this.#state === "up") this.#onUp();
        },
      })
      : undefined;
    this.#connection = createLink(this.#topology, this.#connectionOptions, {
      onDown: (error) => this.down(error),
      // node-redis declares a connection ready without a round trip when
      // there is no handshake (no password, database 0), even to a server
      // that is going down or is not Redis. The store is up on a reply to
      // PING, not on "ready".
      onReady: () => {
        if (this.#state !== "up") void this.probe();
        // A cluster read its slots again: a replica may serve a failed
        // primary's slots now.
        this.#outages?.probeAll();
      },
    });
  }

  /** The state: before the first reply, answering, or in an outage. */
  get state(): "unknown" | "up" | "down" {
    return this.#state;
  }

  /** Set once disposed. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** `true` while commands are not sent: during an outage or once disposed. */
  get offline(): boolean {
    return this.#state === "down" || this.#disposed;
  }

  /**
   * Up, and the main connection ready (on a cluster, with at least one
   * primary's slots answering).
   */
  get isConnected(): boolean {
    return this.#state === "up" && this.#connection.isReady &&
      this.#outages?.all !== true;
  }

  /**
   * Whether the slots of `key` are down on a cluster (their primary does
   * not answer); without a key, whether any slots are. Always `false` on
   * one server or through Sentinel.
   */
  isDown(key?: string): boolean {
    return this.#outages?.isDown(key) ?? false;
  }

  /** Whether the cluster primary at `address` failed and is not back. */
  isPrimaryDown(address: string): boolean {
    return this.#outages?.isPrimaryDown(address) ?? false;
  }

  /**
   * Whether a command for `key` (without a key: any command) would be sent
   * now: the store is up and, on a cluster, the key's slots answer.
   */
  answers(key?: string): boolean {
    return this.#state === "up" && !this.isDown(key);
  }

  /**
   * Whether a command for `key` (without a key: any command) would not be
   * sent now, answering its fallback at once: the store down or disposed,
   * or (on a cluster) the key's slots down.
   */
  skips(key?: string): boolean {
    return this.#state === "down" || this.#disposed || this.isDown(key);
  }

  /** The commands of the main connection when it is ready. */
  get readyClient(): RedisCommands | undefined {
    return this.#connection.readyClient;
  }

  /** The report of the outage under way, if any. */
  get downReport(): CacheStoreUnavailableError | undefined {
    return this.#downReport;
  }

  /** The per-command deadlines (for the subscription). */
  get deadlines(): Deadlines {
    return this.#deadlines;
  }

  /**
   * The pub/sub connection: up means both connections, invalidations travel
   * on the second one.
   */
  attachSubscriber(connection: RedisLink): void {
    this.#subscriberConnection = connection;
  }

  /** Opens the main connection and probes it; `false` during an outage. */
  async connect(): Promise<boolean> {
    if (this.#state === "down") return false;
    if (this.#state === "up" && this.#connection.isReady) return true;
    if (!(await this.#connection.ensureReady())) return false;
    return await this.probe();
  }

  /** A `PING` (or the state of the outage), for a health check. */
  async checkHealth(signal?: AbortSignal): Promise<HealthCheckResult> {
    if (this.#disposed) {
      return {
        status: "unhealthy",
        detail: { address: this.#address, reason: "disposed" },
      };
    }
    if (this.#state !== "down") {
      const check = this.#state === "up" && this.#connection.isReady
        ? this.probe()
        : this.connect();
      let answered = false;
      await settleWithin(
        check.then(() => (answered = true)),
        undefined,
        signal,
      );
      if (!answered) {
        return {
          status: "degraded",
          detail: {
            address: this.#address,
            reason: "no reply before the health check's deadline",
          },
        };
      }
    }
    const outages = this.#outages;
    if (this.#state === "up" && outages !== undefined && outages.size > 0) {
      return {
        status: "degraded",
        detail: {
          address: this.#address,
          ...this.#topologyDetail(),
          unreachable: outages.detail(),
          effect:
            "the keys of the slots listed are misses and their writes are held back until a primary answers for them; the other slots are served",
        },
      };
    }
    if (this.#state === "up") {
      return {
        status: "healthy",
        detail: { address: this.#address, ...this.#topologyDetail() },
      };
    }
    return {
      status: "degraded",
      detail: { ...this.#outageDetail(), ...this.#topologyDetail() },
    };
  }

  /**
   * Races `promise` (a command sent) against the command deadline and
   * tracks it until it settles.
   */
  race<T>(promise: Promise<T>): Promise<T | typeof TIMED_OUT> {
    return this.#track(this.#deadlines.race(promise));
  }

  /**
   * Runs a command; on any failure reports it and answers `fallback`. On a
   * cluster, a key whose slots are down answers `fallback` at once.
   */
  send<T>(
    args: string[],
    key: string | undefined,
    fallback: T,
  ): Promise<unknown> {
    if (this.#state === "down" || this.#disposed) {
      return Promise.resolve(fallback);
    }
    if (key !== undefined && this.isDown(key)) return Promise.resolve(fallback);
    const client = this.#connection.readyClient;
    if (client === undefined) {
      return this.whenReady(() => this.send(args, key, fallback), fallback);
    }
    return this.#track(this.#deadlines.race(client.send(args, key))).then(
      (value) => {
        if (value === TIMED_OUT) return this.timedOut(args[0], fallback, key);
        this.answered();
        return value;
      },
      (error) => this.failed(args[0], key, error, fallback),
    );
  }

  /**
   * Runs a command on one node; failures reported, answered `fallback`.
   * `primary` names a cluster primary: one that failed is not sent to, and
   * a failure takes down its slots only.
   */
  sendVia<T = undefined>(
    node: (args: string[]) => Promise<unknown>,
    args: string[],
    fallback?: T,
    primary?: string,
  ): Promise<unknown> {
    if (this.#state === "down" || this.#disposed) {
      return Promise.resolve(fallback);
    }
    if (primary !== undefined && this.isPrimaryDown(primary)) {
      return Promise.resolve(fallback);
    }
    return this.#track(this.#deadlines.race(node(args))).then(
      (value) => {
        if (value === TIMED_OUT) {
          return this.timedOut(args[0], fallback, undefined, primary);
        }
        this.answered();
        return value;
      },
      (error) => this.failed(args[0], undefined, error, fallback, primary),
    );
  }

  /** The commands once the store is ready; `undefined` during an outage. */
  async commands(): Promise<RedisCommands | undefined> {
    if (this.#state === "down" || this.#disposed) return undefined;
    const client = this.#connection.readyClient;
    if (client !== undefined) return client;
    const ready = await this.#connection.ensureReady();
    // The state may have changed while waiting.
    const state = this.#state as "unknown" | "up" | "down";
    return ready && state !== "down" && !this.#disposed
      ? this.#connection.readyClient
      : undefined;
  }

  /** Runs `run` once the main connection is ready, else answers `fallback`. */
  async whenReady<T>(
    run: () => Promise<T>,
    fallback: T,
  ): Promise<T> {
    if (this.#disposed) return fallback;
    const ready = await this.#connection.ensureReady();
    return ready && this.#connection.isReady && this.#state !== "down" &&
        !this.#disposed
      ? run()
      : fallback;
  }

  /**
   * A command failed: an error reply is reported as such, anything else
   * (and a refused password) starts an outage. Answers `fallback`. On a
   * cluster, the outage is that of the primary serving `key` (or of
   * `primary`), a refused password excepted: every node shares it.
   */
  failed<T>(
    command: string,
    key: string | undefined,
    error: unknown,
    fallback: T,
    primary?: string,
  ): T {
    if (this.#disposed) return fallback;
    if (isErrorReply(error) && !isAuthReply(error) && !isNotNowReply(error)) {
      this.answered();
      if (
        command === "GET" && key !== undefined &&
        /^WRONGTYPE/.test((error as Error).message)
      ) {
        this.#reporter.report(
          new CacheValueError(key, "not a string key", error),
        );
      } else {
        this.#reporter.report(new CacheStoreError(command, key, error));
      }
    } else {
      // Lost connection, a server that requires a password we lack
      // (NOAUTH), or one that cannot take commands yet (a cluster failing
      // over, a replica cut off from its primary, a restart loading its
      // data): an outage, reported once, like a refused connection, so the
      // change is held back for the recovery instead of lost.
      if (
        isAuthReply(error) || this.#outages === undefined ||
        !this.#outages.failed(key, primary, error)
      ) this.down(error);
    }
    return fallback;
  }

  /**
   * A command got no reply in time: an outage (on a cluster, of the
   * primary serving `key`, or of `primary`). Answers `fallback`.
   */
  timedOut<T>(
    command: string,
    fallback: T,
    key?: string,
    primary?: string,
  ): T {
    const error = new RedisTimeoutError(command, this.#deadlines.timeout);
    if (
      this.#outages === undefined || !this.#outages.failed(key, primary, error)
    ) {
      this.down(error);
    }
    return fallback;
  }

  /** A reply came: the store is up (before the first outage). */
  answered(): void {
    if (this.#state === "unknown") this.#state = "up";
  }

  /** Starts an outage (reported once) and schedules a probe. */
  down(error: unknown): void {
    if (this.#disposed || this.#state === "down") return;
    this.#state = "down";
    this.#downSince = Date.now();
    const report = new CacheStoreUnavailableError(
      this.#address,
      error,
      outageReason(error),
    );
    this.#downReport = report;
    this.#scheduleProbe();
    this.#reporter.report(report);
  }

  /**
   * One `PING` (one at a time): a reply ends an outage (or the unknown
   * state before the first reply); a failure starts one or keeps it.
   */
  probe(): Promise<boolean> {
    if (this.#probing !== undefined) return this.#probing;
    clearTimeout(this.#probeTimer);
    this.#probeTimer = undefined;
    const probing = this.#ping().then((ok) => {
      this.#probing = undefined;
      if (ok) this.#up();
      else if (this.#state === "down") this.#scheduleProbe();
      return ok;
    });
    this.#probing = probing;
    return probing;
  }

  /**
   * Stops probing, waits for the commands under way (each within
   * `commandTimeout`, all of it within `signal`), then closes both
   * connections.
   */
  async dispose(signal: AbortSignal | undefined): Promise<void> {
    this.#disposed = true;
    clearTimeout(this.#probeTimer);
    this.#probeTimer = undefined;
    this.#outages?.dispose();
    if (this.#inFlight.size > 0) {
      const timeout = this.#deadlines.timeout;
      await settleWithin(
        Promise.allSettled([...this.#inFlight]),
        timeout + Math.ceil(timeout / 4) + 50,
        signal,
      );
    }
    this.#deadlines.dispose();
    await Promise.all([
      this.#connection.dispose(signal),
      this.#subscriberConnection?.dispose(signal),
    ]);
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    const inFlight = this.#inFlight;
    inFlight.add(promise);
    const done = () => inFlight.delete(promise);
    promise.then(done, done);
    return promise;
  }

  #up(): void {
    if (this.#disposed) return;
    const wasDown = this.#state === "down";
    this.#state = "up";
    this.#probeFailures = 0;
    clearTimeout(this.#probeTimer);
    this.#probeTimer = undefined;
    if (wasDown) {
      this.#downReport = undefined;
      this.#reporter.report(
        new CacheStoreRecovered(this.#address, Date.now() - this.#downSince),
      );
    }
    this.#onUp();
  }

  /** Probes again after the reconnect backoff while the store is down. */
  #scheduleProbe(): void {
    if (
      this.#disposed || this.#probeTimer !== undefined ||
      this.#probing !== undefined
    ) return;
    const { reconnectDelay, maxReconnectDelay } = this.#connectionOptions;
    const delay = backoff(
      this.#probeFailures++,
      reconnectDelay,
      maxReconnectDelay,
    );
    // Not tied to the request whose command found the store down.
    this.#probeTimer = unrefTimer(RequestContext.detach(() =>
      setTimeout(() => {
        this.#probeTimer = undefined;
        void this.probe();
      }, delay)
    ));
  }

  async #ping(): Promise<boolean> {
    if (this.#disposed) return false;
    const client = this.#connection.readyClient;
    const subscriber = this.#subscriberConnection;
    // Up means both connections: invalidations travel on the second one.
    if (
      client === undefined || (subscriber !== undefined && !subscriber.isReady)
    ) {
      return false;
    }
    if (this.#outages !== undefined) {
      // A cluster: a primary that does not answer takes its slots down; the
      // store is down when none answers.
      const pinged = await this.#outages.pingPrimaries();
      if (pinged === "answered") return true;
      if (pinged !== "none" && !this.#disposed) {
        this.down(pinged.error);
        if (pinged.error instanceof RedisTimeoutError) {
          this.#connection.recycle(pinged.error);
        }
      }
      return false;
    }
    try {
      const reply = await this.#track(
        this.#deadlines.race(client.ping()),
      );
      if (reply !== TIMED_OUT) return true;
      const error = new RedisTimeoutError("PING", this.#deadlines.timeout);
      this.down(error);
      // Commands would pile up on a socket nobody answers: open a new one.
      this.#connection.recycle(error);
      return false;
    } catch (error) {
      if (!this.#disposed) this.down(error);
      return false;
    }
  }

  /**
   * The nodes behind the provider for a health check: on a cluster each
   * primary and whether it answers, through Sentinel the current primary,
   * its replicas and the sentinel asked.
   */
  #topologyDetail(): Record<string, unknown> {
    if (this.#topology.kind === "single") return {};
    const client = this.#connection.readyClient;
    if (client === undefined) return { topology: this.#topology.kind };
    try {
      return client.topology();
    } catch {
      return { topology: this.#topology.kind };
    }
  }

  /** The outage for a health check: address, since when, why; no secret. */
  #outageDetail(): Readonly<Record<string, unknown>> {
    const report = this.#downReport;
    const cause = report?.cause;
    const reason = withoutPassword(
      report?.reason ??
        (cause instanceof Error ? cause.message : String(cause ?? "unknown")),
      this.#connectionOptions.password,
    );
    return {
      address: this.#address,
      since: new Date(this.#downSince).toISOString(),
      reason,
      effect: "reads are misses and writes are skipped until the store answers",
    };
  }
}
