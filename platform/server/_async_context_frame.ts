// What the request context's storage holds: the context's values (what
// RequestContext.current() returns) and the scope owner, the frame whose
// scopes the services of the context resolve from. app.handle() and
// scope.run() make owners; RequestContext.run() inherits the one around it,
// so a middleware that adds a value to the context keeps the request's scope.
import { contextStore } from "#platform/server/async_context";
import type { RequestContextValues } from "./request_context.ts";

/** A scope's cache, as the owner frame keeps it (see _scope.ts). */
export interface FrameScope {
  /** The locator state the scope belongs to (its identity). */
  readonly state: object;
}

/** One context. */
export class ContextFrame {
  #values: RequestContextValues | undefined;
  // A request's frame holds only its id until its values are first read:
  // most requests never read them.
  readonly #requestId: string | undefined;
  /** The frame whose scopes this context uses, if any. */
  readonly owner: ContextFrame | undefined;
  /** For an owner: its scope, created on the first scoped service. */
  scope: FrameScope | undefined = undefined;
  /** For an owner: the scopes of further locators (rare). */
  more: FrameScope[] | undefined = undefined;
  /**
   * For an owner: no scope may be created any more (the response was
   * returned), or only `scope` may be used (a hand-made scope's run()).
   */
  closed: "ended" | "fixed" | undefined = undefined;
  /**
   * For a request's frame: the route template a router matched (the Hono
   * middleware sets it; a handler's route namer fills it when first asked,
   * `""` for none), for the span and the access line.
   */
  route: string | undefined = undefined;
  /**
   * For a request's frame: an error a router caught and handed to Kit (the
   * Hono middleware), to be logged and recorded on the span as if the
   * handler had thrown it.
   */
  failure: Error | undefined = undefined;
  /** For a request's frame: run once the handler's response is known. */
  after: (() => void) | undefined = undefined;

  /**
   * @param values The context's values (frozen), if any.
   * @param owner The frame whose scopes it uses; `null`: its own.
   * @param requestId For a request's frame: its id, the values made of it
   * when first read.
   */
  constructor(
    values: RequestContextValues | undefined,
    owner: ContextFrame | undefined | null,
    requestId?: string,
  ) {
    this.#values = values;
    this.#requestId = requestId;
    // null: this frame owns its scopes.
    this.owner = owner === null ? this : owner;
  }

  /** The values RequestContext.current() returns, if any (the same object each time). */
  get values(): RequestContextValues | undefined {
    if (this.#values === undefined && this.#requestId !== undefined) {
      this.#values = Object.freeze({ requestId: this.#requestId });
    }
    return this.#values;
  }
}

/** The process-wide store of context frames. */
export const frames = contextStore<ContextFrame>();
