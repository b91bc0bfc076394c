// The consumer check's application (scripts/consumer_check.ts): compiled by
// tsc against the packed npm tarballs, once with the compiler settings of spec
// §7/§9 (CommonJS, moduleResolution node) and once with nodenext as ESM, then
// run with Node. It must use every package.
import { format, toUpperSnakeCase } from "@vendor/kit-core";
import {
  EventAggregator,
  ServiceLocator,
  ServiceNotFoundError,
} from "@vendor/kit-platform";

interface Events {
  "user:created": { name: string };
}

const lines: string[] = [];
ServiceLocator.register("events", () => new EventAggregator<Events>());
const events = ServiceLocator.get<EventAggregator<Events>>("events");
events.subscribe("user:created", (user) => {
  lines.push(format("created {0}", user.name));
});
events.publish("user:created", { name: "Ada" });
lines.push(toUpperSnakeCase("connectionString"));
try {
  ServiceLocator.get("missing");
} catch (error) {
  if (error instanceof ServiceNotFoundError) lines.push(error.message);
}

console.log(lines.join("|"));
console.log("consumer ok");
