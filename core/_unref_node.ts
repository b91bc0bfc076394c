// npm flavour of core's unref (chosen by scripts/_variants.ts in place of
// _unref_deno.ts): Node.js and Bun return Timeout objects with unref();
// browsers return numbers and have nothing to unref.

/** Unrefs a timer handle in Node.js and Bun; no-op in browsers. */
export function unref(handle: unknown): void {
  if (
    typeof handle === "object" && handle !== null &&
    typeof (handle as { unref?: unknown }).unref === "function"
  ) {
    (handle as { unref(): void }).unref();
  }
}
