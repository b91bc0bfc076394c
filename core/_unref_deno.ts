// Deno flavour of core's unref (the npm build uses _unref_node.ts instead):
// Deno's setTimeout returns a number, unref'd through Deno.unrefTimer.
// Browsers have no Deno global and nothing to unref.
interface DenoTimers {
  unrefTimer(id: number): void;
}

/** Unrefs a timer handle in Deno, Node.js and Bun; no-op in browsers. */
export function unref(handle: unknown): void {
  if (typeof handle === "number") {
    (globalThis as { Deno?: DenoTimers }).Deno?.unrefTimer(handle);
  } else if (
    typeof handle === "object" && handle !== null &&
    typeof (handle as { unref?: unknown }).unref === "function"
  ) {
    (handle as { unref(): void }).unref();
  }
}
