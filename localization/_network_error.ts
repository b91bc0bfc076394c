// What went wrong on the network, in one line: the error's own message and
// the causes under it (Node's fetch says only "fetch failed"; the reason,
// such as "connect ECONNREFUSED 127.0.0.1:4010", is its cause).
import { pageAddress } from "../core/mod.ts";

/** The message of an error followed by its causes' messages, in parentheses. */
export function describeNetworkError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current != null; depth++) {
    let text = current instanceof Error ? current.message : String(current);
    if (text === "" && current instanceof AggregateError) {
      text = current.errors.map((item) =>
        item instanceof Error ? item.message : String(item)
      ).join("; ");
    }
    const code = (current as { code?: unknown }).code;
    if (text === "" && typeof code === "string") text = code;
    if (text !== "" && !parts.some((part) => part.includes(text))) {
      parts.push(text);
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  if (parts.length === 0) return "unknown error";
  return parts.length === 1
    ? parts[0]
    : `${parts[0]} (${parts.slice(1).join(": ")})`;
}

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
