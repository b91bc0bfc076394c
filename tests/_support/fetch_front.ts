// A minimal node:http front on loopback for a fetch-style handler (the same
// in Deno, Node.js and Bun), for tests that hand requests to app.handle()
// without Kit's own server: the response body is streamed chunk by chunk,
// and cancelled when the client goes away.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What the front hands each request to. */
export type FetchFrontHandler = (request: Request) => Promise<Response>;

/**
 * Serves `handler` on an ephemeral loopback port.
 *
 * @returns The address (`http://127.0.0.1:<port>`) and a close function.
 */
export async function serveFetch(
  handler: FetchFrontHandler,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const response = await handler(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) return void res.end();
    const reader = response.body.getReader();
    res.on("close", () => {
      if (!res.writableFinished) reader.cancel().catch(() => {});
    });
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve())
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
