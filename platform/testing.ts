/**
 * Kit's test kit, an entry point of its own that the rest of Kit never
 * loads: {@linkcode createTestApplication} starts
 * an application from the same options as `Application.start`, with
 * services replaced and configuration values set by the test, serves its
 * requests in memory through the very handler the server would use
 * (request context, scopes, body limit, health routes), and records every
 * log entry; {@linkcode FakeClock} drives the time of Kit's caches, batches
 * and retries. It works the same under `deno test`, `node --test`, Bun's
 * test runner and Vitest.
 *
 * @example Usage
 * ```ts
 * import { createTestApplication } from "@vendor/kit/testing";
 *
 * await using app = await createTestApplication({
 *   configuration: () => ({ greeting: "hello" }),
 *   serve: (_services, config) => () => new Response(config.greeting),
 * });
 * const response = await app.request("/");
 * console.log(await response.text()); // "hello"
 * ```
 *
 * @module
 */
import {
  Application,
  type ApplicationOptions,
  type ApplicationServices,
  type InferredApplicationOptions,
  type ServiceFactory,
  type ServiceLocator,
  type ServiceMap,
  type ServiceName,
} from "./mod.ts";
import { TEST_HOOKS, type TestHooks } from "./testing/_testing_hooks.ts";
import { recordingLogging, recordManager } from "./testing/_testing_logs.ts";
import {
  checkKey,
  layerConfiguration,
  runWithTestConfiguration,
} from "./testing/_testing_config.ts";
import {
  applyOverrides,
  noteRegistrations,
} from "./testing/_testing_overrides.ts";

export {
  FakeClock,
  type FakeClockOptions,
  type WaitForTimersOptions,
} from "./testing/fake_clock.ts";
export {
  createTestDatabase,
  type TestDatabaseOptions,
} from "./database/mod.ts";

/**
 * The level of a {@linkcode LogRecord}, by name.
 *
 * @example Usage
 * ```ts
 * import type { LogRecordLevel } from "@vendor/kit/testing";
 *
 * const level: LogRecordLevel = "warning";
 * ```
 */
export type LogRecordLevel = "debug" | "info" | "warning" | "error";

/**
 * One log entry recorded by a test application: what Kit's logging handed
 * its providers (the message and properties with secrets already masked).
 *
 * @example Usage
 * ```ts
 * import type { LogRecord } from "@vendor/kit/testing";
 *
 * const record: LogRecord = {
 *   timestamp: new Date(),
 *   level: "info",
 *   category: "orders",
 *   message: "Order placed",
 *   properties: { orderId: 42 },
 *   requestId: "r-1",
 * };
 * ```
 */
export interface LogRecord {
  /** When the entry was made. */
  readonly timestamp: Date;
  /** Its level. */
  readonly level: LogRecordLevel;
  /** The category of the logger (`kit.application` for the host's lines). */
  readonly category: string;
  /** The message. */
  readonly message: string;
  /** The properties, without `error` and `requestId` (fields of their own). */
  readonly properties: Readonly<Record<string, unknown>>;
  /** The error logged with it, if any. */
  readonly error?: Error;
  /** The id of the request it was written in, if any. */
  readonly requestId?: string;
  /** The trace id of the span active then, with an OpenTelemetry SDK. */
  readonly traceId?: string;
  /** The span id of that span. */
  readonly spanId?: string;
}

/**
 * What {@linkcode TestLogs.filter} selects by: each given field must match.
 *
 * @example Usage
 * ```ts
 * import type { LogFilter } from "@vendor/kit/testing";
 *
 * const errors: LogFilter = { level: "error", category: "orders" };
 * ```
 */
export interface LogFilter {
  /** This level exactly. */
  level?: LogRecordLevel;
  /** This category exactly. */
  category?: string;
  /** The message contains this text, or matches this expression. */
  message?: string | RegExp;
  /** Written in the request of this id. */
  requestId?: string;
}

function matches(message: string, text: string | RegExp): boolean {
  if (typeof text === "string") return message.includes(text);
  text.lastIndex = 0;
  return text.test(message);
}

/**
 * The log entries a test application recorded, oldest first: every entry
 * written through the logging step's `LoggerManager` (at its level) while
 * the application ran, or, without a logging step, the host's own lines
 * (start-up, access lines, errors), which are then not printed.
 *
 * @example Usage
 * ```ts
 * import { createTestApplication } from "@vendor/kit/testing";
 *
 * await using app = await createTestApplication({
 *   configuration: () => ({}),
 *   serve: () => () => new Response("ok"),
 * });
 * await app.request("/orders");
 * const line = app.logs.find("GET /orders 200");
 * console.log(line?.requestId !== undefined); // true
 * ```
 */
