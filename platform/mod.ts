/**
 * The platform package of Kit (`@vendor/kit-platform`): the
 * {@linkcode ServiceLocator} (a named registry of lazily created services),
 * the {@linkcode EventAggregator} (publish/subscribe) and {@linkcode Signal}
 * (a typed single-event notification).
 *
 * @example Usage
 * ```ts
 * import { EventAggregator, ServiceLocator } from "@vendor/kit/platform";
 *
 * const locator = new ServiceLocator();
 * locator.register("events", () => new EventAggregator());
 * const events = locator.get<EventAggregator>("events");
 * events.subscribe("user:created", (user) => console.log(user));
 * events.publish("user:created", { id: "u1" });
 * await locator.dispose();
 * ```
 *
 * @module
 */
export * from "./service_locator.ts";
export * from "./service_not_found_error.ts";
export * from "./circular_dependency_error.ts";
export * from "./async_service_error.ts";
export * from "./service_creation_error.ts";
export * from "./event_aggregator.ts";
export * from "./signal.ts";
export * from "./health.ts";
export * from "./request_context.ts";
export * from "./application.ts";
export * from "./application_options.ts";
export * from "./application_start_error.ts";
