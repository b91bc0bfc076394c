import type { InferredApplicationRunOptions } from "./application_options.ts";

/**
 * Types an application's start-up options written apart from
 * `Application.run` / `Application.start`, so that one set of options serves
 * the entry point and the tests (`createTestApplication`) and its services
 * stay typed by their registrations: the steps, `serve` and `app.services`
 * see each service the steps' chains registered, with no service map
 * written by hand. It returns `options` as they are; it only gives the
 * object literal the type the host infers (as `Application.start` does
 * when the options are written inline).
 *
 * @typeParam TConfig What the configuration step builds.
 * @typeParam TLogging What the logging step returns.
 * @typeParam TPlatform What the platform step returns (its chain).
 * @typeParam TServicesStep What the services step returns (its chain).
 * @param options The start-up options.
 * @returns `options`, unchanged.
 * @throws {never} It checks nothing: `Application.start` checks the options.
 *
 * @example Usage
 * ```ts
 * import { Application, defineApplication } from "@vendor/kit/platform";
 *
 * // app.ts: shared by main.ts and the tests.
 * const options = defineApplication({
 *   configuration: () => ({ greeting: "hello" }),
 *   services: (services, config) =>
 *     services.register("greeter", () => ({ greet: () => config.greeting })),
 *   serve: (services) => () => new Response(services.get("greeter").greet()),
 *   server: { port: 0, hostname: "127.0.0.1" },
 * });
 *
 * await using app = await Application.start(options);
 * console.log(app.services.get("greeter").greet()); // "hello"
 * ```
 */
export function defineApplication<TConfig, TLogging, TPlatform, TServicesStep>(
  options: InferredApplicationRunOptions<
    TConfig,
    TLogging,
    TPlatform,
    TServicesStep
  >,
): InferredApplicationRunOptions<TConfig, TLogging, TPlatform, TServicesStep> {
  return options;
}
