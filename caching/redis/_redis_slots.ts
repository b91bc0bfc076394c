// Redis Cluster key slots: CRC16 (XMODEM) of the key's hash tag modulo
// 16384, as the server computes them. Used to keep a lock key in the slot of
// its entry (so that one script can read the entry and take the lock), not
// to route commands: node-redis routes them.

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    table[i] = crc;
  }
  return table;
})();

const encoder = new TextEncoder();

function crc16(bytes: Uint8Array, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) {
    crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ bytes[i]) & 0xff];
  }
  return crc;
}

/** The slot of a key: of its hash tag (`{…}`, when not empty), else of all of it. */
export function keySlot(key: string): number {
  const bytes = encoder.encode(key);
  const open = bytes.indexOf(0x7b); // {
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1); // }
    if (close > open + 1) return crc16(bytes, open + 1, close) & 16383;
  }
  return crc16(bytes, 0, bytes.length) & 16383;
}

let tags: string[] | undefined;

/**
 * A short text whose slot is `slot`: built once (base-36 counters until
 * every slot has one), then looked up.
 */
export function slotTag(slot: number): string {
  if (tags === undefined) {
    const found: string[] = new Array(16384);
    let left = 16384;
    for (let i = 0; left > 0; i++) {
      const text = i.toString(36);
      let crc = 0; // text is ASCII: its characters are its bytes
      for (let c = 0; c < text.length; c++) {
        crc = ((crc << 8) & 0xffff) ^
          TABLE[((crc >> 8) ^ text.charCodeAt(c)) & 0xff];
      }
      const s = crc & 16383;
      if (found[s] === undefined) {
        found[s] = text;
        left--;
      }
    }
    tags = found;
  }
  return tags[slot];
}

/**
 * `true` when a key prefix would break the hash tag a lock key carries: an
 * opening brace it does not close.
 */
export function hasUnclosedBrace(prefix: string): boolean {
  const open = prefix.indexOf("{");
  return open !== -1 && prefix.indexOf("}", open + 1) === -1;
}
