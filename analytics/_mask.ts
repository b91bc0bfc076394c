// Internal: masks secrets in text that quotes a response body or an error
// from the network (which may repeat the request URL), with core's one
// secret rule (`maskSecretText`: URL passwords, Bearer/Basic credentials,
// secret-named `name=value` pairs and JSON members) plus the secrets the
// provider was configured with (the API key, GA4's API secret, credential
// header values), as given and URL-encoded.
import { maskSecretText } from "../core/mod.ts";

/**
 * Returns a function that masks `secrets` (each value as given and
 * URL-encoded) and anything core's secret rule matches.
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
  const literals = [...values].sort((a, b) => b.length - a.length);
  return (text: string): string => maskSecretText(text, literals);
}
