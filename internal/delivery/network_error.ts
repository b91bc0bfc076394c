/**
 * What went wrong on the network, in one line: the error's own message
 * followed by the messages of its causes, in parentheses. Node.js's `fetch`
 * says only "fetch failed"; the reason, such as
 * `connect ECONNREFUSED 127.0.0.1:4010`, is in its cause. Kit's
 * configuration and localization sources name failures this way.
 *
 * @param error What a network call threw.
 * @returns One line, or `"unknown error"` when nothing says what happened.
 *
 * @example Usage
 * ```ts
 * import { describeNetworkError } from "./network_error.ts";
 *
 * const error = new TypeError("fetch failed", {
 *   cause: new Error("connect ECONNREFUSED 127.0.0.1:4010"),
 * });
 * describeNetworkError(error);
 * // "fetch failed (connect ECONNREFUSED 127.0.0.1:4010)"
 * ```
 */
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
