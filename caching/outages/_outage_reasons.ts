// How the Redis provider reads a failure: whether a reply means "not now"
// (an outage, not a bad command) or a password problem, and what an outage
// report says went wrong and what to do. Shared by the store's state and the
// outages of a cluster's primaries.
import { RedisTimeoutError } from "../redis/_deadlines.ts";

/**
 * `CLUSTERDOWN`, `TRYAGAIN`, `MASTERDOWN`, `LOADING`: the server is there but
 * cannot serve the command until a failover, a resync or a restart ends.
 */
export function isNotNowReply(error: unknown): boolean {
  return /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING)\b/.test(
    error instanceof Error ? error.message : String(error),
  );
}

/** `NOAUTH`/`WRONGPASS`: a missing or refused password, not a bad command. */
export function isAuthReply(error: unknown): boolean {
  return /^(NOAUTH|WRONGPASS)/.test(
    error instanceof Error ? error.message : String(error),
  );
}

/** What went wrong and what to do, for an outage report, when known. */
export function outageReason(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RedisTimeoutError) {
    return `${message}: the server is frozen, overloaded, or not Redis`;
  }
  if (/^CLUSTERDOWN/.test(message)) {
    return `${message}: the cluster refuses commands while a failed primary's slots wait for a replica (with cluster-require-full-coverage no, the other primaries keep serving)`;
  }
  if (/^NOAUTH/.test(message)) {
    return "the server requires a password: set the password option (REDIS_PASSWORD / cache:redis:password with fromConfiguration)";
  }
  if (/without any password configured/i.test(message)) {
    return "a password was sent but the server has none: remove the password option (REDIS_PASSWORD / cache:redis:password)";
  }
  if (/^WRONGPASS|invalid password|invalid username-password/i.test(message)) {
    return "the password (or user name) was refused: check the password and username options (REDIS_PASSWORD / cache:redis:password)";
  }
  return undefined;
}

/** `text` with every occurrence of `password` masked. */
export function withoutPassword(
  text: string,
  password: string | undefined,
): string {
  return password !== undefined && password !== ""
    ? text.split(password).join("***")
    : text;
}
