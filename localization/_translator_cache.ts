// The translators of LocalizationManager.forCulture, one per culture, shared
// by the calls for it: bounded by the cache's maxSize (oldest dropped first)
// and expiring with the cache's ttl, through the cache's own clock when it
// has one (tests) or else an unref'd timer, so a lookup reads no clock.
// Not public.
import type { TimerHandle } from "../internal/timer_handle.ts";
import { unrefTimer } from "../internal/unref_timer.ts";
import { RequestContext } from "../platform/mod.ts";
import { cacheClocks } from "./_cache_clock.ts";
import type { LocalizationCache } from "./localization_cache.ts";
import type { Translator } from "./translator.ts";

/** A translator of forCulture, shared by the calls for its culture. */
export interface Slot {
  readonly promise: Promise<Translator>;
  // Infinity while fresh; a time on the cache's clock, or -Infinity once
  // the slot's timer ran.
  expires: number;
  timer?: TimerHandle;
}

/** The translators built per culture, with their expiry. */
export class TranslatorCache {
  readonly #translators = new Map<string, Slot>();
  readonly #maxTranslators: number;
  readonly #ttl: number;
  readonly #clock: (() => number) | undefined;

  constructor(cache: LocalizationCache | undefined) {
    this.#maxTranslators = cache?.maxSize ?? 1000;
    this.#ttl = cache?.ttl ?? 3_600_000;
    this.#clock = cache === undefined ? undefined : cacheClocks.get(cache);
  }

  /** How many translators are kept. */
  get size(): number {
    return this.#translators.size;
  }

  /**
   * The translators by culture, for the manager's lookup to read inline (it
   * is its hot path): a slot is fresh while its `expires` is `Infinity`, or
   * while {@linkcode TranslatorCache.prototype.fresh} says so.
   */
  get slots(): ReadonlyMap<string, Slot> {
    return this.#translators;
  }

  /** Whether a slot whose `expires` is a time is still fresh. */
  fresh(slot: Slot): boolean {
    return this.#clock !== undefined && this.#clock() < slot.expires;
  }

  /**
   * Keeps `promise` as the translator of `culture` (replacing an expired
   * one), starts its time to live once it resolves, and forgets it if it
   * rejects.
   */
  add(culture: string, promise: Promise<Translator>): Promise<Translator> {
    const slot: Slot = { promise, expires: Infinity };
    const translators = this.#translators;
    this.#forget(culture);
    if (translators.size >= this.#maxTranslators) {
      this.#forget(translators.keys().next().value!);
    }
    translators.set(culture, slot);
    slot.promise.then(
      () => {
        const ttl = this.#ttl;
        if (ttl === 0) return;
        if (this.#clock !== undefined) {
          slot.expires = this.#clock() + ttl;
        } else if (ttl < 2 ** 31) {
          // Not in the request that loaded it: the timer would keep that
          // request's context alive for the whole time to live.
          slot.timer = unrefTimer(RequestContext.detach(() =>
            setTimeout(() => {
              slot.expires = -Infinity;
            }, ttl)
          ));
        }
      },
      () => {
        if (translators.get(culture) === slot) this.#forget(culture);
      },
    );
    return slot.promise;
  }

  #forget(culture: string): void {
    const translators = this.#translators;
    const slot = translators.get(culture);
    if (slot === undefined) return;
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    translators.delete(culture);
  }
}
