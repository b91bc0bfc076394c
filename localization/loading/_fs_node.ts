// Runtime adapter: the only place the localization package touches the file
// system, through Kit's bounded file reader (internal/bounded_file.ts),
// which imports node:fs only when a file is read, so a browser bundle of
// localization/mod.ts (which takes _fs_browser.ts) never pulls it in.
import {
  FileTooLargeError,
  NotRegularFileError,
  readBoundedTextFile,
} from "../../internal/bounded_file.ts";
import { BodyTooLarge } from "./_read_body.ts";

/**
 * The text (UTF-8) of a regular file of at most `limit` bytes (`0` = no
 * limit), or a {@linkcode BodyTooLarge}. Rejects with a plain `Error` for a
 * FIFO, a device or a folder: opening a FIFO for reading would wait for a
 * writer for ever; and with the file system's error (`code` `ENOENT`…)
 * when it cannot be opened.
 */
export async function readTranslationFile(
  path: string,
  limit: number,
): Promise<string | BodyTooLarge> {
  try {
    return await readBoundedTextFile(path, {
      limit: limit === 0 ? Infinity : limit,
    });
  } catch (error) {
    if (error instanceof FileTooLargeError) {
      return new BodyTooLarge(
        error.declared
          ? `the file has ${error.size} bytes`
          : `more than ${limit} bytes were read`,
      );
    }
    if (error instanceof NotRegularFileError) {
      throw new Error(`not a regular file (${error.kind}); name a JSON file`);
    }
    throw error;
  }
}
