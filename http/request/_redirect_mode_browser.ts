// Browser flavour of _redirect_mode_node.ts (chosen by scripts/_variants.ts under
// the `browser` condition): a page's fetch answers a "manual" redirect with
// an opaque response that hides the Location, so the browser follows
// redirects itself, by its own rules (it drops Authorization when the origin
// changes, and stops after 20).

/** The `redirect` mode of the client's requests. */
export const REDIRECT_MODE: RequestRedirect = "follow";
