// The server side of bench/app_handle_load.ts, in its own process so the
// load generator does not share its event loop: a trivial Fetch handler
// served bare, or wrapped by app.handle(). Prints the port when listening.
import { Application } from "../platform/mod.ts";
import {
  FileLogProvider,
  type ILogProvider,
  LoggerManager,
} from "../logging/mod.ts";

const mode = Deno.args[0] ?? "bare";
const handler = (_request: Request): Response =>
  new Response('{"ok":true}', {
    headers: { "content-type": "application/json" },
  });

let serve: (request: Request) => Response | Promise<Response> = handler;
let app: Application | undefined;
if (mode !== "bare") {
  const providers: ILogProvider[] = mode === "kit-file"
    ? [new FileLogProvider({ filename: Deno.args[1] })]
    : [];
  app = await Application.start({
    configuration: () => ({}),
    logging: () =>
      new LoggerManager().configure({
        // "kit": the access line is below the level (the cost of the
        // context, the id and the header); "kit-file": written to a file.
        level: mode === "kit-file" ? "info" : "warning",
        providers,
      }),
  });
  serve = app.handle(handler);
}
const server = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(port) },
  serve,
);
Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await app?.stop();
  Deno.exit(0);
});
