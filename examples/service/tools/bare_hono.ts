/**
 * The baseline of the service benchmark: the same two routes as the example
 * service (`GET /health`, `GET /api/hello`) in a bare Hono app without Kit —
 * no application host, request ids, access log, localization manager or
 * cache manager; a Map holds the greetings. Served by `Deno.serve` (the
 * server Kit's host uses on Deno) on PORT; the benchmark runs on Deno.
 *
 * @module
 */
import { Hono } from "hono";
import process from "node:process";
import { negotiateCulture } from "./negotiate_culture.ts";

const greetings: Record<string, [string, string]> = {
  "en-US": ["Hello, {0}!", "stranger"],
  "fr-FR": ["Bonjour, {0} !", "inconnu"],
  "de-DE": ["Hallo, {0}!", "Fremder"],
};
const languages: Record<string, string> = {
  en: "en-US",
  fr: "fr-FR",
  de: "de-DE",
};
const cache = new Map<string, string>();
const match = (name: string): string | undefined =>
  name in greetings ? name : languages[name.split("-")[0].toLowerCase()];

const app = new Hono();
app.get(
  "/health",
  (c) =>
    c.json({ status: "healthy", checks: {} }, 200, {
      "Cache-Control": "no-store",
    }),
);
app.get("/api/hello", (c) => {
  const name = c.req.query("name");
  const culture = negotiateCulture(
    match,
    "en-US",
    c.req.query("culture"),
    c.req.header("Accept-Language"),
  );
  const key = `${culture}:${name ?? ""}`;
  let message = cache.get(key);
  if (message === undefined) {
    const [template, stranger] = greetings[culture];
    message = template.replace("{0}", name || stranger);
    cache.set(key, message);
  }
  return c.json({ message, culture }, 200, {
    "Content-Language": culture,
    "Vary": "Accept-Language",
  });
});

const server = Deno.serve({
  port: Number(process.env.PORT ?? 3001),
  hostname: process.env.HOST ?? "127.0.0.1",
  onListen: () => {},
}, app.fetch);
console.log(`bare Hono listening on http://127.0.0.1:${server.addr.port}`);
const stop = async (): Promise<void> => {
  await server.shutdown();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
