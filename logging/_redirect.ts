// Which redirects a remote log delivery follows. The POST carries the API
// key and the entries, so fetch is told not to follow redirects itself (it
// would take both to any origin the collector names); RemoteDelivery follows
// one only within the endpoint's origin, and only with a status that keeps
// the method and the body.
//
// The analytics package makes the same decision for its collectors in its
// own file: the npm packages are bundled per module folder and share code
// only through a module's public exports.

/** Redirects within the endpoint's origin followed for one POST at most. */
export const MAX_REDIRECTS = 5;

// A 301, 302 or 303 would turn the POST into a GET without its body.
const REPOST_STATUSES = new Set([307, 308]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A redirect answer that was not followed; `detail` says why. */
export class RedirectNotFollowed extends Error {
  /** The answer's status (0 for a browser's opaque redirect). */
  readonly status: number;
  /** Follows the status in a message: `" with a redirect to …"`, `": …"`. */
  readonly detail: string;

  constructor(status: number, detail: string) {
    super(`answered ${status}${detail}`);
    this.name = "RedirectNotFollowed";
    this.status = status;
    this.detail = detail;
  }
}

/**
 * Where a redirect answer to a POST to `from` leads: `undefined` when the
 * answer is no redirect, the address to POST to next when it stays in the
 * origin of `from`, or the refusal. Only origins appear in a refusal: the
 * new address's path and query may hold a token.
 */
export function followRedirect(
  response: Response,
  from: string,
  redirects: number,
): string | RedirectNotFollowed | undefined {
  const status = response.status;
  const fromOrigin = new URL(from).origin;
  // In a browser a manual redirect is opaque: where it leads is hidden.
  if (response.type === "opaqueredirect") {
    return new RedirectNotFollowed(
      status,
      ` (a redirect the browser does not reveal), not followed: the API key and the entries go only to ${fromOrigin} (set endpoint to the address that accepts them)`,
    );
  }
  if (!REDIRECT_STATUSES.has(status)) return undefined;
  const location = response.headers.get("location");
  let next: URL | undefined;
  try {
    next = location === null ? undefined : new URL(location, from);
  } catch {
    next = undefined;
  }
  if (next === undefined) {
    return new RedirectNotFollowed(
      status,
      ": a redirect without a valid Location, not followed",
    );
  }
  if (next.origin !== fromOrigin) {
    return new RedirectNotFollowed(
      status,
      ` with a redirect to another origin, ${next.origin}, not followed: the API key and the entries go only to ${fromOrigin} (set endpoint to the address that accepts them)`,
    );
  }
  if (!REPOST_STATUSES.has(status)) {
    return new RedirectNotFollowed(
      status,
      ` with a redirect to ${next.pathname}, not followed: it would turn the POST into a GET without the entries (answer 307 or 308, or set endpoint to the new address)`,
    );
  }
  if (redirects >= MAX_REDIRECTS) {
    return new RedirectNotFollowed(
      status,
      `: more than ${MAX_REDIRECTS} redirects, not followed further`,
    );
  }
  return next.href;
}
