// Random ids for remote entries (`id`) and batches (`Idempotency-Key`).
// crypto.randomUUID exists in Deno, Node 19+, Bun and browsers in secure
// contexts; elsewhere (a page over plain http, Node 18) a v4 UUID is built
// from getRandomValues.
const HEX: string[] = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);

/** A random v4 UUID. */
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
