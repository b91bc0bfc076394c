// The full address a localization load failed at, for its error message.
import { pageAddress } from "../../internal/page_address.ts";

/**
 * The full address of a request: the URL an HTTP client's error names
 * (the client resolved a relative path against its base), else `address`
 * resolved against the page in a browser, else `address` as it is.
 */
export function fullAddress(address: string, error?: unknown): string {
  const url = (error as { url?: unknown } | null | undefined)?.url;
  if (typeof url === "string" && /^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    return url;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(address)) return address;
  const page = pageAddress();
  if (page === undefined) return address;
  try {
    return new URL(address, page).href;
  } catch {
    return address;
  }
}
