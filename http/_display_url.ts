// An address as error messages show it: without user name, password, query
// string and fragment, where secrets (tokens, API keys) tend to travel.

/** `url` without credentials, query and fragment (`?…` marks a query). */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const cut = url.search(/[?#]/);
    return cut < 0 ? url : url.slice(0, cut) + (url[cut] === "?" ? "?…" : "");
  }
  // Not `origin`: a scheme other than http(s) (an ftp: redirect, say) has the
  // origin "null".
  const authority = parsed.href.startsWith(parsed.protocol + "//")
    ? "//" + parsed.host
    : "";
  return parsed.protocol + authority + parsed.pathname +
    (parsed.search === "" ? "" : "?…");
}