export class TestLogs implements Iterable<LogRecord> {
  readonly #records: LogRecord[] = [];

  /**
   * Adds a record (the application's recorder calls it).
   *
   * @param record The record.
   */
  add(record: LogRecord): void {
    this.#records.push(record);
  }

  /**
   * Every record so far, oldest first (a copy).
   *
   * @returns The records.
   *
   * @example Usage
   * ```ts
   * import { TestLogs } from "@vendor/kit/testing";
   *
   * console.log(new TestLogs().all.length); // 0
   * ```
   */
  get all(): LogRecord[] {
    return [...this.#records];
  }

  /**
   * How many records there are.
   *
   * @returns The count.
   *
   * @example Usage
   * ```ts
   * import { TestLogs } from "@vendor/kit/testing";
   *
   * console.log(new TestLogs().length); // 0
   * ```
   */
  get length(): number {
    return this.#records.length;
  }

  /**
   * The first record whose message contains `text` (or matches it).
   *
   * @param text A piece of the message, or a regular expression.
   * @returns The record, or `undefined`.
   *
   * @example Usage
   * ```ts
   * import { TestLogs } from "@vendor/kit/testing";
   *
   * const logs = new TestLogs();
   * console.log(logs.find(/order \d+ placed/)); // undefined
   * ```
   */
  find(text: string | RegExp): LogRecord | undefined {
    return this.#records.find((record) => matches(record.message, text));
  }

  /**
   * The records that match every field of `filter`, oldest first.
   *
   * @param filter Level, category, message, request id.
   * @returns The matching records.
   *
   * @example Usage
   * ```ts
   * import { TestLogs } from "@vendor/kit/testing";
   *
   * const logs = new TestLogs();
   * console.log(logs.filter({ level: "error" }).length); // 0
   * ```
   */
  filter(filter: LogFilter = {}): LogRecord[] {
    return this.#records.filter((record) =>
      (filter.level === undefined || record.level === filter.level) &&
      (filter.category === undefined ||
        record.category === filter.category) &&
      (filter.message === undefined ||
        matches(record.message, filter.message)) &&
      (filter.requestId === undefined ||
        record.requestId === filter.requestId)
    );
  }

  /**
   * Forgets the records so far (to look only at what comes next).
   *
   * @example Usage
   * ```ts
   * import { TestLogs } from "@vendor/kit/testing";
   *
   * new TestLogs().clear();
   * ```
   */
  clear(): void {
    this.#records.length = 0;
  }

  /**
   * The records, oldest first.
   *
   * @returns An iterator over a copy of them.
   */
  [Symbol.iterator](): Iterator<LogRecord> {
    return this.all[Symbol.iterator]();
  }
}

/**
 * Factories that replace registered services, by name, type-checked against
 * the application's service map.
 *
 * @typeParam TServices Names and types of the services.
 *
 * @example Usage
 * ```ts
 * import type { ServiceOverrides } from "@vendor/kit/testing";
 *
 * type Services = { clock: { now(): number } };
 * const overrides: ServiceOverrides<Services> = {
 *   clock: () => ({ now: () => 0 }),
 * };
 * ```
 */
export type ServiceOverrides<TServices extends object = ServiceMap> = {
  readonly [K in ServiceName<TServices>]?: ServiceFactory<
    TServices[K],
    TServices
  >;
};

/**
 * The options of {@linkcode createTestApplication}: those of
 * `Application.start` (the four steps, `serve`, `server`,
 * `shutdownTimeout`, `locator`), plus what a test changes.
 *
 * @typeParam TServices Names and types of the services.
 * @typeParam TConfig What the configuration step builds.
 *
 * @example Usage
 * ```ts
 * import type { TestApplicationOptions } from "@vendor/kit/testing";
 *
 * const options: TestApplicationOptions = {
 *   configuration: () => ({}),
 *   config: { "api:baseUrl": "http://127.0.0.1:8080" },
 * };
 * ```
 */
export interface TestApplicationOptions<
  TServices extends object = ServiceMap,
  TConfig = unknown,
> extends ApplicationOptions<TServices, TConfig> {
  /**
   * Services to replace: each factory takes the place of the service of its
   * name once step 4 is done (so after the platform and application steps
   * registered theirs), with the same lifetime and eager or hosted option.
   * A name that was never registered fails start-up, naming it.
   */
  overrides?: ServiceOverrides<TServices>;
  /**
   * Configuration values by colon path (`"api:baseUrl"`), above every
   * source of the configuration step: added to a `ConfigurationManager` as
   * a source of the highest priority (then loaded again, so a schema still
   * validates them), or set on a copy of a plain object.
   */
  config?: Readonly<Record<string, unknown>>;
  /**
   * Also listen on a port, as `Application.start` does (`app.url` then
   * tells where). Default `false`: requests go through
   * {@linkcode TestApplication.request} only, and nothing listens.
   */
  listen?: boolean;
}

