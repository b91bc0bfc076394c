// Internal: masks secrets in text that quotes a response body or an error
// from the network (which may repeat the request URL). Until core offers a
// shared rule, this covers the configured secrets (the API key, GA4's API
// secret, in plain and URL-encoded form), `Bearer`/`Basic` credentials, the
// password of a `user:password@` URL part, and the values of query
// parameters and JSON-ish fields named like secrets.

/** What a masked secret is written as. */
export const MASK = "***";

// Names whose values are secrets: api_key, apiKey, x-api-key, api_secret,
// secret, token, access_token, password, passwd, authorization…
const SECRET_NAME =
  "(?:[A-Za-z0-9_-]*(?:api[_-]?key|api[_-]?secret|secret|token|passw(?:or)?d|authorization|credentials?))";

const RULES: readonly [RegExp, string][] = [
  // Authorization schemes.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${MASK}`],
  // scheme://user:password@host
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/@:]*):[^\s/@]*@/gi, `$1:${MASK}@`],
  // ?api_secret=… &token=…
  [new RegExp(`([?&;]${SECRET_NAME}=)[^&#\\s"']*`, "gi"), `$1${MASK}`],
  // "apiKey": "…", apiKey=…, apiKey: …
  [
    new RegExp(
      `(["']?${SECRET_NAME}["']?\\s*[:=]\\s*["']?)[^"'\\s,;&}]+`,
      "gi",
    ),
    `$1${MASK}`,
  ],
];

/**
 * Returns a function that masks `secrets` (each value as given and
 * URL-encoded) and anything the rules above match.
 */
export function secretMasker(
  secrets: readonly (string | undefined)[],
): (text: string) => string {
  const values = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret === "") continue;
    values.add(secret);
    values.add(encodeURIComponent(secret));
    values.add(new URLSearchParams({ s: secret }).toString().slice(2));
  }
  // Longest first, so that a secret containing another is masked whole.
  const ordered = [...values].sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const value of ordered) out = out.split(value).join(MASK);
    for (const [pattern, replacement] of RULES) {
      out = out.replace(pattern, replacement);
    }
    return out;
  };
}
