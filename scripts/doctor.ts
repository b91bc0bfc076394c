// `deno task doctor [folder]`: checks an application folder for the usual
// installation, compiler, configuration and service failures.
import { main } from "../cli/doctor/main.ts";

Deno.exitCode = await main(Deno.args);