/**
 * The options of {@linkcode createTestApplication} when no service map is
 * written by hand: those of `Application.start` typed by what the steps
 * register (see `InferredApplicationOptions`), plus what a test changes;
 * `overrides` are checked against the services the steps registered.
 *
 * @typeParam TConfig What the configuration step builds.
 * @typeParam TLogging What the logging step returns.
 * @typeParam TPlatform What the platform step returns.
 * @typeParam TServicesStep What the services step returns.
 *
 * @example Usage
 * ```ts
 * import type { InferredTestApplicationOptions } from "@vendor/kit/testing";
 *
 * const options: InferredTestApplicationOptions<{}, undefined, unknown, unknown> = {
 *   configuration: () => ({}),
 *   config: { "api:baseUrl": "http://127.0.0.1:8080" },
 * };
 * ```
 */
export interface InferredTestApplicationOptions<
  TConfig,
  TLogging,
  TPlatform,
  TServicesStep,
> extends
  InferredApplicationOptions<TConfig, TLogging, TPlatform, TServicesStep> {
  /** Services to replace (see {@linkcode TestApplicationOptions}). */
  overrides?: ServiceOverrides<
    ApplicationServices<TConfig, TLogging, TPlatform, TServicesStep>
  >;
  /** Configuration values by colon path (see {@linkcode TestApplicationOptions}). */
  config?: Readonly<Record<string, unknown>>;
  /** Also listen on a port. Default `false`. */
  listen?: boolean;
}

/**
 * A running application started by {@linkcode createTestApplication}: an
 * `Application` (services, health, stop, `await using`) with
 * {@linkcode TestApplication.request} and {@linkcode TestApplication.logs}.
 *
 * @typeParam TServices Names and types of the services.
 *
 * @example Usage
 * ```ts
 * import { createTestApplication } from "@vendor/kit/testing";
 *
 * await using app = await createTestApplication({
 *   configuration: () => ({}),
 *   serve: () => () => new Response("ok"),
 * });
 * console.log((await app.request("/health/live")).status); // 200
 * ```
 */
