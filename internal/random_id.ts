// Node.js's crypto.randomUUID() returns its id as a string of 20 pieces
// joined, which V8 copies into one the first time the whole is read (a
// header written, a pattern tested); the two together cost about three
// times an id made here in one piece (String.fromCharCode of its 36
// characters) from random bytes drawn for 256 ids at a time, as Node.js
// itself draws them for 128. A server that gives each request an id pays
// that per request. Deno's and Bun's randomUUID() make the string in one
// piece, faster than this, so they keep it.
// Node.js is told from the others by its navigator: none before Node.js 21,
// "Node.js/<version>" since; Deno's and Bun's name themselves (and also have
// process.versions.node). No runtime's global is named here: a browser
// bundle must carry no such name (tests/service/page_browser_test.ts).
const RUNTIME = globalThis as {
  process?: { versions?: { node?: unknown } };
  navigator?: { userAgent?: unknown };
};
const AGENT = RUNTIME.navigator?.userAgent;
const POOLED = typeof RUNTIME.process?.versions?.node === "string" &&
  (AGENT === undefined ||
    (typeof AGENT === "string" && AGENT.startsWith("Node.js")));

/** How many ids one draw of random bytes serves. */
const BATCH = 256;

// The character codes of a byte's two hexadecimal digits.
const HIGH = new Uint8Array(256);
const LOW = new Uint8Array(256);
for (let i = 0; i < 256; i++) {
  HIGH[i] = "0123456789abcdef".charCodeAt(i >> 4);
  LOW[i] = "0123456789abcdef".charCodeAt(i & 15);
}

// Random bytes for the next ids, version and variant bits set; `next` is the
// next id's place (BATCH: none left).
let pool: Uint8Array | undefined;
let next = BATCH;

function draw(): Uint8Array {
  const bytes = pool ??= new Uint8Array(16 * BATCH);
  globalThis.crypto.getRandomValues(bytes);
  for (let at = 0; at < bytes.length; at += 16) {
    bytes[at + 6] = (bytes[at + 6] & 0x0f) | 0x40;
    bytes[at + 8] = (bytes[at + 8] & 0x3f) | 0x80;
  }
  next = 0;
  return bytes;
}

// A version 4 UUID from the pool, made as one string.
function pooledId(): string {
  const b = next === BATCH ? draw() : pool!;
  const o = 16 * next++;
  const b0 = b[o], b1 = b[o + 1], b2 = b[o + 2], b3 = b[o + 3];
  const b4 = b[o + 4], b5 = b[o + 5], b6 = b[o + 6], b7 = b[o + 7];
  const b8 = b[o + 8], b9 = b[o + 9], b10 = b[o + 10], b11 = b[o + 11];
  const b12 = b[o + 12], b13 = b[o + 13], b14 = b[o + 14], b15 = b[o + 15];
  const H = HIGH, L = LOW;
  // 45 is "-". (One line per group of the UUID.)
  // deno-fmt-ignore
  return String.fromCharCode(
    H[b0], L[b0], H[b1], L[b1], H[b2], L[b2], H[b3], L[b3], 45,
    H[b4], L[b4], H[b5], L[b5], 45,
    H[b6], L[b6], H[b7], L[b7], 45,
    H[b8], L[b8], H[b9], L[b9], 45,
    H[b10], L[b10], H[b11], L[b11], H[b12], L[b12],
    H[b13], L[b13], H[b14], L[b14], H[b15], L[b15],
  );
}

/**
 * A random version 4 UUID, in every runtime: `crypto.randomUUID()` where it
 * makes one cheaply (Deno, Bun, browsers in secure contexts); in Node.js,
 * and where `randomUUID` is missing (a page served over plain http), one
 * made from `crypto.getRandomValues` bytes drawn for 256 ids at a time. Kit
 * uses it for request ids, log entry ids, idempotency keys and analytics
 * message ids.
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
  if (POOLED) return pooledId();
  const crypto = globalThis.crypto;
  return typeof crypto?.randomUUID === "function"
    ? crypto.randomUUID()
    : pooledId();
}
