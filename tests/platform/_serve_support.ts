// Helpers of the serve_* tests: plain HTTP requests on fresh connections
// (node:http, no pooling, so nothing stays open between tests) and raw
// sockets for the timeout, drain and body limit tests. Works in Deno, Node.js and Bun.
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";

/** A response as read in full. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request on its own connection; times out after 5 s by default. */
export function send(
  url: string,
  path: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array;
    timeout?: number;
  } = {},
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const request = httpRequest(new URL(path, url), {
      method: options.method ?? "GET",
      headers: options.headers,
      agent: false,
      timeout: options.timeout ?? 5_000,
    }, (response) => {
      const chunks: Uint8Array[] = [];
      response.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: new TextDecoder().decode(join(chunks)),
        }));
      response.on("error", reject);
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", reject);
    request.end(options.body);
  });
}

function join(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** A raw TCP socket to the server, with what it received and when it closed. */
export interface RawSocket {
  readonly socket: Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves with the milliseconds from connect to close (or rejects after `within` ms). */
  closed(within: number): Promise<number>;
  /** Resolves when `text` was received (or rejects after `within` ms). */
  receivedText(text: string, within: number): Promise<void>;
}

/** Opens a raw connection to `url`'s host and port, writing `first` once connected. */
export function openSocket(url: string, first = ""): Promise<RawSocket> {
  const { hostname, port } = new URL(url);
  return new Promise<RawSocket>((resolve, reject) => {
    let text = "";
    let closedAt: number | undefined;
    const began = Date.now();
    const waiters: (() => void)[] = [];
    const socket = connect(Number(port), hostname, () => {
      if (first !== "") socket.write(first);
      resolve({
        socket,
        received: () => text,
        closed: (within) =>
          untilReceived(
            () => closedAt !== undefined,
            within,
            "the socket to close",
          )
            .then(() => closedAt! - began),
        receivedText: (wanted, within) =>
          untilReceived(() => text.includes(wanted), within, `'${wanted}'`),
      });
    });
    const wake = (): void => waiters.splice(0).forEach((fn) => fn());
    const untilReceived = (
      done: () => boolean,
      within: number,
      what: string,
    ): Promise<void> =>
      new Promise<void>((ok, fail) => {
        const check = (): void => {
          if (done()) {
            clearTimeout(timer);
            ok();
          } else waiters.push(check);
        };
        const timer = setTimeout(() => {
          socket.destroy();
          fail(new Error(`waited ${within} ms for ${what}; received: ${text}`));
        }, within);
        check();
      });
    socket.on("data", (chunk: Uint8Array) => {
      text += new TextDecoder().decode(chunk);
      wake();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closedAt = Date.now();
      wake();
    });
    socket.once("error", (error) => {
      if (closedAt === undefined && text === "") reject(error);
    });
  });
}

/** What {@linkcode uploadPastAnswer} saw. */
export interface UploadPastAnswer {
  /** The answer's status line (`HTTP/1.1 413 Payload Too Large`). */
  statusLine: string;
  /** Bytes the server accepted after its answer began to arrive. */
  bytesAfter: number;
  /** Whether the server closed the connection (else `cap` came first). */
  closed: boolean;
  /** Milliseconds from the answer to the close (or to `cap`). */
  ms: number;
}

/**
 * Sends `head` (a request's line and headers, with the blank line), then body
 * bytes without end (64 KiB chunks, chunked-encoded when `chunked`), for as
 * long as the server takes them: until it closes the connection, or until
 * it accepted `cap` bytes after its answer began to arrive.
 *
 * @throws Error when no answer came within `within` ms, or `cap` was not
 * reached nor the connection closed within it.
 */
export function uploadPastAnswer(
  url: string,
  head: string,
  options: { chunked: boolean; cap: number; within: number },
): Promise<UploadPastAnswer> {
  const { hostname, port } = new URL(url);
  const data = new Uint8Array(64 * 1024).fill(120);
  const chunk = options.chunked
    ? join([
      new TextEncoder().encode(data.byteLength.toString(16) + "\r\n"),
      data,
      new TextEncoder().encode("\r\n"),
    ])
    : data;
  return new Promise<UploadPastAnswer>((resolve, reject) => {
    let text = "";
    let sent = 0;
    let answeredAt: number | undefined;
    let sentBefore = 0;
    let done = false;
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      pump();
    });
    const end = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (answeredAt === undefined) {
        reject(new Error(`no answer before the connection ended: ${text}`));
        return;
      }
      resolve({
        statusLine: text.split("\r\n")[0],
        bytesAfter: sent - sentBefore,
        closed,
        ms: Date.now() - answeredAt,
      });
    };
    const pump = (): void => {
      while (!done) {
        if (answeredAt !== undefined && sent - sentBefore >= options.cap) {
          end(false);
          return;
        }
        sent += chunk.byteLength;
        if (!socket.write(chunk)) {
          socket.once("drain", pump);
          return;
        }
      }
    };
    const timer = setTimeout(() => {
      done = true;
      socket.destroy();
      reject(
        new Error(
          `after ${options.within} ms: ${
            sent - sentBefore
          } bytes accepted after the answer, connection open; received: ${text}`,
        ),
      );
    }, options.within);
    socket.on("data", (received: Uint8Array) => {
      text += new TextDecoder().decode(received);
      if (answeredAt === undefined) {
        answeredAt = Date.now();
        sentBefore = sent;
      }
    });
    // A reset (the server closed with bytes unread) ends it as a close does.
    socket.on("error", () => end(true));
    socket.on("close", () => end(true));
  });
}

/** Whether a connection to `url` is refused. */
export function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise<boolean>((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.on("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("error", () => resolve(true));
  });
}

/** Which runtime runs the test. */
export const RUNTIME: "deno" | "bun" | "node" = "Bun" in globalThis
  ? "bun"
  : "Deno" in globalThis
  ? "deno"
  : "node";

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
