/**
 * The address of the page the code runs in: `location.href` in a browser (or
 * a worker), `undefined` in Deno without `--location`, Node.js and Bun. Kit's
 * HTTP client, remote log provider and analytics providers resolve relative
 * addresses (`/api`, `/logs`) against it.
 *
 * @returns The page's address, or `undefined` where there is no page.
 *
 * @example Usage
 * ```ts
 * import { pageAddress } from "./page_address.ts";
 *
 * const base = pageAddress(); // undefined outside a browser
 * new URL("/logs", base ?? "http://localhost:3000").href;
 * ```
 */
export function pageAddress(): string | undefined {
  try {
    const location = (globalThis as { location?: { href?: unknown } })
      .location;
    return typeof location?.href === "string" ? location.href : undefined;
  } catch {
    // Deno before 2 threw when `location` was read without --location.
    return undefined;
  }
}