export interface TestApplication<TServices extends object = ServiceMap>
  extends Application<TServices> {
  /**
   * Sends a request to the handler of `serve` in memory, through the same
   * path as a request over the network: health routes, body limit, request
   * id and context, scoped services, access line.
   *
   * @param input A path (`/orders?page=2`, resolved against
   * `http://localhost`), a URL, or a `Request`.
   * @param init As for `fetch` (method, headers, body, signal).
   * @returns The response.
   * @throws {Error} When the application has no `serve` option, or has
   * stopped.
   */
  request(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The log entries recorded since start-up. */
  readonly logs: TestLogs;
}

const BASE_URL = "http://localhost";

/**
 * Starts an application for a test: the same steps as
 * `Application.start`, then `overrides` replace services, `config` values
 * sit above the configuration, every log entry is recorded in `app.logs`,
 * and `serve` is answered in memory by `app.request()` without a port
 * (unless `listen: true`). No signal handler is installed. `await using`
 * (or `app.stop()`) stops it.
 *
 * The services are typed by what the steps register, as with
 * `Application.start`: steps that return their chain of registrations type
 * `app.services`, `serve` and the `overrides` with no map written by hand.
 *
 * @typeParam TConfig What the configuration step builds.
 * @typeParam TLogging What the logging step returns.
 * @typeParam TPlatform What the platform step returns.
 * @typeParam TServicesStep What the services step returns.
 * @param options The application's options and the test's changes.
 * @returns The running application.
 * @throws {ApplicationStartError} When start-up fails, as
 * `Application.start`; also when an override names a service that is not
 * registered (step 4), or `config` is given and the configuration step
 * returned neither a `ConfigurationManager` nor a plain object (step 1).
 *
 * @example A route, a replaced service and a log line
 * ```ts
 * import { createTestApplication } from "@vendor/kit/testing";
 *
 * await using app = await createTestApplication({
 *   configuration: () => ({}),
 *   services: (services) =>
 *     services.register("clock", () => ({ now: () => Date.now() })),
 *   serve: (services) => () =>
 *     Response.json({ now: services.get("clock").now() }),
 *   overrides: { clock: () => ({ now: () => 0 }) },
 * });
 * const response = await app.request("/now");
 * console.log(await response.json()); // { now: 0 }
 * console.log(app.logs.find("GET /now 200") !== undefined); // true
 * ```
 */
export function createTestApplication<
  TConfig,
  TLogging,
  TPlatform,
  TServicesStep,
>(
  options: InferredTestApplicationOptions<
    TConfig,
    TLogging,
    TPlatform,
    TServicesStep
  >,
): Promise<
  TestApplication<
    ApplicationServices<TConfig, TLogging, TPlatform, TServicesStep>
  >
>;
/**
 * Starts an application for a test whose service map is written by hand
 * (see the other signature for one typed by the steps' registrations).
 *
 * @typeParam TServices Names and types of the services.
 * @typeParam TConfig What the configuration step builds.
 * @param options The application's options and the test's changes.
 * @returns The running application.
 * @throws {ApplicationStartError} When start-up fails, as
 * `Application.start`.
 *
 * @example Usage
 * ```ts
 * import { createTestApplication } from "@vendor/kit/testing";
 *
 * await using app = await createTestApplication<{ port: number }>({
 *   configuration: () => ({}),
 *   services: (services) => {
 *     services.register("port", () => 3000);
 *   },
 * });
 * console.log(app.services.get("port")); // 3000
 * ```
 */
export function createTestApplication<
  TServices extends object = ServiceMap,
  TConfig = unknown,
>(
  options: TestApplicationOptions<TServices, TConfig>,
): Promise<TestApplication<TServices>>;
export async function createTestApplication<
  TServices extends object,
  TConfig,
>(
  options: TestApplicationOptions<TServices, TConfig>,
): Promise<TestApplication<TServices>> {
  if (options === null || typeof options !== "object") {
    throw new TypeError("createTestApplication: options must be an object");
  }
  const {
    overrides,
    config: values,
    listen,
    ...application
  } = options;
  const logs = new TestLogs();
  const push = (record: LogRecord): void => logs.add(record);
  let noted: ReturnType<typeof noteRegistrations> | undefined;
  let fetch: ((request: Request) => Promise<Response>) | undefined;
  const hooks: TestHooks = {
    listen: listen === true,
    served: (handler) => fetch = handler,
  };
  const configuration = application.configuration;
  const logging = application.logging;
  const platform = application.platform;
  const setup = application.services;
  const start: ApplicationOptions<TServices, TConfig> & {
    [TEST_HOOKS]: TestHooks;
  } = {
    ...application,
    [TEST_HOOKS]: hooks,
    configuration: async (services: ServiceLocator<TServices>) => {
      if (values === undefined) return await configuration(services);
      for (const key of Object.keys(values)) checkKey(key);
      // A ConfigurationManager loading in the step takes the values before
      // it first validates, so they may supply a required setting.
      const test = { values, given: new WeakSet<object>() };
      const built = await runWithTestConfiguration(
        test,
        () => configuration(services),
      );
      return await layerConfiguration(built, values, test.given) as TConfig;
    },
    logging: logging === undefined
      ? () => recordingLogging(push)
      : async (config: TConfig, services: ServiceLocator<TServices>) => {
        const value = await logging(config, services);
        recordManager(value, push);
        return value;
      },
    // Steps 3 and 4 get the locator itself (step 1's factory gets a view).
    platform: async (services, config, app) => {
      noted = noteRegistrations(services as ServiceLocator<object>);
      if (platform !== undefined) await platform(services, config, app);
    },
    services: async (services, config, app) => {
      if (setup !== undefined) await setup(services, config, app);
      noted?.stop();
      if (overrides !== undefined) {
        applyOverrides(
          services as ServiceLocator<object>,
          overrides as Readonly<Record<string, unknown>>,
          noted?.options ?? new Map(),
        );
      }
    },
  };
  let app: Application<TServices>;
  try {
    app = await Application.start(start);
  } finally {
    noted?.stop();
  }
  const request = (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    if (fetch === undefined) {
      return Promise.reject(
        new Error(
          "app.request(): the application has no serve option; give createTestApplication serve: (services, config) => handler",
        ),
      );
    }
    let outgoing: Request;
    try {
      outgoing =
        typeof input === "string" && !/^[a-z][a-z0-9+.-]*:/i.test(input)
          ? new Request(new URL(input, BASE_URL), init)
          : new Request(input, init);
    } catch (error) {
      return Promise.reject(error);
    }
    return fetch(outgoing);
  };
  Object.defineProperties(app, {
    request: { value: request, enumerable: false },
    logs: { value: logs, enumerable: false },
  });
  return app as TestApplication<TServices>;
}
