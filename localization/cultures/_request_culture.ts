// The culture of one request for LocalizationManager.forRequest: the query
// parameter, then the cookie, then Accept-Language, matched against the
// supported cultures when the caller or the manager lists them. Not public.
import { pickCulture } from "./_pick_culture.ts";
import { assertCultureName, isCultureName } from "./culture_name.ts";
import type {
  ForRequestOptions,
  LocalizationRequest,
} from "../localization_manager_options.ts";
import { negotiateCulture, parseAcceptLanguage } from "./negotiate_culture.ts";

/**
 * Picks the culture of a request.
 *
 * @param request The request (its URL and headers).
 * @param options The supported cultures, query parameter, cookie, fallback.
 * @param supported The manager's supported cultures, used when `options`
 * gives none.
 * @param fallbackCulture The manager's fallback culture, if any.
 * @param current The manager's current culture.
 * @returns The culture.
 * @throws {InvalidCultureError} When the fallback is not a BCP 47 tag.
 */
export function cultureOfRequest(
  request: LocalizationRequest,
  options: ForRequestOptions,
  supported: readonly string[] | undefined,
  fallbackCulture: string | undefined,
  current: string,
): string {
  const cultures = options.cultures ?? supported;
  const fallback = options.fallback ?? fallbackCulture ?? cultures?.[0] ??
    current;
  const chosen: string[] = [];
  const parameter = options.queryParameter ?? "culture";
  if (parameter !== false) {
    const query = request.url.indexOf("?");
    if (query !== -1) {
      const value = new URLSearchParams(request.url.slice(query + 1)).get(
        parameter,
      );
      if (value !== null && isCultureName(value)) chosen.push(value);
    }
  }
  if (options.cookie !== undefined) {
    const value = cookieValue(request.headers.get("cookie"), options.cookie);
    if (value !== undefined && isCultureName(value)) chosen.push(value);
  }
  const accept = request.headers.get("accept-language");
  if (cultures === undefined) {
    assertCultureName(fallback);
    if (chosen.length !== 0) return chosen[0];
    return parseAcceptLanguage(accept).find(isCultureName) ?? fallback;
  }
  for (const value of chosen) {
    const picked = pickCulture([value], cultures);
    if (picked !== undefined) return picked;
  }
  return negotiateCulture(accept, cultures, fallback);
}

function cookieValue(
  header: string | null,
  name: string,
): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(";")) {
    const cut = part.indexOf("=");
    if (cut === -1 || part.slice(0, cut).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(cut + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}
