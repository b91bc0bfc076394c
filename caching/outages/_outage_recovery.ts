import { RequestContext } from "../../platform/mod.ts";
import type { ErrorReporter } from "../_error_reporter.ts";
import { type OutageJournal, resendJournal } from "./_outage_journal.ts";
import { lockToken } from "../redis/_redis_lock.ts";
import type { StoreConnectionState } from "./_store_connection_state.ts";
import type { CacheInvalidation } from "../cache_invalidation.ts";
import { CacheStoreError } from "../cache_store_error.ts";

// What a provider does with its outage journal around an outage: holding
// back the changes the store did not take, and re-sending them once a probe
// gets a reply (one re-send at a time, started again when a new outage
// ended during one), with a report when the journal overflowed. On a
// cluster an outage may be one primary's slots: a change is held back when
// the slots of its key were down, and the journal is re-sent each time a
// primary's slots answer again.

/** What the recovery needs from its provider. */
export interface OutageRecoveryOptions {
  /** The journal (its size is `outageJournalSize`). */
  journal: OutageJournal;
  /** `outageJournalSize`, for the report of an overflow. */
  journalSize: number;
  /** Whether the store answers. */
  link: StoreConnectionState;
  /** Where an overflow is reported. */
  reporter: ErrorReporter;
  /** The store's address, for the diagnostics line. */
  address: string;
  /** Where a line about each re-send goes, when diagnostics are on. */
  diagnostics?: (line: string) => void;
  /** Runs a command; `false` when the store did not answer. */
  send(args: string[], key?: string): Promise<boolean>;
  /** Clears a prefix; `false` when the store could not finish it. */
  clear(prefix: string): Promise<boolean>;
  /** Publishes a message; `false` when it did not go out. */
  publish(message: CacheInvalidation): Promise<boolean>;
  /** The Redis key of a cache key. */
  fullKey(key: string): string;
  /** The Redis key of a tag. */
  tagKey(tag: string): string;
  /** How long a tag invalidation is remembered. */
  tagRetention: number;
  /** The time on the clock of the entries' `storedAt`. */
  now(): number;
}

/** Holds back the changes made during an outage and re-sends them after. */
export class OutageRecovery {
  readonly #options: OutageRecoveryOptions;
  readonly #journal: OutageJournal;
  readonly #link: StoreConnectionState;
  /** Who the messages of a recovery come from: every instance applies them. */
  readonly #recoverySource = `kit:recovery:${lockToken()}`;
  #replaying: Promise<void> | undefined;
  #resendAgain = false;
  #reportedLoss = { degraded: 0, dropped: 0 };

  constructor(options: OutageRecoveryOptions) {
    this.#options = options;
    this.#journal = options.journal;
    this.#link = options.link;
  }

  /**
   * Whether a change that was not answered is held back for the recovery:
   * it was not sent (`skipped`: what `link.skips(key)` said before it), or
   * the store is down now or (on a cluster) the slots of `key` are; without
   * a key (a clear, a message), any slots. Otherwise it got an error reply:
   * sending it again would not help.
   */
  missed(key?: string, skipped = false): boolean {
    return !this.#link.disposed && (skipped || !this.#link.answers(key));
  }

  /** A message that did not go out: its changes are told on recovery. */
  holdMessage(message: CacheInvalidation): void {
    const at = this.#options.now();
    for (const key of message.keys ?? []) {
      this.#journal.record({ kind: "notify", key, at });
    }
    // Clearing again and invalidating again are harmless: both only cause
    // misses, and the tags script keeps the later time.
    if (message.prefix !== undefined) {
      this.#journal.record({ kind: "clear", prefix: message.prefix, at });
    }
    if (message.tags !== undefined && message.at !== undefined) {
      for (const tag of message.tags) {
        this.#journal.record({ kind: "tag", tag, at: message.at });
      }
    }
  }

  /** The store answers again: re-sends what the journal holds, if anything. */
  recovered(): void {
    if (this.#journal.size > 0 || this.#journal.overflowed) {
      // A re-send still under way from an earlier recovery took its list
      // before this outage's changes: it starts again when it ends.
      if (this.#replaying !== undefined) this.#resendAgain = true;
      else void this.#resend();
    }
  }

  /**
   * Re-sends the held-back changes and tells every instance (see
   * `resendJournal`); reports a journal that overflowed.
   */
  #resend(): Promise<void> {
    if (this.#replaying !== undefined) return this.#replaying;
    const options = this.#options;
    const run = async (): Promise<void> => {
      const resent = await resendJournal(this.#journal, {
        source: this.#recoverySource,
        // Not taken, yet done: an error reply (sending it again would not
        // help), told by the store answering before and after; a change
        // not sent because its slots were down, or that took them down, is
        // not done, even if they answer again by the time it settles.
        run: async (args, key) => {
          if (this.#link.disposed) return false;
          const skipped = this.#link.skips(key);
          return (await options.send(args, key)) || !this.missed(key, skipped);
        },
        fullKey: options.fullKey,
        tagKey: options.tagKey,
        tagRetention: options.tagRetention,
        clear: async (prefix) => {
          if (this.#link.disposed) return false;
          const skipped = this.#link.skips();
          return (await options.clear(prefix)) ||
            !this.missed(undefined, skipped);
        },
        publish: async (message) => {
          const skipped = this.#link.skips();
          if (await options.publish(message)) return true;
          if (this.missed(undefined, skipped)) this.holdMessage(message);
          return false;
        },
      });
      const { pending, degraded, dropped } = this.#journal.stats;
      options.diagnostics?.(
        `cache: re-sent ${resent} changes made during the outage to ${options.address} (${pending} pending)`,
      );
      const lost = this.#reportedLoss;
      if (
        (degraded > lost.degraded || dropped > lost.dropped) &&
        !this.#link.disposed
      ) {
        this.#reportedLoss = { degraded, dropped };
        options.reporter.report(
          new CacheStoreError(
            "resend",
            undefined,
            new Error(
              `the outage journal (outageJournalSize ${options.journalSize}) was full: ${
                degraded - lost.degraded
              } writes were re-sent as deletes of their keys and ${
                dropped - lost.dropped
              } changes were lost${
                dropped > lost.dropped
                  ? " (every instance dropped its memory layer; Redis may keep older values of those keys until they expire)"
                  : ""
              }`,
            ),
          ),
        );
      }
    };
    const replaying = RequestContext.detach(run).finally(() => {
      this.#replaying = undefined;
      if (
        this.#resendAgain && this.#link.state === "up" && !this.#link.disposed
      ) {
        this.#resendAgain = false;
        void this.#resend();
      }
    });
    this.#replaying = replaying;
    return replaying;
  }
}
