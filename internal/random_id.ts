const HEX: string[] = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);

/**
 * A random version 4 UUID, in every runtime: `crypto.randomUUID()` where it
 * exists (Deno, Node.js, Bun, browsers in secure contexts), else built from
 * `crypto.getRandomValues` (a page served over plain http). Kit uses it for
 * request ids, log entry ids, idempotency keys and analytics message ids.
 *
 * @returns A UUID such as `"3b241101-e2bb-4255-8caf-4136c566a962"`.
 *
 * @example Usage
 * ```ts
 * import { randomId } from "./random_id.ts";
 *
 * const id = randomId();
 * console.log(id.length); // 36
 * ```
 */
export function randomId(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  let out = "";
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out += "-";
    out += HEX[bytes[i]];
  }
  return out;
}
