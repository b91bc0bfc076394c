// `deno task i18n:types <resource.json>` and `deno task i18n:check <folder>`:
// the kit-i18n command (see docs/localization.md).
import { main } from "../cli/i18n/main.ts";

Deno.exitCode = await main(Deno.args);
