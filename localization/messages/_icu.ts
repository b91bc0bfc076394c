// ICU MessageFormat: cheap detection, parsing with the kept parser
// (@formatjs/icu-messageformat-parser) and compilation of its syntax tree into
// small functions of the `translate` arguments. Texts without ICU syntax never
// reach the parser, and in Node.js and Bun the parser is loaded only when the
// first ICU message is parsed (_icu_parser_node.ts): its element types (TYPE)
// are read from the loaded module, never at load.
import type {
  MessageFormatElement,
  PluralElement,
  SelectElement,
} from "@formatjs/icu-messageformat-parser";
import { loadIcuParser } from "#localization/messages/icu_parser";
import {
  dateFormatter,
  formatValue,
  numberFormatter,
  pluralSelector,
} from "./_formatters.ts";
import { LocalizationMessageError } from "./localization_message_error.ts";
import type {
  LocalizationCompiledSegment,
  LocalizationSegment,
} from "./value_parser.ts";

// After a "{": a name and "}" (`{name}`), or a name or number, "," and an
// argument type (`{count, plural, …}`). Names are letters, digits, "_" and
// "$" (what ICU accepts and code uses). Kit's own "{0}", "{@key}" and "{{" do
// not count, nor does a stray brace, "{ text }" or "{a.b}".
const ICU_ARGUMENT =
  /(?:[\p{L}_$][\p{L}\p{N}_$]*\}|\s*[\p{L}\p{N}_$]+\s*,\s*(?:plural|selectordinal|select|number|date|time)\b)/uy;

/** Whether `text` holds ICU MessageFormat arguments (named or typed). */
export function hasIcuSyntax(text: string): boolean {
  let open = text.indexOf("{");
  while (open !== -1) {
    if (text.charCodeAt(open + 1) === 123 /* { */) {
      open = text.indexOf("{", open + 2);
      continue;
    }
    ICU_ARGUMENT.lastIndex = open + 1;
    if (ICU_ARGUMENT.test(text)) return true;
    open = text.indexOf("{", open + 1);
  }
  return false;
}

const REFERENCE = /\{@([^{}\s]+)\}/g;

/** The parsed text, with `{@key}` references turned into arguments. */
export interface ParsedMessage {
  readonly elements: MessageFormatElement[];
  /** Generated argument name → referenced key. */
  readonly references: ReadonlyMap<string, string>;
}

/**
 * Parses an ICU message. `{@key}` references become arguments of the same
 * length (so error positions stay right) that the compiler resolves.
 *
 * @throws {LocalizationMessageError} On a syntax error.
 */
export function parseMessage(
  text: string,
  culture: string,
  key: string,
): ParsedMessage {
  const references = new Map<string, string>();
  const source = text.indexOf("{@") === -1
    ? text
    : text.replace(REFERENCE, (whole, referenced: string) => {
      let name = `_${references.size}`;
      if (name.length < whole.length - 2) {
        name += "_".repeat(whole.length - 2 - name.length);
      }
      references.set(name, referenced);
      return `{${name}}`;
    });
  const { parse } = loadIcuParser();
  try {
    return {
      elements: parse(source, { ignoreTag: true, requiresOtherClause: true }),
      references,
    };
  } catch (error) {
    const location = (error as {
      location?: { start?: { line: number; column: number; offset: number } };
    }).location?.start;
    throw new LocalizationMessageError(
      culture,
      key,
      location ?? { line: 1, column: 1, offset: 0 },
      error instanceof Error ? error.message : String(error),
    );
  }
}

type Part = (args: readonly unknown[], count: number) => string;

/** What compiling needs besides the tree. */
export interface CompileContext {
  readonly culture: string;
  readonly key: string;
  readonly reference: (
    key: string,
  ) => readonly LocalizationCompiledSegment[] | undefined;
}

/**
 * Compiles a parsed message into final pieces: fixed text and functions of
 * the arguments.
 *
 * @throws {LocalizationMessageError} On a style Kit does not know.
 */
