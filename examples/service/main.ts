/**
 * The Kit example service: `deno task serve` (Deno), `node dist/main.js`
 * (Node.js, built by the Dockerfile or examples/service/build_node.ts), or
 * `bun dist/main.js`. It listens on PORT (default 3000) until SIGTERM or
 * SIGINT, then stops accepting, finishes the requests in flight, disposes
 * everything and exits with 0.
 *
 * @module
 */
import { Application } from "@vendor/kit-platform";
import { serviceOptions } from "./service.ts";

await Application.run(serviceOptions());
