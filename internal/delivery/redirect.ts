// Which redirects a POST that carries a key (remote log delivery, analytics
// collectors) follows. fetch is told not to follow redirects itself: it
// would take the key and the body to any origin the collector names. The
// sender follows one only within the origin it posted to, only with a
// status that keeps the method and the body, and only a few times; each
// module words the refusal for its own users.

/** Redirects within the endpoint's origin followed for one POST at most. */
export const MAX_REDIRECTS = 5;

// A 301, 302 or 303 would turn the POST into a GET without its body.
const REPOST_STATUSES = new Set([307, 308]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What to do with a redirect answer. */
export type RedirectVerdict =
  /** POST again, to this address (in the same origin). */
  | { readonly follow: string }
  /** A browser's opaque redirect: where it leads is hidden. */
  | { readonly refused: "opaque"; readonly from: string }
  /** No Location, or one that is no URL. */
  | { readonly refused: "no-location"; readonly from: string }
  /** Another origin (`to` is that origin only). */
  | { readonly refused: "other-origin"; readonly from: string; to: string }
  /** 301, 302 or 303 (`to` is the new path only). */
  | { readonly refused: "method-change"; readonly from: string; to: string }
  /** More than {@linkcode MAX_REDIRECTS}. */
  | { readonly refused: "too-many"; readonly from: string };

/**
 * The verdict on an answer to a POST to `from`: `undefined` when it is no
 * redirect. A refusal names origins and a path only, never a query, which
 * may hold a token.
 *
 * @param response The answer (fetched with `redirect: "manual"`).
 * @param from The address the POST went to.
 * @param redirects How many redirects this POST has followed already.
 * @returns Where to POST next, why not, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { redirectVerdict } from "./redirect.ts";
 *
 * const answer = new Response(null, { status: 307, headers: { location: "/v2" } });
 * redirectVerdict(answer, "http://127.0.0.1:4318/v1", 0); // { follow: "http://127.0.0.1:4318/v2" }
 * ```
 */
export function redirectVerdict(
  response: Response,
  from: string,
  redirects: number,
): RedirectVerdict | undefined {
  const fromOrigin = new URL(from).origin;
  if (response.type === "opaqueredirect") {
    return { refused: "opaque", from: fromOrigin };
  }
  const status = response.status;
  if (!REDIRECT_STATUSES.has(status)) return undefined;
  const location = response.headers.get("location");
  let next: URL | undefined;
  try {
    next = location === null ? undefined : new URL(location, from);
  } catch {
    next = undefined;
  }
  if (next === undefined) return { refused: "no-location", from: fromOrigin };
  if (next.origin !== fromOrigin) {
    return { refused: "other-origin", from: fromOrigin, to: next.origin };
  }
  if (!REPOST_STATUSES.has(status)) {
    return { refused: "method-change", from: fromOrigin, to: next.pathname };
  }
  if (redirects >= MAX_REDIRECTS) {
    return { refused: "too-many", from: fromOrigin };
  }
  return { follow: next.href };
}
