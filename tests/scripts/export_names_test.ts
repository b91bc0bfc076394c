// One name per thing across Kit's modules (scripts/_export_names.ts, part
// of the module check): a name two modules define fails, naming both files;
// runtime variants inside a module and core's private helpers copied into
// internal/ stay allowed; the checkout passes. The check reads a checkout
// under Deno; under Node.js and Bun (the npm passes) there is nothing to
// check.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;
const skip = isDeno ? false : "the name check reads a checkout under Deno";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface NamesModule {
  definedNames(source: string): string[];
  repeatedNames(
    files: readonly { file: string; source: string }[],
  ): string[];
  checkExportNames(root: string): Promise<string[]>;
}

// Loaded by URL at run time: the npm passes transpile this file, whose
// static imports must name Kit's modules.
function names(): Promise<NamesModule> {
  return import(
    new URL("../../scripts/_export_names.ts", import.meta.url).href
  ) as Promise<NamesModule>;
}

describe("one name per thing across modules", { skip }, () => {
  it("reads definitions, not re-exports", async () => {
    const { definedNames } = await names();
    assert.deepEqual(
      definedNames(
        [
          "export const SCOPE = 1;",
          "export async function load(): Promise<void> {}",
          "export abstract class Base {}",
          "export interface Shape {}",
          "export type Kind = 1;",
          'export { other } from "./other.ts";',
          'export type { Thing } from "./thing.ts";',
          "const hidden = 2;",
        ].join("\n"),
      ),
      ["SCOPE", "load", "Base", "Shape", "Kind"],
    );
  });

  it("refuses a name two modules define, naming both files", async () => {
    const { repeatedNames } = await names();
    assert.deepEqual(
      repeatedNames([
        {
          file: "http/cache/_http_cache.ts",
          source: "export interface CacheEntry {}",
        },
        {
          file: "caching/cache_provider.ts",
          source: "export interface CacheEntry {}",
        },
        { file: "caching/_telemetry.ts", source: "export const SCOPE = 1;" },
      ]),
      [
        "'CacheEntry' is defined by caching/cache_provider.ts, http/cache/_http_cache.ts: one name per thing across modules; rename all but one (a module's private names can carry its name, as HTTP_SCOPE does)",
      ],
    );
  });

  it("allows one module's runtime variants to share names", async () => {
    const { repeatedNames } = await names();
    assert.deepEqual(
      repeatedNames([
        {
          file: "platform/server/_server_deno.ts",
          source: "export function listen() {}",
        },
        {
          file: "platform/server/_server_node.ts",
          source: "export function listen() {}",
        },
      ]),
      [],
    );
  });

  it("allows internal/'s copy of a private helper of core, not of a public one", async () => {
    const { repeatedNames } = await names();
    assert.deepEqual(
      repeatedNames([
        {
          file: "core/_unref_timer.ts",
          source: "export function unrefTimer() {}",
        },
        {
          file: "internal/unref_timer.ts",
          source: "export function unrefTimer() {}",
        },
        { file: "core/strings.ts", source: "export function quote() {}" },
        {
          file: "internal/quote_value.ts",
          source: "export function quote() {}",
        },
      ]),
      [
        "'quote' is defined by core/strings.ts, internal/quote_value.ts: one name per thing across modules; rename all but one (a module's private names can carry its name, as HTTP_SCOPE does)",
      ],
    );
  });

  it("finds every exported name of the checkout to be one thing", async () => {
    const { checkExportNames } = await names();
    assert.deepEqual(await checkExportNames(ROOT), []);
  });
});
