// The service's routes, as a Hono app.
import { Hono } from "hono";
import type { CacheManager } from "@vendor/kit-platform-caching";
import type { EventAggregator } from "@vendor/kit-platform";
import { Localizer } from "./localizer.ts";
import { addPageRoutes, type PageRouteServices } from "./page_routes.ts";
import {
  isUserId,
  type User,
  type UserStore,
  UserValidationError,
  validateNewUser,
} from "./users.ts";

/** The events of the service. */
export interface ServiceEvents {
  /** A user was created (the payload is the stored user). */
  "user:created": User;
}

/** What the routes use. */
export interface RouteServices extends PageRouteServices {
  localizer: Localizer;
  cache: CacheManager;
  /** The user store of the request at hand. */
  users: () => UserStore;
  events: EventAggregator<ServiceEvents>;
}

/** The cache area of greetings (one entry per culture and name). */
export const GREETINGS = "greetings";
/** The cache area of users read by id. */
export const USERS = "users";

/**
 * Builds the Hono app of the service.
 *
 * @param services The services the routes use.
 * @returns The app; serve `kit(app)`.
 */
export function createRoutes(services: RouteServices): Hono {
  const { localizer, cache, users, events } = services;
  const greetings = cache.area(GREETINGS);
  const userCache = cache.area(USERS);
  const app = new Hono();

  app.get("/api/localization/:file", (c) => {
    const file = c.req.param("file");
    const name = file.endsWith(".json") ? file.slice(0, -5) : "";
    if (!Localizer.isCultureName(name)) {
      return c.json({
        message:
          `Invalid culture name: ask for /api/localization/<culture>.json with a name such as en-US`,
      }, 400);
    }
    const culture = localizer.find(name);
    const text = culture === undefined
      ? undefined
      : localizer.resource(culture);
    if (culture === undefined || text === undefined) {
      return c.json({
        message: `No translations for culture ${name}; available: ${
          localizer.cultures.join(", ")
        }`,
      }, 404);
    }
    return c.body(text, 200, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Language": culture,
      "Cache-Control": "public, max-age=300",
    });
  });

  app.get("/api/hello", async (c) => {
    const name = c.req.query("name");
    if (name !== undefined && name.length > 100) {
      return c.json({ message: "name must be at most 100 characters" }, 400);
    }
    const culture = localizer.negotiate(
      c.req.query("culture"),
      c.req.header("Accept-Language"),
    );
    const key = `${culture}:${name ?? ""}`;
    const message = await greetings.getOrSet(key, () =>
      localizer.translate(
        culture,
        "hello.greeting",
        name || localizer.translate(culture, "hello.stranger"),
      ));
    return c.json({ message, culture }, 200, {
      "Content-Language": culture,
      "Vary": "Accept-Language",
    });
  });

  app.post("/api/users", async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({
        message: "The request body must be JSON",
        field: "body",
      }, 400);
    }
    let user: User;
    try {
      user = await users().create(validateNewUser(body));
    } catch (error) {
      if (error instanceof UserValidationError) {
        return c.json({ message: error.message, field: error.field }, 400);
      }
      throw error;
    }
    events.publish("user:created", user);
    return c.json(user, 201, { Location: `/api/users/${user.id}` });
  });

  app.get("/api/users/:id", async (c) => {
    const id = c.req.param("id").toLowerCase();
    if (!isUserId(id)) {
      return c.json({ message: `id must be a UUID: ${id.slice(0, 64)}` }, 400);
    }
    let user = await userCache.get<User>(id);
    if (user === undefined) {
      user = await users().get(id);
      if (user !== undefined) await userCache.set(id, user);
    }
    if (user === undefined) {
      return c.json({ message: `User not found: ${id}` }, 404);
    }
    return c.json(user);
  });

  addPageRoutes(app, services);

  app.notFound((c) =>
    c.json({ message: `Nothing at ${c.req.method} ${c.req.path}` }, 404)
  );
  return app;
}
