// The routes of the browser page: the page itself (/ and /about), its bundle,
// sign-in with token refresh, a protected call, and the intake of the page's
// analytics events, which are forwarded through the service's own analytics.
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AnalyticsManager } from "@vendor/kit-platform-analytics";
import type { Logger } from "@vendor/kit-platform-logging";
import { RequestContext } from "@vendor/kit-platform";
import { type Authenticator, REFRESH_COOKIE } from "./auth.ts";
import type { Localizer } from "./localizer.ts";
import type { PageAssets } from "./page.ts";

/** What the page routes use. */
export interface PageRouteServices {
  localizer: Localizer;
  auth: Authenticator;
  page: PageAssets;
  analytics: AnalyticsManager;
  logger: Logger;
}

/** The paths that answer with the page (its client-side views). */
export const PAGE_PATHS: readonly string[] = ["/", "/about"];

// The page's inline <style> needs 'unsafe-inline' for styles; scripts only
// from this origin.
const PAGE_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-cache",
  "Content-Security-Policy":
    "default-src 'self'; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
};

/** Most events accepted in one analytics request. */
export const MAX_INTAKE_EVENTS = 100;
const MAX_PROPERTIES_BYTES = 8 * 1024;
const DAY = 86_400_000;

/**
 * Adds the page's routes to `app`.
 *
 * @param app The service's Hono app.
 * @param services What the routes use.
 */
export function addPageRoutes(app: Hono, services: PageRouteServices): void {
  const { auth, page, analytics, logger, localizer } = services;

  for (const path of PAGE_PATHS) {
    app.get(path, async (c) => c.body(await page.html(), 200, PAGE_HEADERS));
  }
  app.get("/app.js", async (c) =>
    c.body(await page.script(), 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
    }));

  app.post("/api/auth/sign-in", async (c) => {
    const text = await readLimited(c.req.raw, 4096);
    let body: { name?: unknown } | undefined;
    try {
      body = text === undefined ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const name = typeof body?.name === "string" ? body.name.trim() : "";
    if (name === "" || name.length > 100) {
      return c.json({
        message:
          "name is required: a non-empty string of at most 100 characters",
        field: "name",
      }, 400);
    }
    setRefreshCookie(c, auth.openSession(name), auth.refreshExpiry);
    logger.info("Signed in: access token and session issued");
    return c.json({
      token: await auth.issue(name),
      expiresIn: auth.tokenExpiry,
    });
  });

  app.post("/api/auth/refresh", async (c) => {
    const name = auth.session(getCookie(c, REFRESH_COOKIE));
    if (name === undefined) {
      return c.json({ message: "No live session: sign in again" }, 401);
    }
    logger.info("Access token refreshed");
    return c.json({
      token: await auth.issue(name),
      expiresIn: auth.tokenExpiry,
    });
  });

  app.post("/api/auth/sign-out", (c) => {
    auth.closeSession(getCookie(c, REFRESH_COOKIE));
    deleteCookie(c, REFRESH_COOKIE, { path: "/api/auth" });
    return c.body(null, 204);
  });

  app.get("/api/me", async (c) => {
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer ([\w.-]+)$/.exec(header);
    const checked = match === null
      ? { reason: "no bearer token in the Authorization header" }
      : await auth.verify(match[1]);
    if (!("claims" in checked)) {
      logger.info(`Refused a bearer token: ${checked.reason}`);
      return c.json({ message: `Sign in first: ${checked.reason}` }, 401, {
        "WWW-Authenticate": 'Bearer error="invalid_token"',
      });
    }
    const { sub, jti } = checked.claims;
    const culture = localizer.negotiate(
      c.req.query("culture"),
      c.req.header("Accept-Language"),
    );
    return c.json(
      {
        name: sub,
        message: localizer.translate(culture, "hello.greeting", sub),
        requestId: RequestContext.current()?.requestId ?? "",
        tokenId: jti,
      },
      200,
      { "Cache-Control": "no-store", "Content-Language": culture },
    );
  });

  const seen = new RecentIds(1000);
  // The body's size is bounded by the server (server:maxBodySize, 64 KiB:
  // a batch of the page's 10 events is a few KiB).
  app.post("/api/analytics", async (c) => {
    const text = await c.req.text();
    let events: unknown;
    try {
      events = (JSON.parse(text) as { events?: unknown }).events;
    } catch {
      events = undefined;
    }
    if (!Array.isArray(events) || events.length > MAX_INTAKE_EVENTS) {
      return c.json({
        message:
          `The body must be {"events": [...]} with at most ${MAX_INTAKE_EVENTS} events`,
      }, 400);
    }
    let accepted = 0;
    let rejected = 0;
    for (const raw of events) {
      const event = browserEvent(raw);
      if (event === undefined) {
        rejected++;
        continue;
      }
      accepted++;
      // Delivery is at least once: a batch sent again is recognised.
      if (event.messageId !== undefined && !seen.add(event.messageId)) continue;
      const context = {
        anonymousId: event.anonymousId,
        timestamp: event.timestamp,
      };
      logger.debug(`Browser ${event.type} event: ${event.name}`, {
        path: event.properties.path,
        metric: event.properties.metric,
      });
      if (event.type === "page") {
        analytics.page(event.name, event.properties, context);
      } else {
        analytics.track(event.name, event.properties, context);
      }
    }
    return c.json({ accepted, rejected }, 202);
  });
}

// The body as text, or `undefined` as soon as more than `limit` bytes arrived
// (a chunked body declares no length).
async function readLimited(
  request: Request,
  limit: number,
): Promise<string | undefined> {
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function setRefreshCookie(c: Context, token: string, maxAge: number): void {
  const https = new URL(c.req.url).protocol === "https:" ||
    c.req.header("X-Forwarded-Proto") === "https";
  setCookie(c, REFRESH_COOKIE, token, {
    path: "/api/auth",
    httpOnly: true,
    sameSite: "Strict",
    secure: https,
    maxAge,
  });
}

interface BrowserEvent {
  type: "page" | "track";
  name: string;
  properties: Record<string, unknown>;
  anonymousId?: string;
  timestamp?: number;
  messageId?: string;
}

// A page or track event of the page's CustomAnalyticsProvider, checked;
// `undefined` for anything else (identify, malformed, oversized).
function browserEvent(raw: unknown): BrowserEvent | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const event = raw as Record<string, unknown>;
  if (event.type !== "page" && event.type !== "track") return undefined;
  if (
    typeof event.name !== "string" || event.name === "" ||
    event.name.length > 200
  ) return undefined;
  const properties = event.properties ?? {};
  if (
    typeof properties !== "object" || properties === null ||
    Array.isArray(properties) ||
    JSON.stringify(properties).length > MAX_PROPERTIES_BYTES
  ) return undefined;
  const id = (value: unknown): string | undefined =>
    typeof value === "string" && /^[\w.:-]{1,128}$/.test(value)
      ? value
      : undefined;
  const timestamp = typeof event.timestamp === "number" &&
      Math.abs(event.timestamp - Date.now()) < DAY
    ? event.timestamp
    : undefined;
  return {
    type: event.type,
    name: event.name,
    properties: properties as Record<string, unknown>,
    anonymousId: id(event.anonymousId),
    timestamp,
    messageId: id(event.messageId),
  };
}

// The last `size` ids seen.
class RecentIds {
  readonly #ids = new Set<string>();
  readonly #size: number;
  constructor(size: number) {
    this.#size = size;
  }
  /** Adds `id`; `false` when it was already there. */
  add(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    if (this.#ids.size > this.#size) {
      this.#ids.delete(this.#ids.values().next().value!);
    }
    return true;
  }
}
