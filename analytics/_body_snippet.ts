// Internal: the start of an error answer's body, for the failure message.
//
// A collector may answer an error with a body of any length (a proxy's HTML
// page, or a stream that never ends); only a short part of it is ever shown,
// so only that much is read (internal/delivery/post_json.ts reads it) and the rest is
// cancelled, which also closes the connection instead of draining it.
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
 * The start of an answer's body as shown in a failure: masked, trimmed, at
 * most {@linkcode SNIPPET_CHARS} characters, control characters escaped
 * (`\x1b`), so a collector's answer can neither show a secret nor drive the
 * terminal an error is printed on. `text` is what was read of the body (at
 * most {@linkcode SNIPPET_READ_BYTES}, internal/delivery/post_json.ts's bound);
 * `cut` says whether the body went on.
 */
export function snippetOf(
  text: string,
  cut: boolean,
  mask: (text: string) => string,
): string {
  // Masked before it is cut, so a secret across the cut is masked too.
  let masked = mask(text);
  if (cut) masked = masked.slice(0, Math.max(0, masked.length - CUT_MARGIN));
  return escapeControls(masked.trim().slice(0, SNIPPET_CHARS));
}
