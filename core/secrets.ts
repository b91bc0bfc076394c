// The one secret rule of Kit: which keys name secrets, and which values are
// secrets whatever their key (a URL's password, a Bearer token). The
// configuration (explain, toString, toJSON, change events, error messages),
// logging redaction and every error message that quotes a value use it, so
// they always agree.

/**
 * What a secret prints as: `***`.
 *
 * @example Usage
 * ```ts
 * import { SECRET_MASK } from "@vendor/kit/core";
 *
 * console.log(SECRET_MASK); // "***"
 * ```
 */
export const SECRET_MASK = "***" as const;

/**
 * The words that make a key secret, together with everything below it. A
 * key is split into segments at `:`; a segment matches a word when it ends
 * with it, ignoring letter case, `_`, `-`, `.`, blanks, a plural `s` and
 * trailing digits. Words of four letters or fewer (`pass`, `pwd`, `dsn`)
 * must start a word of the segment (`smtpPass`, `DB_PWD`, but not
 * `compass`); longer ones also match run together (`dbpassword`, `APIKEY`,
 * `csrftoken`).
 *
 * So `database:password`, `DB_PASSWORD`, `auth:jwtSecret`, `x-api-key`,
 * `aws:secretAccessKey`, `sentry:dsn`, `auth:apiKeys:0` and every key below
 * `credentials` are secret; `tokenExpiry`, `passwordPolicy:minLength` and
 * `compass` are not.
 *
 * @example Usage
 * ```ts
 * import { isSecretKey, secretKeyWords } from "@vendor/kit/core";
 *
 * secretKeyWords.includes("password"); // true
 * isSecretKey("smtp:pass"); // true
 * ```
 */
export const secretKeyWords: readonly string[] = Object.freeze([
  "password",
  "passwd",
  "pass",
  "pwd",
  "passphrase",
  "secret",
  "secretKey",
  "secretAccessKey",
  "privateKey",
  "accessKey",
  "apiKey",
  "token",
  "bearer",
  "authorization",
  "credential",
  "connectionString",
  "dsn",
]);

/**
 * The words that make a key secret only when they end its last segment and
 * its value is a single value or a list: a session or cookie value, a
 * private key. A group of settings under them stays visible, and so does a
 * `true`/`false` flag, so `session:timeout`, `cookie:maxAge`,
 * `sessionTimeout` and `isPrivate: true` print as they are while
 * `session`, `setCookie`, `cookies:0` and `jwt:private` are masked.
 *
 * @example Usage
 * ```ts
 * import { isSecretKey, secretValueKeyWords } from "@vendor/kit/core";
 *
 * secretValueKeyWords.includes("cookie"); // true
 * isSecretKey("http:cookie"); // true
 * isSecretKey("cookie:maxAge"); // false
 * ```
 */
export const secretValueKeyWords: readonly string[] = Object.freeze([
  "session",
  "cookie",
  "private",
]);

/**
 * What a key's name says about its value:
 * - `"none"`: not a secret by name (its value may still hold one by shape;
 *   see {@linkcode maskSecretText});
 * - `"value"`: secret when the value is a string, a number or a list (a
 *   session, a cookie, a private key); an object under it is a group of
 *   settings whose keys are judged one by one, and a boolean is a flag;
 * - `"all"`: secret whatever the value, with everything below it.
 */
export type SecretKeyMatch = "none" | "value" | "all";

/** Extra secret names: words matched like {@linkcode secretKeyWords}, or patterns tested against the whole key and each segment. */
export type SecretKeyPatterns = readonly (string | RegExp)[];

/**
 * Decides which keys are secret: the words of {@linkcode secretKeyWords} and
 * {@linkcode secretValueKeyWords}, plus the extra ones it was created with.
 * Made by {@linkcode createSecretMatcher}; decisions are cached.
 */
export interface SecretMatcher {
  /**
   * Judges a key.
   *
   * @param key A key or colon path (`cache:redis:password`), or a property
   * name (`X-Api-Key`).
   * @returns What the key's name says about its value.
   */
  match(key: string): SecretKeyMatch;
  /**
   * Tells whether the value of a key is secret by name, for a key that
   * names a single value (a configuration leaf, a property holding a
   * string).
   *
   * @param key A key, colon path or property name.
   * @returns `true` when the value must be masked.
   */
  isSecret(key: string): boolean;
  /**
   * Masks one value: `***` when the key names a secret (see
   * {@linkcode SecretKeyMatch} for which values a `"value"` match covers),
   * else a string with its secrets masked by shape
   * ({@linkcode maskSecretText}); any other value comes back as it is
   * (objects are not walked).
   *
   * @param key The key of the value.
   * @param value The value.
   * @returns The value safe to show.
   */
  maskValue(key: string, value: unknown): unknown;
}

