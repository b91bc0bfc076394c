// JSON reading for configuration files: strict JSON through JSON.parse (the
// fast path), then, when that fails, a small scanner that accepts the JSONC
// extras .NET's appsettings.json allows (// and /* */ comments, trailing
// commas) and otherwise reports where the text breaks as a line and column.
// The scanner never quotes the file's text in its description, so a secret
// next to a syntax error cannot end up in an error message.

/** Where and why a JSON text is invalid. */
export interface JsonSyntaxProblem {
  readonly description: string;
  readonly line: number;
  readonly column: number;
}

/** The outcome of {@linkcode parseConfigurationJson}. */
export type JsonParseResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: JsonSyntaxProblem };

/**
 * Parses JSON text, also accepting comments and trailing commas.
 *
 * @param text The file's text (a leading byte-order mark is ignored).
 * @returns The value, or the first syntax problem with its line and column.
 */
export function parseConfigurationJson(text: string): JsonParseResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch {
    // Fall through to the scanner: JSONC, or a real error to locate.
  }
  const scanner = new Scanner(source);
  const problem = scanner.run();
  if (problem !== undefined) return { ok: false, problem };
  try {
    return { ok: true, value: JSON.parse(scanner.stripped()) };
  } catch {
    // The scanner accepted something JSON.parse does not: report the start.
    return {
      ok: false,
      problem: {
        description: "the text is not valid JSON",
        line: 1,
        column: 1,
      },
    };
  }
}

class ScanError extends Error {
  constructor(readonly description: string, readonly offset: number) {
    super(description);
  }
}

// Deeper nesting is refused (the tree builder refuses it anyway), so the
// scanner's recursion stays far from the stack's limit.
const MAX_NESTING = 200;

const PUNCTUATION = new Set(["{", "}", "[", "]", ",", ":", '"']);

class Scanner {
  readonly #text: string;
  #pos = 0;
  #depth = 0;
  // Ranges [start, end) replaced by spaces in the stripped text (comments,
  // trailing commas); line breaks inside them are kept.
  readonly #blanks: [number, number][] = [];

  constructor(text: string) {
    this.#text = text;
  }

