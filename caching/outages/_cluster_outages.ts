// On a Redis Cluster, a primary that stops answering takes down its own
// slots, not the store: the commands for keys in those slots are not sent
// (each answers its fallback at once), a probe of the slots, retried with the
// reconnect backoff, ends the outage, and every other slot is served all
// along. Each outage is reported once, naming the primary and its slots, and
// so is its end (CacheStoreUnavailableError / CacheStoreRecovered, with the
// primary's address).
//
// The slots are those the primary served when it failed. They stay down
// after a replica took them over until the probe gets a reply from it: the
// changes held back for those slots are re-sent when the slots answer again,
// which is the moment the probe sees.

import type { TimerHandle } from "../../internal/timer_handle.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { RequestContext } from "../../platform/mod.ts";
import { RedisTimeoutError, TIMED_OUT } from "../redis/_deadlines.ts";
import type { ErrorReporter } from "../_error_reporter.ts";
import {
  isAuthReply,
  isNotNowReply,
  outageReason,
  withoutPassword,
} from "./_outage_reasons.ts";
import { isErrorReply } from "../redis/_redis_connection.ts";
import { backoff, type RedisCommands } from "../redis/_redis_link.ts";
import { keySlot } from "../redis/_redis_slots.ts";
import { CacheStoreRecovered } from "../cache_store_recovered.ts";
import { CacheStoreUnavailableError } from "../cache_store_unavailable_error.ts";

const SLOTS = 16384;

/** The slots of one primary that stopped answering. */
interface SlotOutage {
  /** The primary that served them when it failed (`host:port`). */
  readonly primary: string;
  /** Its slots, ascending. */
  readonly slots: readonly number[];
  /** `Date.now()` at the failure. */
  readonly since: number;
  readonly report: CacheStoreUnavailableError;
  timer: TimerHandle | undefined;
  probing: Promise<boolean> | undefined;
  failures: number;
}

/** What the outages of a cluster need from the provider's connection state. */
export interface ClusterOutagesOptions {
  /** The cluster, as reports name it. */
  address: string;
  /** Where outages and their ends are reported. */
  reporter: ErrorReporter;
  /** The probe's backoff: first delay, doubling up to the second. */
  reconnectDelay: number;
  maxReconnectDelay: number;
  /** The password, kept out of health details. */
  password: string | undefined;
  /** The cluster's commands, while its client is connected. */
  commands(): RedisCommands | undefined;
  /** How long a command may go unanswered, in milliseconds. */
  commandTimeout: number;
  /**
   * Bounds a command sent by the command timeout (and tracks it until it
   * settles, so that dispose waits for it).
   */
  race<T>(promise: Promise<T>): Promise<T | typeof TIMED_OUT>;
  /** A key of `slot` under the provider's prefix, for `EXISTS` probes. */
  probeKey(slot: number): string;
  /** Some slots answer again: their held-back changes can be re-sent. */
  onUp(): void;
}

/**
 * What a `PING` of every primary not known to be down found: at least one
 * answered (those that did not are down now), none was left to ask, or
 * none answered (the error of the first).
 */
export type PrimariesPinged = "answered" | "none" | { error: unknown };

/**
 * The slots of a Redis Cluster whose primary does not answer, each outage
 * probed and reported apart.
 */
export class ClusterOutages {
  readonly #options: ClusterOutagesOptions;
  /** By slot, the outage it belongs to. */
  readonly #bySlot: Array<SlotOutage | undefined> = new Array(SLOTS);
  /** By the address of the primary that failed. */
  readonly #outages = new Map<string, SlotOutage>();
  #slotsDown = 0;
  #disposed = false;

  constructor(options: ClusterOutagesOptions) {
    this.#options = options;
  }

  /** How many primaries' slots are down. */
  get size(): number {
    return this.#outages.size;
  }

  /** Every slot is down: nothing can be served. */
  get all(): boolean {
    return this.#slotsDown === SLOTS;
  }

