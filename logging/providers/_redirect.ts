// Which redirects a remote log delivery follows, in the words of the
// logging package. The POST carries the API key and the entries, so fetch is
// told not to follow redirects itself; the rule (same origin, 307 or 308, a
// few at most) is the one analytics' collectors follow too
// (internal/delivery/redirect.ts).
import {
  MAX_REDIRECTS,
  redirectVerdict,
} from "../../internal/delivery/redirect.ts";

export { MAX_REDIRECTS };

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
  const verdict = redirectVerdict(response, from, redirects);
  if (verdict === undefined) return undefined;
  if ("follow" in verdict) return verdict.follow;
  const status = response.status;
  switch (verdict.refused) {
    case "opaque":
      return new RedirectNotFollowed(
        status,
        ` (a redirect the browser does not reveal), not followed: the API key and the entries go only to ${verdict.from} (set endpoint to the address that accepts them)`,
      );
    case "no-location":
      return new RedirectNotFollowed(
        status,
        ": a redirect without a valid Location, not followed",
      );
    case "other-origin":
      return new RedirectNotFollowed(
        status,
        ` with a redirect to another origin, ${verdict.to}, not followed: the API key and the entries go only to ${verdict.from} (set endpoint to the address that accepts them)`,
      );
    case "method-change":
      return new RedirectNotFollowed(
        status,
        ` with a redirect to ${verdict.to}, not followed: it would turn the POST into a GET without the entries (answer 307 or 308, or set endpoint to the new address)`,
      );
    case "too-many":
      return new RedirectNotFollowed(
        status,
        `: more than ${MAX_REDIRECTS} redirects, not followed further`,
      );
  }
}