  run(): JsonSyntaxProblem | undefined {
    try {
      this.#skipSpace();
      if (this.#pos >= this.#text.length) {
        throw new ScanError("the file is empty", this.#pos);
      }
      this.#value();
      this.#skipSpace();
      if (this.#pos < this.#text.length) {
        throw new ScanError(
          `unexpected ${
            this.#describe(this.#pos)
          } after the end of the JSON value`,
          this.#pos,
        );
      }
      return undefined;
    } catch (error) {
      if (!(error instanceof ScanError)) throw error;
      return this.#locate(error.description, error.offset);
    }
  }

  stripped(): string {
    if (this.#blanks.length === 0) return this.#text;
    let result = "";
    let last = 0;
    for (const [start, end] of this.#blanks) {
      result += this.#text.slice(last, start);
      result += this.#text.slice(start, end).replace(/[^\r\n]/g, " ");
      last = end;
    }
    return result + this.#text.slice(last);
  }

  #locate(description: string, offset: number): JsonSyntaxProblem {
    let line = 1;
    let lineStart = 0;
    const text = this.#text;
    for (let i = 0; i < offset && i < text.length; i++) {
      if (text.charCodeAt(i) === 10) {
        line++;
        lineStart = i + 1;
      }
    }
    return { description, line, column: offset - lineStart + 1 };
  }

  #describe(offset: number): string {
    if (offset >= this.#text.length) return "end of file";
    const char = this.#text[offset];
    return PUNCTUATION.has(char) ? `'${char}'` : "character";
  }

  #skipSpace(): void {
    const text = this.#text;
    while (this.#pos < text.length) {
      const char = text[this.#pos];
      if (char === " " || char === "\t" || char === "\n" || char === "\r") {
        this.#pos++;
      } else if (char === "/" && text[this.#pos + 1] === "/") {
        const start = this.#pos;
        while (this.#pos < text.length && text[this.#pos] !== "\n") this.#pos++;
        this.#blanks.push([start, this.#pos]);
      } else if (char === "/" && text[this.#pos + 1] === "*") {
        const start = this.#pos;
        const end = text.indexOf("*/", this.#pos + 2);
        if (end < 0) throw new ScanError("unterminated /* comment", start);
        this.#pos = end + 2;
        this.#blanks.push([start, this.#pos]);
      } else {
        return;
      }
    }
  }

  #value(): void {
    const text = this.#text;
    const char = text[this.#pos];
    if (char === "{" || char === "[") {
      if (++this.#depth > MAX_NESTING) {
        throw new ScanError(
          `the text nests deeper than ${MAX_NESTING} levels; flatten that part of the configuration`,
          this.#pos,
        );
      }
      if (char === "{") this.#object();
      else this.#array();
      this.#depth--;
      return;
    }
    if (char === '"') return this.#string();
    if (char === "-" || (char >= "0" && char <= "9")) return this.#number();
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, this.#pos)) {
        this.#pos += word.length;
        return;
      }
    }
    throw new ScanError(
      `expected a value but found ${this.#describe(this.#pos)}`,
      this.#pos,
    );
  }

  #object(): void {
    this.#pos++; // {
    this.#skipSpace();
    if (this.#text[this.#pos] === "}") {
      this.#pos++;
      return;
    }
    for (;;) {
      if (this.#text[this.#pos] !== '"') {
        throw new ScanError(
          `expected a double-quoted property name but found ${
            this.#describe(this.#pos)
          }`,
          this.#pos,
        );
      }
      this.#string();
      this.#skipSpace();
      if (this.#text[this.#pos] !== ":") {
        throw new ScanError(
          `expected ':' after a property name but found ${
            this.#describe(this.#pos)
          }`,
          this.#pos,
        );
      }
      this.#pos++;
      this.#skipSpace();
      this.#value();
      if (this.#closes("}", "a property value")) return;
    }
  }

  #array(): void {
    this.#pos++; // [
    this.#skipSpace();
    if (this.#text[this.#pos] === "]") {
      this.#pos++;
      return;
    }
    for (;;) {
      this.#value();
      if (this.#closes("]", "an array element")) return;
    }
  }

  // After an object member or an array element: the closing bracket (true),
  // or a comma before the next item (false). A trailing comma before the
  // bracket is accepted and blanked out, as in .NET's JSON reader.
  #closes(close: "}" | "]", item: string): boolean {
    this.#skipSpace();
    const next = this.#text[this.#pos];
    if (next === close) {
      this.#pos++;
      return true;
    }
    if (next !== ",") {
      throw new ScanError(
        `expected ',' or '${close}' after ${item} but found ${
          this.#describe(this.#pos)
        }`,
        this.#pos,
      );
    }
    const comma = this.#pos;
    this.#pos++;
    this.#skipSpace();
    if (this.#text[this.#pos] !== close) return false;
    this.#blanks.push([comma, comma + 1]);
    this.#blanks.sort((a, b) => a[0] - b[0]);
    this.#pos++;
    return true;
  }

  #string(): void {
    const text = this.#text;
    const start = this.#pos;
    this.#pos++; // opening quote
    while (this.#pos < text.length) {
      const code = text.charCodeAt(this.#pos);
      if (code === 34) { // "
        this.#pos++;
        return;
      }
      if (code === 92) { // backslash
        const escape = text[this.#pos + 1];
        if (escape === "u") {
          if (
            !/^[0-9a-fA-F]{4}$/.test(text.slice(this.#pos + 2, this.#pos + 6))
          ) {
            throw new ScanError("invalid \\u escape in a string", this.#pos);
          }
          this.#pos += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) {
          throw new ScanError("invalid escape in a string", this.#pos);
        }
        this.#pos += 2;
        continue;
      }
      if (code < 0x20) {
        throw new ScanError(
          code === 10
            ? "unterminated string (line break inside a string)"
            : "control character inside a string",
          this.#pos,
        );
      }
      this.#pos++;
    }
    throw new ScanError("unterminated string", start);
  }

  #number(): void {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(
      this.#text.slice(this.#pos, this.#pos + 400),
    );
    if (match === null || match[0] === "-") {
      throw new ScanError("invalid number", this.#pos);
    }
    this.#pos += match[0].length;
    const next = this.#text[this.#pos];
    if (next !== undefined && /[0-9A-Za-z.]/.test(next)) {
      throw new ScanError("invalid number", this.#pos);
    }
  }
}
