import type * as v from "valibot";
import { loadValibot } from "#config/schema/valibot";

/**
 * The message a valibot object schema may carry for a value that is not an
 * object.
 */
type ObjectMessage = v.ErrorMessage<v.ObjectIssue> | undefined;

/**
 * A section {@linkcode extendSection} takes: a valibot object schema
 * (`v.object({ … })`, a required section such as Kit's `database`), or
 * `v.optional()` of one without a default (an optional section such as
 * Kit's `localization`).
 *
 * @ignore
 */
export type ExtendableSection =
  | PlainObject
  | v.OptionalSchema<PlainObject, undefined> & Plain;

// A piped object's checks, or a fallback, would be lost in the rebuilt
// section, so neither is taken.
type Plain = { readonly pipe?: never; readonly fallback?: never };
type PlainObject = v.ObjectSchema<v.ObjectEntries, ObjectMessage> & Plain;

/**
 * The entries (key schemas) of an {@linkcode ExtendableSection}.
 *
 * @typeParam S The section's schema type.
 * @ignore
 */
export type SectionEntries<S> = S extends
  v.ObjectSchema<infer E extends v.ObjectEntries, ObjectMessage> ? E
  : S extends v.OptionalSchema<
    v.ObjectSchema<infer E extends v.ObjectEntries, ObjectMessage>,
    undefined
  > ? E
  : never;

/**
 * What {@linkcode extendSection} accepts as new keys of section `S`: any
 * valibot schema for a key the section does not have, and for a key it has,
 * a schema whose output fits the one it replaces (`v.picklist(["en",
 * "fr"])` for a string key, `v.string()` to make an optional key required),
 * so Kit's modules still read what they expect.
 *
 * @typeParam S The section's schema type.
 * @ignore
 */
export type SectionExtension<S> =
  & v.ObjectEntries
  & {
    readonly [K in keyof SectionEntries<S>]?: v.GenericSchema<
      unknown,
      v.InferOutput<SectionEntries<S>[K]>
    >;
  };

/** The entries of `E` with those of `N` added or put in their place. */
type MergedEntries<E, N> = {
  readonly [K in keyof E | keyof N]: K extends keyof N ? N[K]
    : K extends keyof E ? E[K]
    : never;
};

/**
 * The schema {@linkcode extendSection} returns: section `S` with the
 * entries `N` added, required or optional as `S` was.
 *
 * @typeParam S The section's schema type.
 * @typeParam N The added entries.
 * @ignore
 */
export type ExtendedSection<S, N> = S extends
  v.ObjectSchema<infer E extends v.ObjectEntries, infer M extends ObjectMessage>
  ? ExtendedObject<E, N, M>
  : S extends v.OptionalSchema<
    v.ObjectSchema<
      infer E extends v.ObjectEntries,
      infer M extends ObjectMessage
    >,
    undefined
  > ? v.OptionalSchema<ExtendedObject<E, N, M>, undefined>
  : never;

/** The object schema of entries `E` with `N` merged in. */
type ExtendedObject<E, N, M extends ObjectMessage> = MergedEntries<E, N> extends
  infer Merged extends v.ObjectEntries ? v.ObjectSchema<Merged, M> : never;

interface SectionLike {
  readonly type?: unknown;
  readonly entries?: v.ObjectEntries;
  readonly message?: ObjectMessage;
  readonly wrapped?: SectionLike;
  readonly default?: unknown;
  readonly pipe?: unknown;
  readonly fallback?: unknown;
}

// A plain `v.object` (no pipe, no fallback): rebuilt from its entries,
// nothing of it is lost.
function isPlainObjectSchema(
  schema: SectionLike | undefined,
): schema is SectionLike & { entries: v.ObjectEntries } {
  return schema !== undefined && schema.type === "object" &&
    typeof schema.entries === "object" && schema.entries !== null &&
    schema.pipe === undefined && schema.fallback === undefined;
}

// `a string schema`, `an object schema`: what was passed, for the message.
function kind(type: unknown): string {
  const name = String(type);
  return `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name} schema`;
}

