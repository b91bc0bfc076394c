import { validateSamplingRate } from "./_sampling_rate.ts";

const encoder = new TextEncoder();

/**
 * A stable 32-bit hash of an id: FNV-1a (32-bit, offset basis 2166136261,
 * prime 16777619) over the id's UTF-8 bytes, then MurmurHash3's `fmix32`
 * finalizer so that ids differing only in their last characters
 * (`user-1`, `user-2`, …) still spread evenly. The result is the same in every
 * runtime, process and version of Kit, so a sampling decision made in a
 * browser matches the one made on the server for the same id.
 *
 * @param id Any text.
 * @returns An unsigned 32-bit integer.
 *
 * @example Usage
 * ```ts
 * import { samplingHash } from "@vendor/kit/analytics";
 *
 * samplingHash("user-42") === samplingHash("user-42"); // true
 * ```
 */
export function samplingHash(id: string): number {
  let hash = 0x811c9dc5;
  // ASCII fast path; other text goes through its UTF-8 bytes.
  let ascii = true;
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i);
    if (code > 0x7f) {
      ascii = false;
      break;
    }
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  if (!ascii) {
    hash = 0x811c9dc5;
    for (const byte of encoder.encode(id)) {
      hash = Math.imul(hash ^ byte, 0x01000193);
    }
  }
  // MurmurHash3 fmix32.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * Decides whether an id is sampled in at a rate: `samplingHash(id) / 2^32 <
 * rate`. The same id always gets the same decision, so a sampled-in user
 * keeps all their events and funnels stay whole; raising the rate only adds
 * ids (an id kept at 0.1 is also kept at 0.2).
 *
 * @param id The anonymous or user id.
 * @param rate The fraction of ids to keep, from 0 to 1.
 * @returns `true` when the id's events are kept.
 * @throws {AnalyticsConfigurationError} `samplingRate must be a number from 0
 * to 1: <value>` when `rate` is outside 0..1 or not a number.
 *
 * @example Usage
 * ```ts
 * import { isSampledIn } from "@vendor/kit/analytics";
 *
 * isSampledIn("user-42", 1); // true
 * isSampledIn("user-42", 0); // false
 * isSampledIn("user-42", 0.1) === isSampledIn("user-42", 0.1); // true
 * ```
 */
export function isSampledIn(id: string, rate: number): boolean {
  validateSamplingRate(rate);
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return samplingHash(id) / 4294967296 < rate;
}
