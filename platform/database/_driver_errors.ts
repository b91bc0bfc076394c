// The drivers' errors (pg's DatabaseError and socket errors, PGlite's
// errors) as Kit's: the server refused the statement, the statement ran out
// of time, or the server cannot be reached. What the driver attached that
// may carry values (PGlite's `params`, the server's `detail`) is left
// behind: Kit's error keeps names (constraint, table, column), never data.
import { maskSecretText } from "../../core/mod.ts";
import { DatabaseError } from "./database_error.ts";
import { DatabaseQueryError } from "./database_query_error.ts";
import { DatabaseTimeoutError } from "./database_timeout_error.ts";
import { DatabaseUnavailableError } from "./database_unavailable_error.ts";

/** What a translated error says besides the driver's error. */
export interface ErrorContext {
  /** The statement's first line. */
  readonly statement: string;
  /** The server's address, password masked. */
  readonly address: string;
  /** database:timeout, for a statement that ran out of time. */
  readonly timeout: number;
  /** Keep the server's `detail` in the message. */
  readonly includeDetail: boolean;
}

interface DriverError {
  message?: unknown;
  code?: unknown;
  position?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
  detail?: unknown;
}

const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ECONNABORTED",
]);

// pg's own words for a link that is gone or could not be made.
const LINK_LOST =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|Connection ended)/i;

// SQLSTATEs that say the server is not there for us: connection exceptions
// (class 08, but a protocol violation is about the statement), shutting
// down or starting (57P0x), too many clients, a bad login or database.
function isUnavailableState(state: string): boolean {
  return (state.startsWith("08") && state !== "08P01") ||
    state === "57P01" || state === "57P02" || state === "57P03" ||
    state === "53300" || state === "28P01" || state === "28000" ||
    state === "3D000";
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** pg's message for a statement cut short on the client's side. */
const CLIENT_TIMEOUT = "Query read timeout";

/**
 * Whether the driver's error means the connection it came from cannot be
 * trusted again: the link is gone, or a statement was cut short on the
 * client's side while the server may still be running it.
 *
 * @param error What the driver threw.
 */
export function spoilsConnection(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (error instanceof DatabaseError) return false;
  const driver = (error ?? {}) as DriverError;
  const message = text(driver.message) ?? "";
  const code = text(driver.code);
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    return isUnavailableState(code);
  }
  return message === CLIENT_TIMEOUT || LINK_LOST.test(message) ||
    (code !== undefined && SOCKET_CODES.has(code));
}

/**
 * The driver's error as Kit's.
 *
 * @param error What the driver threw.
 * @param context The statement and the address.
 * @returns Kit's error.
 */
export function translateError(
  error: unknown,
  context: ErrorContext,
): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const driver = (error ?? {}) as DriverError;
  const message = maskSecretText(
    text(driver.message) ?? String(error),
  );
  const code = text(driver.code);
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    if (code === "57014" && /statement timeout/i.test(message)) {
      return new DatabaseTimeoutError(context.statement, context.timeout);
    }
    if (isUnavailableState(code)) {
      return new DatabaseUnavailableError(
        context.address,
        `${message} (${code})`,
      );
    }
    const position = Number(driver.position);
    return new DatabaseQueryError(message, {
      statement: context.statement,
      sqlState: code,
      ...(Number.isInteger(position) && position > 0 ? { position } : {}),
      ...(text(driver.constraint) !== undefined
        ? { constraint: text(driver.constraint) }
        : {}),
      ...(text(driver.table) !== undefined
        ? { table: text(driver.table) }
        : {}),
      ...(text(driver.column) !== undefined
        ? { column: text(driver.column) }
        : {}),
      ...(context.includeDetail && text(driver.detail) !== undefined
        ? { detail: maskSecretText(text(driver.detail)!) }
        : {}),
    });
  }
  if (
    (code !== undefined && SOCKET_CODES.has(code)) || LINK_LOST.test(message)
  ) {
    return new DatabaseUnavailableError(context.address, message);
  }
  if (message === CLIENT_TIMEOUT) {
    return new DatabaseTimeoutError(context.statement, context.timeout);
  }
  return new DatabaseQueryError(message, { statement: context.statement });
}
