// A raw RESP exchange for the doctor's Redis checks: one TCP connection over
// node:net, the commands written at once, the replies read back whole
// (simple lines, bulk strings such as CLUSTER INFO's, arrays such as
// SENTINEL get-master-addr-by-name's), everything under the timeout and
// with a bound on what is read.
import { Buffer } from "node:buffer";
import { createConnection } from "node:net";

// Longest reply line read before giving up on the server.
const MAX_REPLY = 4096;
// Largest bulk string read (CLUSTER INFO is well under it).
const MAX_BULK = 64 * 1024;
// Most items in an array reply (the doctor asks for two at most).
const MAX_ITEMS = 64;

/** One reply, as read. */
export type RespReply =
  /** `+OK`, `-ERR …`, `:1`, or a line that is not RESP, as received. */
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "bulk"; readonly value: string | null }
  | { readonly kind: "array"; readonly items: readonly RespReply[] | null };

/** One RESP command as an array of bulk strings. */
export function command(...parts: string[]): string {
  return `*${parts.length}\r\n` +
    parts.map((part) =>
      `$${new TextEncoder().encode(part).length}\r\n${part}\r\n`
    ).join("");
}

/** Whether a reply is an error reply (`-…`) or a line that is not RESP. */
export function isFailure(reply: RespReply | undefined): boolean {
  return reply === undefined ||
    (reply.kind === "line" && !/^[+:]/.test(reply.text));
}

/** A reply in a message: its line, a bulk string quoted, an array listed. */
export function describeReply(reply: RespReply | undefined): string {
  if (reply === undefined) return "nothing";
  switch (reply.kind) {
    case "line":
      return reply.text;
    case "bulk":
      return reply.value === null
        ? "a null reply"
        : JSON.stringify(reply.value.slice(0, 200));
    case "array":
      return reply.items === null
        ? "a null reply"
        : `[${reply.items.map(describeReply).join(", ")}]`;
  }
}

/** Not Redis on the other end. */
class NotRedisError extends Error {
  constructor(detail: string) {
    super(`the answer is not Redis's (${detail})`);
    this.name = "NotRedisError";
  }
}

// One reply from `offset`, with where the next one starts; undefined while
// the reply is incomplete.
function parse(
  buffer: Buffer,
  offset: number,
): { reply: RespReply; next: number } | undefined {
  const end = buffer.indexOf("\r\n", offset);
  if (end < 0) {
    // Not Redis (a line this long is no reply to AUTH, PING or INFO).
    if (buffer.length - offset > MAX_REPLY) {
      throw new NotRedisError(`no line end in ${MAX_REPLY} characters`);
    }
    return undefined;
  }
  const line = buffer.toString("utf8", offset, end);
  const next = end + 2;
  const size = Number(line.slice(1));
  if (line[0] === "$") {
    if (!Number.isInteger(size) || size > MAX_BULK) {
      throw new NotRedisError(`a bulk string of ${line.slice(1)} bytes`);
    }
    if (size < 0) return { reply: { kind: "bulk", value: null }, next };
    if (buffer.length < next + size + 2) return undefined;
    return {
      reply: {
        kind: "bulk",
        value: buffer.toString("utf8", next, next + size),
      },
      next: next + size + 2,
    };
  }
  if (line[0] === "*") {
    if (!Number.isInteger(size) || size > MAX_ITEMS) {
      throw new NotRedisError(`an array of ${line.slice(1)} items`);
    }
    if (size < 0) return { reply: { kind: "array", items: null }, next };
    const items: RespReply[] = [];
    let at = next;
    for (let i = 0; i < size; i++) {
      const item = parse(buffer, at);
      if (item === undefined) return undefined;
      items.push(item.reply);
      at = item.next;
    }
    return { reply: { kind: "array", items }, next: at };
  }
  return { reply: { kind: "line", text: line }, next };
}

/**
 * Sends commands to a Redis server and collects one reply per command. An
 * error reply ends the exchange (later replies would only repeat it), so
 * the list can be shorter than the commands.
 *
 * @throws {Error} When the connection fails or closes early, the timeout
 * passes, or the answer is not Redis's.
 */
export function redisExchange(
  host: string,
  port: number,
  commands: readonly string[],
  timeout: number,
): Promise<RespReply[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    const replies: RespReply[] = [];
    let buffer: Buffer = Buffer.alloc(0);
    const timer = setTimeout(
      () => finish(new Error(`no answer within ${timeout} ms`)),
      Math.max(1, timeout),
    );
    (timer as { unref?: () => void }).unref?.();
    let settled = false;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(replies);
    };
    socket.once("error", (error) => finish(error));
    // A server that closes the connection without a full answer (another
    // service on the port, a TLS-only Redis) ends the exchange at once: the
    // timer is unref'd, so waiting for it alone would let the process exit
    // with the check unsettled.
    socket.once("close", () =>
      finish(
        new Error(
          replies.length === 0
            ? "the server closed the connection without an answer"
            : `the server closed the connection after ${
              describeReply(replies.at(-1))
            }`,
        ),
      ));
    socket.once("connect", () => socket.write(commands.join("")));
    socket.on("data", (data: Uint8Array) => {
      buffer = Buffer.concat([buffer, data]);
      try {
        let parsed;
        while ((parsed = parse(buffer, 0)) !== undefined) {
          replies.push(parsed.reply);
          buffer = buffer.subarray(parsed.next);
          if (replies.length === commands.length || isFailure(parsed.reply)) {
            finish();
            return;
          }
        }
      } catch (error) {
        finish(error as Error);
      }
    });
  });
}

/** A Redis address in messages: `host:port`, an IPv6 host in brackets. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/** `host:port`, with an IPv6 host in brackets. */
export function addressText(address: RedisAddress): string {
  return address.host.includes(":")
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
}

/**
 * What to do about a refused password, for a server (or sentinel) whose
 * password is set by `variable` (`key`); undefined for other replies.
 */
export function passwordAdvice(
  reply: string,
  variable: string,
  key: string,
): string | undefined {
  if (reply.startsWith("-NOAUTH")) {
    return `the server requires a password: set ${variable} (${key}) in the environment, never in a committed file`;
  }
  if (/WRONGPASS|invalid password/i.test(reply)) {
    return `the server refuses the password: set ${variable} to the server's password`;
  }
  if (/without any password/i.test(reply)) {
    return `the server has no password: unset ${variable} (${key}), or give the server one`;
  }
  return undefined;
}
