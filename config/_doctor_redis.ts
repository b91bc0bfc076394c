// The Redis check of `--connect`: a raw RESP exchange over node:net (AUTH
// with the configured password when there is one, then PING), under the
// timeout. Nothing is read or written in the store.
import { createConnection } from "node:net";
import { describeNetworkError } from "../internal/network_error.ts";
import type { ConfigurationManager } from "./mod.ts";
import { type Check, rememberSecret } from "./_doctor_report.ts";
import { from, text } from "./_doctor_values.ts";
import { kitConfigurationSections } from "./kit_configuration_keys.ts";

const GROUP = "Services" as const;

// Longest reply line read before giving up on the server.
const MAX_REPLY = 4096;

// One RESP command as an array of bulk strings.
function command(...parts: string[]): string {
  return `*${parts.length}\r\n` +
    parts.map((part) =>
      `$${new TextEncoder().encode(part).length}\r\n${part}\r\n`
    ).join("");
}

/** Sends commands to a Redis server and collects one reply line per command. */
function redisExchange(
  host: string,
  port: number,
  commands: readonly string[],
  timeout: number,
): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    const replies: string[] = [];
    let buffer = "";
    const timer = setTimeout(
      () => finish(new Error(`no answer within ${timeout} ms`)),
      timeout,
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
            : `the server closed the connection after ${replies.at(-1)}`,
        ),
      ));
    socket.once("connect", () => socket.write(commands.join("")));
    socket.on("data", (data: Uint8Array) => {
      buffer += new TextDecoder().decode(data);
      let end;
      while ((end = buffer.indexOf("\r\n")) >= 0) {
        replies.push(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        // An error ends the exchange: later replies would only repeat it.
        if (replies.length === commands.length || replies.at(-1)![0] === "-") {
          finish();
          return;
        }
      }
      // Not Redis (a line this long is no reply to AUTH or PING).
      if (buffer.length > MAX_REPLY) {
        finish(
          new Error(
            `the answer is not Redis's (no line end in ${MAX_REPLY} characters)`,
          ),
        );
      }
    });
  });
}

/** Redis from `cache:redis:*` answers PING (after AUTH with its password). */
export async function checkRedis(
  config: ConfigurationManager,
  timeout: number,
): Promise<Check> {
  const name = "Redis";
  const host = text(config, "cache:redis:host");
  if (host === undefined) {
    return {
      group: GROUP,
      name,
      status: "skip",
      message: "cache:redis:host (REDIS_HOST) is not set",
    };
  }
  const portText = text(config, "cache:redis:port") ?? "6379";
  const port = Number(portText);
  // The bounds of the key's one declaration.
  const { min, max } = kitConfigurationSections.cache.redis.port;
  if (!Number.isInteger(port) || port < min || port > max) {
    return {
      group: GROUP,
      name,
      status: "fail",
      message: `${from(config, "cache:redis:port")} is not a port: ${portText}`,
      advice:
        `set REDIS_PORT (cache:redis:port) to a number from ${min} to ${max}`,
    };
  }
  const password = text(config, "cache:redis:password");
  rememberSecret(password);
  const commands = password === undefined
    ? [command("PING")]
    : [command("AUTH", password), command("PING")];
  const where = `${host}:${port}`;
  const withPassword = password === undefined
    ? "without a password"
    : `with the password of ${from(config, "cache:redis:password")}`;
  try {
    const replies = await redisExchange(host, port, commands, timeout);
    const last = replies.at(-1) ?? "";
    if (last === "+PONG") {
      return {
        group: GROUP,
        name,
        status: "pass",
        message: `${where} answered PING ${withPassword}`,
      };
    }
    const noAuth = last.startsWith("-NOAUTH");
    const wrongPass = /WRONGPASS|invalid password/i.test(last);
    return {
      group: GROUP,
      name,
      status: "fail",
      message: `${where} answered ${last} (${withPassword})`,
      advice: noAuth
        ? "the server requires a password: set REDIS_PASSWORD (cache:redis:password) in the environment, never in a committed file"
        : wrongPass
        ? "the server refuses the password: set REDIS_PASSWORD to the server's password"
        : /without any password/i.test(last)
        ? "the server has no password: unset REDIS_PASSWORD (cache:redis:password), or give the server one"
        : "check the Redis server's log for what it refused",
    };
  } catch (error) {
    return {
      group: GROUP,
      name,
      status: "fail",
      message: `${where} (${
        from(config, "cache:redis:host")
      }) did not answer: ${describeNetworkError(error)}`,
      advice:
        "start the Redis server, or set REDIS_HOST and REDIS_PORT to where it runs",
    };
  }
}
