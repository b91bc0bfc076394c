/**
 * Kit demo: the four-step start-up of spec §1 with the packages that exist so
 * far. Run: `npx -y deno@2.9.6 task demo` (or `deno task demo`).
 *
 * @module
 */
import { format, toUpperSnakeCase } from "../core/mod.ts";
import { EventAggregator, ServiceLocator, Signal } from "../platform/mod.ts";

interface User {
  id: string;
  name: string;
}
interface AppEvents {
  "user:created": User;
}

// Step 1: configuration, registered under "config" as a factory.
ServiceLocator.register(
  "config",
  () => ({ appName: "kit-demo", greeting: "Hello {0}!" }),
);

// Steps 2 and 3: logging and platform services.
ServiceLocator.register("events", () => new EventAggregator<AppEvents>());

// Step 4: application services. The mailer reacts to user:created without the
// user service knowing about it (spec §6), and removes its subscription when
// the locator disposes it.
class Mailer {
  readonly sent: string[] = [];
  #unsubscribe: () => void;
  constructor(events: EventAggregator<AppEvents>, greeting: string) {
    this.#unsubscribe = events.subscribe("user:created", (user) => {
      this.sent.push(format(greeting, user.name));
    });
  }
  dispose(): void {
    this.#unsubscribe();
  }
}
class UserService {
  constructor(readonly events: EventAggregator<AppEvents>) {}
  create(name: string): User {
    const user = { id: crypto.randomUUID(), name };
    this.events.publish("user:created", user);
    return user;
  }
}
ServiceLocator.register(
  "mailer",
  (l) =>
    new Mailer(
      l.get<EventAggregator<AppEvents>>("events"),
      l.get<{ greeting: string }>("config").greeting,
    ),
);
ServiceLocator.register("users", (l) => new UserService(l.get("events")));

const mailer = ServiceLocator.get<Mailer>("mailer");
const users = ServiceLocator.get<UserService>("users");
users.create("Ada");
users.create("Grace");
console.log("mails sent:", mailer.sent);

const themeChanged = new Signal<string>();
themeChanged.add((theme) => console.log("theme is now", theme));
themeChanged.dispatch("dark");

console.log(
  "env name of connectionString:",
  toUpperSnakeCase("connectionString"),
);

try {
  ServiceLocator.get("usres");
} catch (error) {
  console.log((error as Error).message);
}

await ServiceLocator.dispose();
console.log("disposed; demo finished");
