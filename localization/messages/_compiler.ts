import type { LocalizationResources } from "../loading/localization_provider.ts";
import { LocalizationMessageError } from "./localization_message_error.ts";
import { LocalizationReferenceError } from "./localization_reference_error.ts";
import type {
  LocalizationCompiledSegment,
  LocalizationDynamicText,
  LocalizationParseContext,
  LocalizationSegment,
  LocalizationValueParser,
} from "./value_parser.ts";

// A translation ready to use: a string when nothing depends on the
// arguments, otherwise a function that joins pre-split pieces.
export type Render = string | ((args: readonly unknown[]) => string);

export interface Compiled {
  readonly segments: readonly LocalizationCompiledSegment[];
  readonly render: Render;
  // How long the text is with its references expanded, counted generously:
  // its own characters (markers included) plus the expanded length of each
  // reference, once per place it is referred to (every choice of an ICU
  // message counts). What rendering can produce, arguments aside, is never
  // longer.
  readonly expandedLength: number;
}

// The translations of one culture of a fallback chain, with the texts
// compiled so far.
export interface Source {
  readonly culture: string;
  readonly texts: LocalizationResources;
  readonly compiled: Map<string, Compiled>;
}

interface Frame {
  readonly source: number;
  readonly key: string;
  readonly text: string;
  expandedLength: number;
}

// Compiles texts of the cultures of one setCulture, lazily, once per key and
// culture. References go through `reference()`, which keeps an explicit stack
// of the keys being compiled: a key met again is a cycle, and the depth is
// bounded, so no resource can overflow the call stack. The expanded length
// is bounded too, checked at each reference before its pieces are copied, so
// a text doubling at each level ends with a LocalizationMessageError instead
// of a string too long for the engine.
export class TranslationCompiler {
  readonly #culture: string;
  readonly #sources: readonly Source[];
  readonly #parsers: readonly LocalizationValueParser[];
  readonly #stack: Frame[] = [];

  constructor(
    culture: string,
    sources: readonly Source[],
    parsers: readonly LocalizationValueParser[],
  ) {
    this.#culture = culture;
    this.#sources = sources;
    this.#parsers = parsers;
  }

  // The index of the first source, from `start` on, that has `key`.
  find(key: string, start = 0): number {
    const sources = this.#sources;
    for (let i = start; i < sources.length; i++) {
      if (sources[i].texts.has(key)) return i;
    }
    return -1;
  }

  compile(index: number, key: string): Compiled {
    const source = this.#sources[index];
    const known = source.compiled.get(key);
    if (known !== undefined) return known;
    const stack = this.#stack;
    if (stack.some((frame) => frame.source === index && frame.key === key)) {
      throw new LocalizationReferenceError(
        this.#culture,
        [...stack.map((frame) => frame.key), key],
        true,
      );
    }
    if (stack.length > LocalizationReferenceError.MAX_DEPTH) {
      throw new LocalizationReferenceError(
        this.#culture,
        [...stack.map((frame) => frame.key), key],
        false,
      );
    }
    const text = source.texts.get(key) ?? "";
    const frame: Frame = {
      source: index,
      key,
      text,
      expandedLength: text.length,
    };
    stack.push(frame);
    let compiled: Compiled;
    try {
      compiled = join(
        this.#parse(text, index, source.culture, key),
        frame.expandedLength,
      );
    } finally {
      stack.pop();
    }
    source.compiled.set(key, compiled);
    return compiled;
  }

  #parse(
    text: string,
    index: number,
    sourceCulture: string,
    key: string,
  ): readonly LocalizationSegment[] {
    const context: LocalizationParseContext = {
      culture: this.#culture,
      sourceCulture,
      key,
      reference: (referenced) => {
        const found = this.find(referenced, index);
        if (found === -1) return undefined;
        const compiled = this.compile(found, referenced);
        const frame = this.#stack[this.#stack.length - 1];
        frame.expandedLength += compiled.expandedLength;
        if (
          frame.expandedLength > LocalizationMessageError.MAX_EXPANDED_LENGTH
        ) {
          throw tooLong(sourceCulture, key, frame.text, referenced);
        }
        return compiled.segments;
      },
    };
    let segments: LocalizationSegment[] = [text];
    for (const parser of this.#parsers) {
      const next: LocalizationSegment[] = [];
      for (const segment of segments) {
        if (typeof segment !== "string") {
          next.push(segment);
          continue;
        }
        const parsed = parser.parse(segment, context);
        if (typeof parsed === "string") next.push(parsed);
        // A loop, not push(...parsed): spreading a long list overflows the
        // stack.
        else for (const piece of parsed) next.push(piece);
      }
      segments = next;
    }
    return segments;
  }
}

// The error for a text whose references expand it past the bound, placed at
// the first reference to the key that took it past.
function tooLong(
  culture: string,
  key: string,
  text: string,
  referenced: string,
): LocalizationMessageError {
  const offset = Math.max(0, text.indexOf(`{@${referenced}}`));
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return new LocalizationMessageError(
    culture,
    key,
    { line, column, offset },
    "its {@key} references expand it to more than " +
      `${LocalizationMessageError.MAX_EXPANDED_LENGTH} characters`,
    "Refer to shorter texts or fewer times, or write the text out",
  );
}

function isDynamic(
  segment: LocalizationSegment,
): segment is LocalizationDynamicText {
  return typeof segment === "object" && segment !== null &&
    typeof (segment as LocalizationDynamicText).render === "function";
}

// Merges neighbouring text and builds the render function. Specialised for
// one and two arguments, the common cases.
function join(
  segments: readonly LocalizationSegment[],
  expandedLength: number,
): Compiled {
  const out: LocalizationCompiledSegment[] = [];
  const texts: string[] = [""];
  const parts: Array<(args: readonly unknown[]) => string> = [];
  for (const segment of segments) {
    if (isDynamic(segment)) {
      out.push(segment);
      parts.push(segment.render);
      texts.push("");
      continue;
    }
    const text = typeof segment === "string" ? segment : segment.text;
    if (text === "") continue;
    texts[texts.length - 1] += text;
    const previous = out[out.length - 1];
    if (previous !== undefined && !isDynamic(previous)) {
      out[out.length - 1] = { text: previous.text + text };
    } else {
      out.push({ text });
    }
  }
  return { segments: out, render: renderOf(texts, parts), expandedLength };
}

function renderOf(
  texts: readonly string[],
  parts: ReadonlyArray<(args: readonly unknown[]) => string>,
): Render {
  switch (parts.length) {
    case 0:
      return texts[0];
    case 1: {
      const [t0, t1] = texts;
      const [p0] = parts;
      return (args) => t0 + p0(args) + t1;
    }
    case 2: {
      const [t0, t1, t2] = texts;
      const [p0, p1] = parts;
      return (args) => t0 + p0(args) + t1 + p1(args) + t2;
    }
    default:
      return (args) => {
        let out = texts[0];
        for (let i = 0; i < parts.length; i++) {
          out += parts[i](args) + texts[i + 1];
        }
        return out;
      };
  }
}