const MAX_CACHED_KEYS = 2048;
// Words this long also match when run together with what precedes them.
const LONG_WORD = 5;
const NONE = 0;
const VALUE = 1;
const ALL = 2;
type Level = typeof NONE | typeof VALUE | typeof ALL;
const LEVELS: readonly SecretKeyMatch[] = ["none", "value", "all"];

function normalizeWord(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
}

// One segment as lower-cased letters and digits, with the offsets where its
// words start (after a separator, at a lower-to-upper change, at the last
// capital of an acronym, between letters and digits).
interface Segment {
  text: string;
  starts: number[];
}

function splitSegment(segment: string): Segment {
  let text = "";
  const starts: number[] = [];
  // 0 separator or start, 1 lower-case letter, 2 capital, 3 digit
  let previous = 0;
  let beforePrevious = 0;
  for (let i = 0; i < segment.length; i++) {
    const code = segment.charCodeAt(i);
    const char = segment[i];
    let kind: number;
    if (code >= 97 && code <= 122) kind = 1;
    else if (code >= 65 && code <= 90) kind = 2;
    else if (code >= 48 && code <= 57) kind = 3;
    else if (code > 127 && char.toLowerCase() !== char.toUpperCase()) {
      kind = char === char.toLowerCase() ? 1 : 2;
    } else kind = 0;
    if (kind === 0) {
      beforePrevious = previous;
      previous = 0;
      continue;
    }
    if (
      previous === 0 || (kind === 2 && previous === 1) ||
      (kind === 3) !== (previous === 3)
    ) {
      starts.push(text.length);
    } else if (kind === 1 && previous === 2 && beforePrevious === 2) {
      // "APIKey": the word "Key" starts at its capital.
      starts.push(text.length - 1);
    }
    text += kind === 2 ? char.toLowerCase() : char;
    beforePrevious = previous;
    previous = kind;
  }
  return { text, starts };
}

function endsWithWord(segment: Segment, words: readonly string[]): boolean {
  let end = segment.text.length;
  while (end > 0 && isDigit(segment.text.charCodeAt(end - 1))) end--;
  if (end === 0) return false;
  const text = end === segment.text.length
    ? segment.text
    : segment.text.slice(0, end);
  const plural = text.charCodeAt(end - 1) === 115; // "s"
  for (const word of words) {
    if (fits(segment, text, end, word)) return true;
    if (plural && fits(segment, text, end - 1, word)) return true;
  }
  return false;
}

