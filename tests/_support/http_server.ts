// A real HTTP server on loopback for tests, built on node:http so the same
// test files run under Deno, Node and Bun. Each test starts its own server on
// an ephemeral port and closes it at the end.
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as the server saw it, body read as text. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** Handles one request; `body` is the request body already read as text. */
export type TestHandler = (
  request: RecordedRequest,
  response: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  readonly url: string;
  /** Every request received so far, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Replaces the handler for the following requests. */
  setHandler(handler: TestHandler): void;
  /** Destroys open connections (simulates a dropped connection). */
  dropConnections(): void;
  /** Closes the server and every connection. */
  close(): Promise<void>;
  /** For `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts a server on 127.0.0.1 with an ephemeral port. */
export async function startTestServer(
  handler: TestHandler = (_request, response) => {
    response.statusCode = 404;
    response.end();
  },
): Promise<TestServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((raw, response) => {
    const chunks: Uint8Array[] = [];
    raw.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    raw.on("end", () => {
      const request: RecordedRequest = {
        method: raw.method ?? "GET",
        url: raw.url ?? "/",
        headers: raw.headers,
        body: new TextDecoder().decode(concat(chunks)),
      };
      requests.push(request);
      Promise.resolve(current(request, response, raw)).catch((error) => {
        response.statusCode = 599;
        response.end(String(error));
      });
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler(next) {
      current = next;
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Sends a JSON response. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    "content-type": "application/json",
    ...headers,
  });
  response.end(JSON.stringify(body));
}

/**
 * Starts a collector: a server that records every request (in `requests`)
 * and answers each with `status` and `body` as JSON, 200 `{}` by default.
 */
export function startCollector(
  status = 200,
  body: unknown = {},
): Promise<TestServer> {
  return startTestServer((_request, response) =>
    sendJson(response, status, body)
  );
}

/**
 * Starts a collector that fails first: it answers `failStatus` (503 by
 * default) to the first `failures` requests, then 200 `{}`, recording them
 * all.
 */
export async function startFailingFirst(
  failures = 1,
  failStatus = 503,
): Promise<TestServer> {
  const server: TestServer = await startTestServer((_request, response) =>
    sendJson(
      response,
      server.requests.length <= failures ? failStatus : 200,
      {},
    )
  );
  return server;
}
