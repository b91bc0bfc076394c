// Runtime adapter: the only place the localization package touches the file
// system. node:fs is reached through a dynamic import so a browser bundle of
// localization/mod.ts never pulls it in. node:fs/promises works in Deno,
// Node.js and Bun alike.
import { BodyTooLarge } from "./_read_body.ts";

type NodeFs = typeof import("node:fs/promises");

let fsPromise: Promise<NodeFs> | undefined;

const CHUNK = 64 * 1024;

/**
 * The text (UTF-8) of a regular file of at most `limit` bytes (`0` = no
 * limit), or a {@linkcode BodyTooLarge}. Rejects with a plain `Error` for a
 * FIFO, a device or a folder: opening a FIFO for reading would wait for a
 * writer for ever.
 */
export async function readTextFile(
  path: string,
  limit: number,
): Promise<string | BodyTooLarge> {
  fsPromise ??= import("node:fs/promises");
  const fs = await fsPromise;
  const { constants } = fs;
  // O_NONBLOCK: opening a FIFO returns at once (it is refused below) instead
  // of waiting for a writer; it changes nothing for a regular file.
  const handle = await fs.open(
    path,
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0),
  );
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new Error(
        `not a regular file (${
          stats.isDirectory()
            ? "a folder"
            : stats.isFIFO()
            ? "a FIFO"
            : "a device or socket"
        }); name a JSON file`,
      );
    }
    if (limit > 0 && stats.size > limit) {
      return new BodyTooLarge(`the file has ${stats.size} bytes`);
    }
    // Read in chunks up to one byte past the limit: a file that grows while
    // it is read still stops there.
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const room = limit > 0 ? limit - total + 1 : Infinity;
      const chunk = new Uint8Array(
        Math.min(Math.max(stats.size - total, CHUNK), room),
      );
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (limit > 0 && total > limit) {
        return new BodyTooLarge(`more than ${limit} bytes were read`);
      }
      chunks.push(chunk.subarray(0, bytesRead));
    }
    const decoder = new TextDecoder();
    let text = "";
    for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
  } finally {
    await handle.close().catch(() => {});
  }
}