  /**
   * Whether the slot of `key` is down; without a key, whether any slot is.
   */
  isDown(key?: string): boolean {
    if (this.#outages.size === 0) return false;
    return key === undefined || this.#bySlot[keySlot(key)] !== undefined;
  }

  /** Whether the primary at `address` failed and was not probed back yet. */
  isPrimaryDown(address: string): boolean {
    return this.#outages.has(address);
  }

  /**
   * A command for `key` (or sent to the primary at `primary`) failed
   * without a reply: the slots of the primary serving it go down. Answers
   * `false` when the failure cannot be tied to a primary of the slot map
   * (unknown, or without that primary): the caller takes the whole store
   * down instead.
   */
  failed(
    key: string | undefined,
    primary: string | undefined,
    error: unknown,
  ): boolean {
    if (this.#disposed) return true;
    const map = this.#options.commands()?.slots;
    if (map === undefined) return false;
    let address = primary;
    if (address === undefined) {
      if (key === undefined) return false;
      const slot = keySlot(key);
      if (this.#bySlot[slot] !== undefined) return true;
      address = map.ownerOf(slot);
      if (address === undefined) return false;
    }
    if (this.#outages.has(address)) return true;
    const slots: number[] = [];
    let owned = 0;
    for (let slot = 0; slot < SLOTS; slot++) {
      if (map.ownerOf(slot) !== address) continue;
      owned++;
      if (this.#bySlot[slot] === undefined) slots.push(slot);
    }
    // Not a primary of the map (any more): the failure cannot be placed.
    if (owned === 0) return false;
    // Its slots are down already (taken over from a primary that failed).
    if (slots.length === 0) return true;
    const known = outageReason(error);
    const effect =
      `a primary of ${this.#options.address}: the keys of its slots ${
        slotRanges(slots)
      } are misses and their writes are held back until it or a replica answers for them; the other slots are served`;
    const outage: SlotOutage = {
      primary: address,
      slots,
      since: Date.now(),
      report: new CacheStoreUnavailableError(
        address,
        error,
        known === undefined ? effect : `${known}; ${effect}`,
      ),
      timer: undefined,
      probing: undefined,
      failures: 0,
    };
    this.#outages.set(address, outage);
    for (const slot of slots) this.#bySlot[slot] = outage;
    this.#slotsDown += slots.length;
    this.#schedule(outage);
    this.#options.reporter.report(outage.report);
    return true;
  }

  /**
   * A `PING` to each primary not known to be down (after node-redis read
   * the slot map again if one of them is not connected: a replica may have
   * taken over). One that does not answer takes its slots down.
   */
  async pingPrimaries(): Promise<PrimariesPinged> {
    const slots = this.#options.commands()?.slots;
    if (slots === undefined) return "none";
    const race = this.#options.race;
    await race(slots.refresh());
    const primaries = slots.primaries().filter((address) =>
      !this.#outages.has(address)
    );
    if (primaries.length === 0 || this.#disposed) return "none";
    const failures = await Promise.all(primaries.map(async (address) => {
      try {
        const reply = await race(slots.sendTo(address, ["PING"]));
        return reply === TIMED_OUT
          ? new RedisTimeoutError("PING", this.#options.commandTimeout)
          : undefined;
      } catch (error) {
        return error ?? new Error("PING failed");
      }
    }));
    if (this.#disposed) return "none";
    if (failures.every((error) => error !== undefined)) {
      return { error: failures[0] };
    }
    failures.forEach((error, i) => {
      if (error !== undefined) this.failed(undefined, primaries[i], error);
    });
    return "answered";
  }

  /**
   * Probes every outage now (the cluster client just read a new slot map,
   * or every primary it knows answers again).
   */
  probeAll(): void {
    for (const outage of this.#outages.values()) void this.#probe(outage);
  }

  /** The outages, for a health check: primary, slots, since when, why. */
  detail(): Array<Record<string, unknown>> {
    return [...this.#outages.values()].map((outage) => {
      const { report } = outage;
      const cause = report.cause;
      return {
        primary: outage.primary,
        slots: slotRanges(outage.slots),
        since: new Date(outage.since).toISOString(),
        reason: withoutPassword(
          report.reason ??
            (cause instanceof Error ? cause.message : String(cause)),
          this.#options.password,
        ),
      };
    });
  }

  /** Stops probing; no timer is left behind. */
  dispose(): void {
    this.#disposed = true;
    for (const outage of this.#outages.values()) {
      clearTimeout(outage.timer);
      outage.timer = undefined;
    }
  }

  /** One probe of an outage at a time: a reply ends it, else try later. */
  #probe(outage: SlotOutage): Promise<boolean> {
    if (outage.probing !== undefined) return outage.probing;
    clearTimeout(outage.timer);
    outage.timer = undefined;
    const probing = this.#answers(outage).then((ok) => {
      outage.probing = undefined;
      if (this.#disposed || this.#outages.get(outage.primary) !== outage) {
        return ok;
      }
      if (ok) this.#up(outage);
      else this.#schedule(outage);
      return ok;
    });
    outage.probing = probing;
    return probing;
  }

  /**
   * Whether every primary serving the outage's slots now (the one that
   * failed, or a replica that took over) answers a command routed to one
   * of them. Every slot must be served: a command for an unserved one
   * could not be routed.
   */
  async #answers(outage: SlotOutage): Promise<boolean> {
    if (this.#disposed) return false;
    const map = this.#options.commands()?.slots;
    if (map === undefined) return false;
    // A frozen primary keeps its connection and sends no MOVED: node-redis
    // would never learn that its replica took over. Another primary tells.
    await this.#options.race(
      map.reread((address) => this.#outages.has(address)),
    );
    if (this.#disposed) return false;
    const probes = new Map<string, number>();
    for (const slot of outage.slots) {
      const owner = map.ownerOf(slot);
      if (owner === undefined) return false;
      if (!probes.has(owner)) probes.set(owner, slot);
    }
    const replies = await Promise.all(
      [...probes.values()].map((slot) => this.#probeSlot(slot)),
    );
    return replies.every(Boolean);
  }

  /**
   * One command routed to `slot` (`EXISTS` of a key of the provider's):
   * `true` when its primary answered, an error reply included, but not a
   * "not now" one (`CLUSTERDOWN` while the cluster waits for a replica).
   */
  async #probeSlot(slot: number): Promise<boolean> {
    const client = this.#options.commands();
    if (client === undefined) return false;
    const key = this.#options.probeKey(slot);
    try {
      const reply = await this.#options.race(client.send(["EXISTS", key], key));
      return reply !== TIMED_OUT;
    } catch (error) {
      return isErrorReply(error) && !isNotNowReply(error) &&
        !isAuthReply(error);
    }
  }

  #up(outage: SlotOutage): void {
    this.#outages.delete(outage.primary);
    for (const slot of outage.slots) {
      if (this.#bySlot[slot] === outage) this.#bySlot[slot] = undefined;
    }
    this.#slotsDown -= outage.slots.length;
    clearTimeout(outage.timer);
    outage.timer = undefined;
    this.#options.reporter.report(
      new CacheStoreRecovered(outage.primary, Date.now() - outage.since),
    );
    this.#options.onUp();
  }

  /** Probes again after the reconnect backoff. */
  #schedule(outage: SlotOutage): void {
    if (
      this.#disposed || outage.timer !== undefined ||
      outage.probing !== undefined
    ) return;
    const delay = backoff(
      outage.failures++,
      this.#options.reconnectDelay,
      this.#options.maxReconnectDelay,
    );
    // Not tied to the request whose command found the primary down.
    outage.timer = unrefTimer(RequestContext.detach(() =>
      setTimeout(() => {
        outage.timer = undefined;
        void this.#probe(outage);
      }, delay)
    ));
  }
}

/** Ascending slots as ranges: `0-5460`, `0-99,200-5460`. */
export function slotRanges(slots: readonly number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < slots.length;) {
    let j = i;
    while (j + 1 < slots.length && slots[j + 1] === slots[j] + 1) j++;
    ranges.push(i === j ? String(slots[i]) : `${slots[i]}-${slots[j]}`);
    i = j + 1;
  }
  return ranges.join(",");
}