export function compileMessage(
  message: ParsedMessage,
  context: CompileContext,
): LocalizationSegment[] {
  const { TYPE } = loadIcuParser();
  const segments: LocalizationSegment[] = [];
  for (const element of message.elements) {
    if (element.type === TYPE.literal) {
      segments.push({ text: element.value });
      continue;
    }
    if (element.type === TYPE.argument) {
      const referenced = message.references.get(element.value);
      if (referenced !== undefined) {
        const pieces = context.reference(referenced);
        if (pieces === undefined) segments.push({ text: `{@${referenced}}` });
        // A loop, not push(...pieces): spreading a long list overflows the
        // stack.
        else for (const piece of pieces) segments.push(piece);
        continue;
      }
    }
    const part = compileElement(element, message, context);
    segments.push({ render: (args) => part(args, 0) });
  }
  return segments;
}

function compileAll(
  elements: readonly MessageFormatElement[],
  message: ParsedMessage,
  context: CompileContext,
): Part {
  const { TYPE } = loadIcuParser();
  const parts: Part[] = [];
  let text = "";
  for (const element of elements) {
    if (element.type === TYPE.literal) {
      text += element.value;
      continue;
    }
    if (text !== "") {
      const fixed = text;
      parts.push(() => fixed);
      text = "";
    }
    parts.push(compileElement(element, message, context));
  }
  if (parts.length === 0) return () => text;
  if (text !== "") {
    const fixed = text;
    parts.push(() => fixed);
  }
  if (parts.length === 1) return parts[0];
  if (parts.length === 2) {
    const [a, b] = parts;
    return (args, count) => a(args, count) + b(args, count);
  }
  if (parts.length === 3) {
    const [a, b, c] = parts;
    return (args, count) => a(args, count) + b(args, count) + c(args, count);
  }
  return (args, count) => {
    let out = "";
    for (const part of parts) out += part(args, count);
    return out;
  };
}

// Reads an argument: `{0}` is the first argument after the key, `{name}` a
// property of the first argument when that is an object.
type Reader = (args: readonly unknown[]) => unknown;

function readerOf(name: string): Reader {
  if (/^\d+$/.test(name)) {
    const index = Number(name);
    return (args) => args[index];
  }
  return (args) => {
    const values = args[0];
    return typeof values === "object" && values !== null
      ? (values as Record<string, unknown>)[name]
      : undefined;
  };
}

function compileElement(
  element: MessageFormatElement,
  message: ParsedMessage,
  context: CompileContext,
): Part {
  const { TYPE } = loadIcuParser();
  const { culture } = context;
  switch (element.type) {
    case TYPE.literal: {
      const text = element.value;
      return () => text;
    }
    case TYPE.pound: {
      const format = numberFormatter(culture);
      return (_args, count) => format.format(count);
    }
    case TYPE.tag:
      // Not produced with ignoreTag; kept for completeness.
      return compileAll(element.children, message, context);
    case TYPE.argument: {
      const referenced = message.references.get(element.value);
      if (referenced !== undefined) {
        const pieces = context.reference(referenced);
        if (pieces === undefined) {
          const text = `{@${referenced}}`;
          return () => text;
        }
        return (args) => {
          let out = "";
          for (const piece of pieces) {
            out += "render" in piece ? piece.render(args) : piece.text;
          }
          return out;
        };
      }
      const read = readerOf(element.value);
      const marker = `{${element.value}}`;
      return (args) => {
        const value = read(args);
        return value === undefined ? marker : formatValue(value, culture);
      };
    }
    case TYPE.number: {
      const read = readerOf(element.value);
      const marker = `{${element.value}}`;
      const format = numberFormatter(
        culture,
        numberOptions(element.style, context),
      );
      return (args) => {
        const value = read(args);
        if (value === undefined) return marker;
        return typeof value === "number" || typeof value === "bigint"
          ? format.format(value)
          : format.format(Number(value));
      };
    }
    case TYPE.date:
    case TYPE.time: {
      const read = readerOf(element.value);
      const marker = `{${element.value}}`;
      const format = dateFormatter(
        culture,
        dateOptions(element.type === TYPE.date, element.style, context),
      );
      return (args) => {
        const value = read(args);
        if (value === undefined) return marker;
        const date = value instanceof Date
          ? value
          : new Date(value as number | string);
        return Number.isNaN(date.getTime())
          ? String(value)
          : format.format(date);
      };
    }
    case TYPE.select:
      return compileSelect(element, message, context);
    case TYPE.plural:
      return compilePlural(element, message, context);
  }
}

function compileSelect(
  element: SelectElement,
  message: ParsedMessage,
  context: CompileContext,
): Part {
  const read = readerOf(element.value);
  const choices = new Map<string, Part>();
  for (const [name, option] of Object.entries(element.options)) {
    choices.set(name, compileAll(option.value, message, context));
  }
  const other = choices.get("other")!;
  return (args, count) => {
    const value = read(args);
    const choice = choices.get(String(value));
    return (choice ?? other)(args, count);
  };
}

