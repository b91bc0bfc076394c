/**
 * The platform package of Kit (`@vendor/kit-platform`): the application host
 * ({@linkcode Application}: four ordered start-up steps, eager and hosted
 * services, health checks, request handling with a
 * {@linkcode RequestContext}, and a shutdown that ends within a deadline),
 * the {@linkcode ServiceLocator} (a named registry of lazily created
 * services), the {@linkcode EventAggregator} (publish/subscribe) and
 * {@linkcode Signal} (a typed single-event notification).
 *
 * @example Usage
 * ```ts
 * import { Application, EventAggregator } from "@vendor/kit/platform";
 *
 * const app = await Application.start({
 *   configuration: () => ({ greeting: "hello" }),
 *   services: (services) => {
 *     services.register("events", () => new EventAggregator());
 *   },
 * });
 * const events = app.services.get<EventAggregator>("events");
 * events.subscribe("user:created", (user) => console.log(user));
 * events.publish("user:created", { id: "u1" });
 * await app.stop();
 * ```
 *
 * @module
 */
export * from "./locator/service_locator.ts";
export type * from "./locator/service_registration.ts";
export * from "./locator/service_not_found_error.ts";
export * from "./locator/circular_dependency_error.ts";
export * from "./locator/async_service_error.ts";
export * from "./locator/service_creation_error.ts";
export * from "./event_aggregator.ts";
export * from "./signal.ts";
export * from "./host/health.ts";
export * from "./server/request_context.ts";
export * from "./host/application.ts";
export * from "./host/application_logger.ts";
export * from "./host/application_options.ts";
export * from "./host/define_application.ts";
export * from "./host/application_start_error.ts";
export * from "./locator/service_scope.ts";
export * from "./locator/service_lifetime_error.ts";
export * from "./server/fetch_handler.ts";
export * from "./server/server_options.ts";
export * from "./host/host_logger.ts";
export * from "./server/server_setting_error.ts";