function describe(schema: SectionLike): string {
  if (schema === null || typeof schema !== "object") return String(schema);
  if (schema.type === "optional" && schema.wrapped !== undefined) {
    return schema.default !== undefined
      ? "v.optional() with a default"
      : `v.optional() of ${describe(schema.wrapped)}`;
  }
  if (schema.pipe !== undefined) return `v.pipe() of ${kind(schema.type)}`;
  if (schema.fallback !== undefined) return "v.fallback()";
  return kind(schema.type);
}

/**
 * Adds keys to a section of a configuration schema, such as one of Kit's
 * (`appConfigSchema.entries.localization`), and returns the extended
 * section, to put in its place in the application's schema. The section
 * stays what it was: a required section stays required; an optional one
 * stays optional (absent, the application gets `undefined` and nothing in
 * it is checked; present, its required keys are required). Kit's keys keep
 * their rules (types, bounds, coercion of environment strings, messages),
 * and the added keys get the same treatment.
 *
 * A key the section already has may be given again to narrow it (a list of
 * allowed values, required instead of optional); its output must fit the
 * one it replaces, since Kit's modules read it, else the call does not
 * compile.
 *
 * It takes a plain valibot object schema (`v.object`) or `v.optional()` of
 * one without a default: Kit's sections, and the application's own. A
 * subsection of Kit's (`cache:redis`) is extended by replacing it as a key
 * of its section.
 *
 * @typeParam S The section's schema type.
 * @typeParam N The added entries' type.
 * @param section The section to extend: `appConfigSchema.entries.<name>`,
 * or an object schema of the application's.
 * @param entries The keys to add, as valibot schemas, by name.
 * @returns A new section schema with the section's keys and `entries`
 * (an entry of `entries` replacing one of the same name); the section
 * passed in is not changed.
 * @throws {TypeError} When `section` is not a valibot object schema or
 * `v.optional()` of one without a default (a piped object, a
 * `v.strictObject`, an optional section with a default), or `entries` is not
 * an object.
 *
 * @example Usage
 * ```ts
 * import * as v from "valibot";
 * import {
 *   appConfigSchema,
 *   ConfigurationManager,
 *   extendSection,
 *   MemoryProvider,
 * } from "@vendor/kit/config";
 *
 * const schema = v.object({
 *   ...appConfigSchema.entries,
 *   // Kit's localization keys, and the application's cookie name.
 *   localization: extendSection(appConfigSchema.entries.localization, {
 *     cookieName: v.optional(v.string(), "culture"),
 *   }),
 * });
 *
 * const config = new ConfigurationManager({ schema });
 * config.addProvider(new MemoryProvider({
 *   "database:connectionString": "postgres://db/app",
 *   "api:baseUrl": "https://api.example.com",
 *   "logging:providers:0:type": "console",
 *   "localization:defaultCulture": "fr",
 * }));
 * await config.loadConfiguration();
 * config.getValue("localization:cookieName"); // "culture"
 * ```
 */
export function extendSection<
  S extends ExtendableSection,
  N extends SectionExtension<S>,
>(section: S, entries: N): ExtendedSection<S, N> {
  if (entries === null || typeof entries !== "object") {
    throw new TypeError(
      "extendSection(): the keys to add must be an object of valibot schemas, such as { name: v.string() }",
    );
  }
  const v = loadValibot();
  const given = section as SectionLike;
  if (isPlainObjectSchema(given)) {
    return v.object(
      { ...given.entries, ...entries },
      given.message,
    ) as unknown as ExtendedSection<S, N>;
  }
  if (
    given !== null && typeof given === "object" &&
    given.type === "optional" && given.default === undefined &&
    given.pipe === undefined && isPlainObjectSchema(given.wrapped)
  ) {
    return v.optional(
      v.object(
        { ...given.wrapped.entries, ...entries },
        given.wrapped.message,
      ),
    ) as unknown as ExtendedSection<S, N>;
  }
  throw new TypeError(
    `extendSection() takes a v.object() section or v.optional() of one without a default, got ${
      describe(given)
    }; write that section anew with v.object()`,
  );
}
