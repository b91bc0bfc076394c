// How the requests of HttpClient meet a redirect: "manual", so that the
// client follows it itself (_redirect.ts) and decides which headers go
// along. The browser flavour (_redirect_mode_browser.ts) leaves it to the
// page's fetch, since a page cannot read a redirect's Location.

/** The `redirect` mode of the client's requests. */
export const REDIRECT_MODE: RequestRedirect = "manual";
