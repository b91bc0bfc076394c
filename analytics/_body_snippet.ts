// Internal: the start of an error answer's body, for the failure message.
//
// A collector may answer an error with a body of any length (a proxy's HTML
// page, or a stream that never ends); only a short part of it is ever shown,
// so only that much is read and the rest is cancelled, which also closes the
// connection instead of draining it.
//
// The logging package needs none of this: its remote provider cancels an
// error answer's body without reading it. Control characters are escaped
// as the logging package escapes them (internal/escape_controls.ts).
import { escapeControls } from "../internal/escape_controls.ts";

/** Bytes of an error body read at most. */
export const SNIPPET_READ_BYTES = 4096;

/** Characters of an error body shown at most. */
export const SNIPPET_CHARS = 200;

// A secret cut in two by the read bound cannot be recognised by the mask, so
// the last characters of a cut read are never shown.
const CUT_MARGIN = 256;

/**
 * Reads at most {@linkcode SNIPPET_READ_BYTES} of the body, cancels the rest,
 * and returns its start: masked, trimmed, at most {@linkcode SNIPPET_CHARS}
 * characters, control characters escaped (`\x1b`), so a collector's answer
 * can neither show a secret nor drive the terminal an error is printed on.
 * Never throws: a body that fails to read gives what arrived before.
 */
export async function readSnippet(
  response: Response,
  mask: (text: string) => string,
): Promise<string> {
  const body = response.body;
  if (body === null) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  let cut = false;
  try {
    while (bytes < SNIPPET_READ_BYTES) {
      const read = await reader.read();
      if (read.done) break;
      const room = SNIPPET_READ_BYTES - bytes;
      const chunk = read.value.length > room
        ? read.value.subarray(0, room)
        : read.value;
      if (chunk !== read.value) cut = true;
      bytes += chunk.length;
      text += decoder.decode(chunk, { stream: true });
    }
    if (bytes >= SNIPPET_READ_BYTES) cut = true;
  } catch {
    // The connection broke, or the request timed out: show what arrived.
  } finally {
    reader.cancel().catch(() => {});
  }
  // Masked before it is cut, so a secret across the cut is masked too.
  let masked = mask(text);
  if (cut) masked = masked.slice(0, Math.max(0, masked.length - CUT_MARGIN));
  return escapeControls(masked.trim().slice(0, SNIPPET_CHARS));
}
