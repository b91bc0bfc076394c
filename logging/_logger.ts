// The logger implementation and the state it shares with its manager. A
// logger holds a reference to its manager's Core, so reconfiguring the
// manager changes what existing loggers do. The level check is one load of a
// cached number: Core.threshold is the manager's level, or OFF while there are
// no providers.
import { RequestContext, type RequestContextValues } from "../platform/mod.ts";
import { maskSecretText } from "../core/mod.ts";
import type { LogEntry, LogProperties } from "./log_entry.ts";
import type { LogLevel } from "./log_level.ts";
import type { ILogProvider } from "./providers/log_provider.ts";
import type { Logger } from "./logger.ts";
import { RESOLVED } from "./providers/_resolved.ts";
import { activeSpanContext } from "./_telemetry.ts";

/** Above every level: nothing is written. */
export const OFF = 4;

const EMPTY: LogProperties = Object.freeze({}) as LogProperties;

// The values of a request context other than its requestId, computed once
// per context object (entries of one request share it).
let lastContext: RequestContextValues | undefined;
let lastExtras: LogProperties = EMPTY;

function contextExtras(context: RequestContextValues): LogProperties {
  if (context === lastContext) return lastExtras;
  let extras: LogProperties = EMPTY;
  for (const key in context) {
    if (key === "requestId") continue;
    if (extras === EMPTY) extras = {};
    extras[key] = context[key];
  }
  lastContext = context;
  lastExtras = extras === EMPTY ? EMPTY : Object.freeze(extras);
  return lastExtras;
}

// The message is masked by shape (URL passwords, Bearer tokens, password=…
// pairs) with the rule that masks properties and error messages, here, once
// per entry, so every provider and format gets the masked text. A string is
// masked inline in #emit (core's rule starts with one quick scan that lets
// text without any of those shapes through); this is the rare message a
// JavaScript caller gave as something else.
function messageText(message: unknown): string {
  let text: string;
  try {
    text = String(message);
  } catch {
    // A JavaScript caller's object whose toString throws: a log call must
    // not throw.
    text = "[unprintable message]";
  }
  return maskSecretText(text);
}

// The last message text found to hold no secret. A log call's message is
// usually a literal, the same string at every call (the values go in the
// properties), so most calls skip the scan; a message built per call is
// scanned as before.
let lastClean = "";

function maskMessage(message: string): string {
  if (message === lastClean) return message;
  const masked = maskSecretText(message);
  if (masked === message) lastClean = message;
  return masked;
}

// A single value given where the properties object goes (a JavaScript
// caller writing `info("plain {0}", url)`) is kept as the positional
// property "0", a string masked by shape like the message.
function positional(value: unknown): LogProperties {
  return { "0": typeof value === "string" ? maskSecretText(value) : value };
}

/** A manager's live state. */
export class Core {
  threshold: number = OFF;
  providers: readonly ILogProvider[] = [];
  /** Unsettled work the next flush must wait for (custom log() promises, disposals). */
  readonly pending: Set<Promise<unknown>> = new Set();
  onError: (error: unknown) => void = (error) =>
    globalThis.console.error(error);

  readonly #onRejected = (error: unknown): void => this.report(error);

  report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // A failing error handler must not break logging.
    }
  }

  track(promise: Promise<unknown>): void {
    const pending = this.pending;
    const settled = promise.then(undefined, this.#onRejected).finally(() => {
      pending.delete(settled);
    });
    pending.add(settled);
  }

  dispatch(entry: LogEntry): void {
    const providers = this.providers;
    for (let i = 0; i < providers.length; i++) {
      const provider = providers[i];
      try {
        if (!provider.isEnabled(entry.level)) continue;
        const result = provider.log(entry);
        if (
          result !== RESOLVED && result !== undefined && result !== null &&
          typeof result.then === "function"
        ) {
          this.track(result);
        }
      } catch (error) {
        this.report(error);
      }
    }
  }
}

class KitLogger implements Logger {
  readonly category: string;
  readonly #core: Core;
  readonly #context: LogProperties;
  readonly #requestId: string | undefined;

  constructor(
    core: Core,
    category: string,
    context: LogProperties,
    requestId: string | undefined,
  ) {
    this.#core = core;
    this.category = category;
    this.#context = context;
    this.#requestId = requestId;
  }

  debug(message: string, properties?: LogProperties | Error): void {
    if (this.#core.threshold > 0) return;
    this.#emit(0, message, properties);
  }

  info(message: string, properties?: LogProperties | Error): void {
    if (this.#core.threshold > 1) return;
    this.#emit(1, message, properties);
  }

  warning(message: string, properties?: LogProperties | Error): void {
    if (this.#core.threshold > 2) return;
    this.#emit(2, message, properties);
  }

  error(message: string, properties?: LogProperties | Error): void {
    if (this.#core.threshold > 3) return;
    this.#emit(3, message, properties);
  }

  log(
    level: LogLevel,
    message: string,
    properties?: LogProperties | Error,
  ): void {
    if (this.#core.threshold > level || !(level >= 0 && level <= 3)) return;
    this.#emit(level, message, properties);
  }

  isEnabled(level: LogLevel): boolean {
    return this.#core.threshold <= level;
  }

  with(properties: LogProperties): Logger {
    let context = this.#context;
    let requestId = this.#requestId;
    if (properties !== null && typeof properties === "object") {
      const own: LogProperties = { ...properties };
      if (own.requestId !== undefined && own.requestId !== null) {
        requestId = String(own.requestId);
        delete own.requestId;
      }
      context = context === EMPTY ? own : { ...context, ...own };
    }
    return new KitLogger(this.#core, this.category, context, requestId);
  }

  #emit(
    level: LogLevel,
    message: string,
    properties: LogProperties | Error | undefined,
  ): void {
    let props = this.#context;
    let error: Error | undefined;
    let requestId = this.#requestId;
    // The request context's values come first; the logger's context and the
    // call's properties win over them (merged in one object below).
    const context = RequestContext.current();
    let extras = EMPTY;
    if (context !== undefined) {
      requestId ??= context.requestId;
      extras = contextExtras(context);
    }
    if (properties instanceof Error) {
      error = properties;
    } else if (properties !== undefined && properties !== null) {
      let own = typeof properties === "object"
        ? properties
        : positional(properties);
      const ownError = own.error;
      const ownRequestId = own.requestId;
      if (ownError instanceof Error || ownRequestId != null) {
        own = { ...own };
        if (ownError instanceof Error) {
          error = ownError;
          delete own.error;
        }
        if (ownRequestId != null) {
          requestId = String(ownRequestId);
          delete own.requestId;
        }
      }
      props = props === EMPTY
        ? (extras === EMPTY ? own : { ...extras, ...own })
        : extras === EMPTY
        ? { ...props, ...own }
        : { ...extras, ...props, ...own };
    } else if (extras !== EMPTY) {
      props = props === EMPTY ? extras : { ...extras, ...props };
    }
    // The active span's ids (none unless an OpenTelemetry context manager
    // or Deno's built-in telemetry has made a span active).
    const spanContext = activeSpanContext();
    const entry: LogEntry = {
      timestamp: new Date(),
      level,
      category: this.category,
      message: typeof message === "string"
        ? maskMessage(message)
        : messageText(message),
      properties: props,
      error,
      requestId,
      traceId: spanContext?.traceId,
      spanId: spanContext?.spanId,
    };
    this.#core.dispatch(entry);
  }
}

/** Creates the root logger of a category. */
export function createLogger(core: Core, category: string): Logger {
  return new KitLogger(core, category, EMPTY, undefined);
}
