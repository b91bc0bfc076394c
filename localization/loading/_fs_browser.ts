// Browser flavour of the localization file adapter (the npm build's `browser`
// condition uses it in place of _fs_node.ts): a page has no file system, so
// JsonFileLocalizationLoader fails clearly and no `node:` module reaches the
// bundle. Use HttpLocalizationLoader in browsers.
import type { BodyTooLarge } from "./_read_body.ts";

export function readTranslationFile(
  path: string,
  _limit: number,
): Promise<string | BodyTooLarge> {
  return Promise.reject(
    new Error(
      `JsonFileLocalizationLoader needs a file system (Deno, Node.js or Bun) to read ${path}; in a browser use HttpLocalizationLoader`,
    ),
  );
}