function compilePlural(
  element: PluralElement,
  message: ParsedMessage,
  context: CompileContext,
): Part {
  const read = readerOf(element.value);
  const marker = `{${element.value}}`;
  const offset = element.offset;
  const exact = new Map<number, Part>();
  const categories = new Map<string, Part>();
  for (const [name, option] of Object.entries(element.options)) {
    const part = compileAll(option.value, message, context);
    if (name.startsWith("=")) exact.set(Number(name.slice(1)), part);
    else categories.set(name, part);
  }
  const other = categories.get("other")!;
  const rules = pluralSelector(
    context.culture,
    element.pluralType ?? "cardinal",
  );
  return (args) => {
    const raw = read(args);
    if (raw === undefined) return marker;
    const value = typeof raw === "number" ? raw : Number(raw);
    if (exact.size !== 0) {
      const match = exact.get(value);
      if (match !== undefined) return match(args, value - offset);
    }
    const shown = value - offset;
    const choice = categories.get(rules.select(shown));
    return (choice ?? other)(args, shown);
  };
}

const NUMBER_STYLES: Record<string, Intl.NumberFormatOptions> = {
  integer: { maximumFractionDigits: 0 },
  percent: { style: "percent" },
};

function numberOptions(
  style: unknown,
  context: CompileContext,
): Intl.NumberFormatOptions | undefined {
  if (style === undefined || style === null || style === "") return undefined;
  if (typeof style === "string") {
    const known = NUMBER_STYLES[style];
    if (known !== undefined) return known;
    throw unknownStyle("number", style, context);
  }
  return (style as { parsedOptions: Intl.NumberFormatOptions }).parsedOptions;
}

const DATE_STYLES = new Set(["short", "medium", "long", "full"]);

function dateOptions(
  isDate: boolean,
  style: unknown,
  context: CompileContext,
): Intl.DateTimeFormatOptions | undefined {
  if (style === undefined || style === null || style === "") {
    return isDate ? undefined : { timeStyle: "medium" };
  }
  if (typeof style === "string") {
    if (!DATE_STYLES.has(style)) {
      throw unknownStyle(isDate ? "date" : "time", style, context);
    }
    const value = style as "short" | "medium" | "long" | "full";
    return isDate ? { dateStyle: value } : { timeStyle: value };
  }
  return (style as { parsedOptions: Intl.DateTimeFormatOptions })
    .parsedOptions;
}

function unknownStyle(
  type: string,
  style: string,
  context: CompileContext,
): LocalizationMessageError {
  const known = type === "number"
    ? "integer, percent or a ::skeleton"
    : "short, medium, long, full or a ::skeleton";
  return new LocalizationMessageError(
    context.culture,
    context.key,
    { line: 1, column: 1, offset: 0 },
    `unknown ${type} style ${JSON.stringify(style)} (use ${known})`,
  );
}

/** The type of one argument of a message, as the key types declare it. */
export type ArgumentKind = "value" | "number" | "date" | "string";

/**
 * The arguments a message reads, by name, with what they must be. A name used
 * in two ways keeps the narrower kind (plural → number).
 */
export function argumentsOf(
  elements: readonly MessageFormatElement[],
  out: Map<string, ArgumentKind> = new Map(),
): Map<string, ArgumentKind> {
  const { TYPE } = loadIcuParser();
  const note = (name: string, kind: ArgumentKind): void => {
    const known = out.get(name);
    if (known === undefined || known === "value") out.set(name, kind);
  };
  for (const element of elements) {
    switch (element.type) {
      case TYPE.argument:
        note(element.value, "value");
        break;
      case TYPE.number:
        note(element.value, "number");
        break;
      case TYPE.date:
      case TYPE.time:
        note(element.value, "date");
        break;
      case TYPE.plural:
        note(element.value, "number");
        for (const option of Object.values(element.options)) {
          argumentsOf(option.value, out);
        }
        break;
      case TYPE.select:
        note(element.value, "string");
        for (const option of Object.values(element.options)) {
          argumentsOf(option.value, out);
        }
        break;
      case TYPE.tag:
        argumentsOf(element.children, out);
        break;
    }
  }
  return out;
}