function fits(
  segment: Segment,
  text: string,
  end: number,
  word: string,
): boolean {
  const start = end - word.length;
  if (start < 0 || !text.startsWith(word, start)) return false;
  return word.length >= LONG_WORD || start === 0 ||
    segment.starts.includes(start);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

const NUMERIC = /^\d+$/;

class Matcher implements SecretMatcher {
  readonly #words: string[];
  readonly #valueWords: string[];
  readonly #patterns: RegExp[];
  readonly #cache = new Map<string, Level>();

  constructor(extra: SecretKeyPatterns) {
    const words = secretKeyWords.map(normalizeWord);
    const patterns: RegExp[] = [];
    for (const item of extra) {
      if (typeof item === "string") {
        const word = normalizeWord(item);
        if (word !== "" && !words.includes(word)) words.push(word);
      } else if (item instanceof RegExp) patterns.push(item);
    }
    this.#words = words;
    this.#valueWords = secretValueKeyWords.map(normalizeWord);
    this.#patterns = patterns;
  }

  match(key: string): SecretKeyMatch {
    return LEVELS[this.#level(key)];
  }

  isSecret(key: string): boolean {
    return this.#level(key) !== NONE;
  }

  maskValue(key: string, value: unknown): unknown {
    const level = this.#level(key);
    if (level === ALL) return SECRET_MASK;
    if (
      level === VALUE && value !== null && value !== undefined &&
      typeof value !== "boolean" &&
      (typeof value !== "object" || Array.isArray(value))
    ) {
      return SECRET_MASK;
    }
    return typeof value === "string" ? maskSecretText(value) : value;
  }

  /** The cached decision: 0 none, 1 value, 2 all. */
  #level(key: string): Level {
    const cache = this.#cache;
    let level = cache.get(key);
    if (level !== undefined) return level;
    level = this.#decide(key);
    if (cache.size >= MAX_CACHED_KEYS) cache.clear();
    cache.set(key, level);
    return level;
  }

  #decide(key: string): Level {
    const segments = key.split(":");
    let last = -1;
    for (let i = segments.length - 1; i >= 0; i--) {
      if (!NUMERIC.test(segments[i])) {
        last = i;
        break;
      }
    }
    let level: Level = NONE;
    for (let i = 0; i <= last; i++) {
      const segment = segments[i];
      if (NUMERIC.test(segment)) continue;
      const split = splitSegment(segment);
      if (endsWithWord(split, this.#words)) return ALL;
      if (i === last && endsWithWord(split, this.#valueWords)) level = VALUE;
    }
    for (const pattern of this.#patterns) {
      if (testPattern(pattern, key)) return ALL;
      if (segments.length > 1) {
        for (const segment of segments) {
          if (testPattern(pattern, segment)) return ALL;
        }
      }
    }
    return level;
  }
}

function testPattern(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}

let shared: Matcher | undefined;

/**
 * Builds the secret rule for the default words plus `extra`. The matcher
 * caches its decisions (up to 2048 keys, then it starts over), so calling
 * it on every log entry or configuration value is cheap. Without `extra`
 * the same shared matcher is returned every time.
 *
 * @param extra More words (matched like {@linkcode secretKeyWords}: the end
 * of a segment, any letter case) or RegExp patterns (tested against the whole
 * key and each of its segments, as written).
 * @returns The matcher.
 * @throws {TypeError} When `extra` is not an array.
 *
 * @example Usage
 * ```ts
 * import { createSecretMatcher } from "@vendor/kit/core";
 *
 * const matcher = createSecretMatcher(["pin", /^ssn$/i]);
 * matcher.isSecret("device:pin"); // true
 * matcher.isSecret("person:SSN"); // true
 * matcher.match("session:timeout"); // "none"
 * matcher.maskValue("db:url", "postgres://app:pw@db/app"); // "postgres://app:***@db/app"
 * ```
 */
export function createSecretMatcher(extra?: SecretKeyPatterns): SecretMatcher {
  if (extra === undefined || extra.length === 0) {
    if (extra !== undefined && !Array.isArray(extra)) {
      throw new TypeError("The extra secret keys must be an array");
    }
    return shared ??= new Matcher([]);
  }
  if (!Array.isArray(extra)) {
    throw new TypeError("The extra secret keys must be an array");
  }
  return new Matcher(extra);
}

/**
 * Tells whether a key names a secret value by the default rule (see
 * {@linkcode secretKeyWords} and {@linkcode secretValueKeyWords}), plus any
 * extra words or patterns.
 *
 * @param key A key or colon path (`cache:redis:password`), or a property
 * name (`X-Api-Key`).
 * @param extra More words or patterns, as for {@linkcode createSecretMatcher}.
 * @returns `true` when a value under this key must be masked.
 *
 * @example Usage
 * ```ts
 * import { isSecretKey } from "@vendor/kit/core";
 *
 * isSecretKey("database:connectionString"); // true
 * isSecretKey("aws:secretAccessKey"); // true
 * isSecretKey("session:timeout"); // false
 * isSecretKey("device:pin", ["pin"]); // true
 * ```
 */
export function isSecretKey(key: string, extra?: SecretKeyPatterns): boolean {
  return createSecretMatcher(extra).isSecret(key);
}

// scheme://authority, the authority ending at a path, query, fragment,
// blank, quote or bracket. The userinfo is what comes before its last "@".
const URL_AUTHORITY = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'`<>\\]+)/gi;
// Authorization schemes followed by their credentials.
const AUTH_SCHEME = /\b(bearer|basic)(\s+)([A-Za-z0-9\-._~+/]+=*)/gi;
const ORDINARY_WORD = /^[a-z]+$/;
// One quick test that lets most text through: every shape needs "@", "=",
// '":' or the letters of "bearer"/"basic".
const SHAPE_HINT = /[@=]|":|[bB](?:earer|asic|EARER|ASIC)/;
const AUTH_HINT = /[bB](?:earer|asic|EARER|ASIC)/;
const MIN_LITERAL = 4;

/**
 * Masks the secrets a text carries by their shape, whatever key holds it:
 * - the password of a URL's user information
 *   (`postgres://app:***@db/app`; the user name stays);
 * - the credentials after `Bearer` and `Basic` (`Bearer ***`), unless they
 *   are an ordinary lower-case word;
 * - the value of a secret name in `name=value` pairs (query strings,
 *   connection strings: `?password=***`, `Pwd=***;`) and in JSON members
 *   (`"apiKey":"***"`), judged by {@linkcode isSecretKey};
 * - every occurrence of the given literal secrets (those shorter than four
 *   characters are ignored: they would mask ordinary text).
 *
 * Text shorter than eight characters, or with none of these shapes, is
 * returned after a few quick tests.
 *
 * @param text The text to show.
 * @param literals Secret values known to the caller, masked wherever they
 * appear.
 * @returns The text with every secret found replaced by `***`.
 *
 * @example Usage
 * ```ts
 * import { maskSecretText } from "@vendor/kit/core";
 *
 * maskSecretText("postgres://app:s3cret@db:5432/app");
 * // "postgres://app:***@db:5432/app"
 * maskSecretText("Authorization: Bearer eyJhbGciOi.x.y"); // "Authorization: Bearer ***"
 * maskSecretText("Server=db;User Id=app;Password=s3cret;"); // "Server=db;User Id=app;Password=***;"
 * maskSecretText("login failed for hunter22", ["hunter22"]); // "login failed for ***"
 * ```
 */
export function maskSecretText(
  text: string,
  literals?: readonly string[],
): string {
  let result = text;
  if (literals !== undefined) {
    for (const literal of literals) {
      if (typeof literal === "string" && literal.length >= MIN_LITERAL) {
        result = result.replaceAll(literal, SECRET_MASK);
      }
    }
  }
  if (result.length < 8 || !SHAPE_HINT.test(result)) return result;
  if (result.includes("@") && result.includes("://")) {
    result = result.replace(URL_AUTHORITY, maskAuthority);
  }
  if (AUTH_HINT.test(result)) {
    result = result.replace(AUTH_SCHEME, maskCredentials);
  }
  if (result.includes("=")) result = maskAssignments(result);
  if (result.includes('":')) result = maskJsonMembers(result);
  return result;
}

function maskAuthority(
  match: string,
  scheme: string,
  authority: string,
): string {
  const at = authority.lastIndexOf("@");
  if (at < 0) return match;
  const colon = authority.indexOf(":");
  if (colon < 0 || colon > at) return match;
  if (authority.slice(colon + 1, at) === SECRET_MASK) return match;
  return `${scheme}${authority.slice(0, colon)}:${SECRET_MASK}${
    authority.slice(at)
  }`;
}

function maskCredentials(
  match: string,
  scheme: string,
  blank: string,
  credentials: string,
): string {
  if (ORDINARY_WORD.test(credentials) || credentials === SECRET_MASK) {
    return match;
  }
  return `${scheme}${blank}${SECRET_MASK}`;
}

// name=value pairs (query strings, connection strings, command lines): the
// name runs back from "=" over letters, digits, "_", "." and "-" and must
// follow the start, a blank or one of ?&;,( ; the value runs to the next
// blank, &, ;, comma, quote, bracket or parenthesis.
function maskAssignments(text: string): string {
  const matcher = defaultMatcher();
  let out = "";
  let copied = 0;
  for (
    let equals = text.indexOf("=");
    equals !== -1;
    equals = text.indexOf("=", equals + 1)
  ) {
    let end = equals;
    while (end > 0 && isBlank(text.charCodeAt(end - 1))) end--;
    let start = end;
    while (start > 0 && isNameChar(text.charCodeAt(start - 1))) start--;
    if (
      start === end || (start > 0 && !opensName(text.charCodeAt(start - 1)))
    ) {
      continue;
    }
    let from = equals + 1;
    while (from < text.length && isBlank(text.charCodeAt(from))) from++;
    let to = from;
    while (to < text.length && !endsValue(text.charCodeAt(to))) to++;
    if (to === from || text.slice(from, to) === SECRET_MASK) continue;
    if (!matcher.isSecret(text.slice(start, end))) continue;
    out += text.slice(copied, from) + SECRET_MASK;
    copied = to;
    equals = to - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// "name":"value" members of JSON text whose name is secret.
function maskJsonMembers(text: string): string {
  const matcher = defaultMatcher();
  let out = "";
  let copied = 0;
  for (
    let colon = text.indexOf('":');
    colon !== -1;
    colon = text.indexOf('":', colon + 2)
  ) {
    const open = text.lastIndexOf('"', colon - 1);
    if (open === -1 || colon - open > 65) continue;
    const name = text.slice(open + 1, colon);
    if (name.includes("\\")) continue;
    let from = colon + 2;
    while (from < text.length && isBlank(text.charCodeAt(from))) from++;
    if (text.charCodeAt(from) !== 34) continue;
    from++;
    let to = from;
    while (to < text.length && text.charCodeAt(to) !== 34) {
      to += text.charCodeAt(to) === 92 ? 2 : 1;
    }
    if (to >= text.length) to = text.length;
    const value = text.slice(from, to);
    if (value === "" || value === SECRET_MASK) continue;
    if (matcher.maskValue(name, value) !== SECRET_MASK) continue;
    out += text.slice(copied, from) + SECRET_MASK;
    copied = to;
    colon = to - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

function isNameChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) || code === 95 || code === 46 || code === 45;
}

// The start, a blank or ? & ; , ( before a name.
function opensName(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 ||
    code === 63 || code === 38 || code === 59 || code === 44 || code === 40;
}

// A blank, & ; , quotes < > ) after a value.
function endsValue(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 ||
    code === 38 || code === 59 || code === 44 || code === 34 || code === 39 ||
    code === 96 || code === 60 || code === 62 || code === 41;
}

function defaultMatcher(): SecretMatcher {
  return shared ??= new Matcher([]);
}
