import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DefaultCultureProvider,
  FormatLocalizationValueParser,
  LocalizationManager,
  LocalizationReferenceError,
  type LocalizationValueParser,
  MapLocalizationProvider,
  RefLocalizationValueParser,
} from "../../localization/mod.ts";
import { type Texts, toMaps } from "./_helpers.ts";

async function managerFor(
  texts: Texts,
  culture: string,
  parsers?: LocalizationValueParser[],
  fallbackCulture?: string,
): Promise<LocalizationManager> {
  const manager = new LocalizationManager(
    new MapLocalizationProvider(toMaps(texts)),
    new DefaultCultureProvider(culture),
    (key) => `[${key}]`,
    undefined,
    parsers,
    { fallbackCulture },
  );
  await manager.setCulture(culture);
  return manager;
}

// --- FormatLocalizationValueParser ---

test("FormatLocalizationValueParser fills {0} and {1} from the arguments, in any order and repeated", async () => {
  const m = await managerFor(
    {
      en: {
        a: "{1} then {0}, {1} again",
        b: "Hello {0}, you have {1} messages",
      },
    },
    "en",
    [new FormatLocalizationValueParser()],
  );
  assert.equal(m.t("a", "x", "y"), "y then x, y again");
  assert.equal(m.t("b", "Ada", "two"), "Hello Ada, you have two messages");
});

test("FormatLocalizationValueParser turns {{ and }} into literal braces", async () => {
  const m = await managerFor(
    { en: { a: "{{0}} is literal, {0} is not", b: "{{{0}}}", c: "{{}}" } },
    "en",
    [new FormatLocalizationValueParser()],
  );
  assert.equal(m.t("a", "x"), "{0} is literal, x is not");
  assert.equal(m.t("b", "x"), "{x}");
  assert.equal(m.t("c"), "{}");
});

test("FormatLocalizationValueParser leaves a marker with no argument in place", async () => {
  const m = await managerFor({ en: { a: "{0} and {1}" } }, "en", [
    new FormatLocalizationValueParser(),
  ]);
  assert.equal(m.t("a", "only"), "only and {1}");
  assert.equal(m.t("a"), "{0} and {1}");
});

test("FormatLocalizationValueParser formats numbers with Intl for the culture", async () => {
  const texts = { en: { n: "{0}" }, de: { n: "{0}" }, fr: { n: "{0}" } };
  for (const culture of ["en", "de", "fr"]) {
    const m = await managerFor(texts, culture, [
      new FormatLocalizationValueParser(),
    ]);
    assert.equal(
      m.t("n", 1234567.5),
      new Intl.NumberFormat(culture).format(1234567.5),
    );
  }
  const en = await managerFor(texts, "en", [
    new FormatLocalizationValueParser(),
  ]);
  const de = await managerFor(texts, "de", [
    new FormatLocalizationValueParser(),
  ]);
  assert.equal(en.t("n", 1234.5), "1,234.5");
  assert.equal(de.t("n", 1234.5), "1.234,5");
  assert.equal(en.t("n", 12345678901234567890n), "12,345,678,901,234,567,890");
});

test("FormatLocalizationValueParser formats dates with Intl for the culture", async () => {
  const date = new Date(Date.UTC(2024, 0, 31, 12));
  const m = await managerFor({ "de-DE": { d: "Am {0}" } }, "de-DE", [
    new FormatLocalizationValueParser({ dateFormat: { timeZone: "UTC" } }),
  ]);
  assert.equal(m.t("d", date), "Am 31.1.2024");
  assert.equal(m.t("d", new Date(Number.NaN)), "Am Invalid Date");
});

test("FormatLocalizationValueParser applies numberFormat and dateFormat options", async () => {
  const m = await managerFor({ en: { p: "{0} / {1}" } }, "en", [
    new FormatLocalizationValueParser({
      numberFormat: { minimumFractionDigits: 2 },
      dateFormat: { year: "numeric", timeZone: "UTC" },
    }),
  ]);
  assert.equal(m.t("p", 3, new Date(Date.UTC(2030, 5, 1))), "3.00 / 2030");
});

test("FormatLocalizationValueParser inserts strings as they are and other values with String()", async () => {
  const m = await managerFor({ en: { a: "{0}|{1}|{2}|{3}|{4}" } }, "en", [
    new FormatLocalizationValueParser(),
  ]);
  assert.equal(
    m.t("a", "1234", null, undefined, true, { toString: () => "obj" }),
    "1234|null|undefined|true|obj",
  );
});

test("FormatLocalizationValueParser formats numbers for the requested culture even when a fallback culture supplied the text", async () => {
  const m = await managerFor(
    { en: { n: "Total: {0}" }, de: {} },
    "de",
    [new FormatLocalizationValueParser()],
    "en",
  );
  assert.equal(m.t("n", 1234.5), "Total: 1.234,5");
});

test("FormatLocalizationValueParser creates Intl formatters once per culture, not per call or per key", async () => {
  const OriginalNumberFormat = Intl.NumberFormat;
  let created = 0;
  const Counting = function (
    this: unknown,
    ...args: ConstructorParameters<typeof Intl.NumberFormat>
  ) {
    created++;
    return new OriginalNumberFormat(...args);
  } as unknown as typeof Intl.NumberFormat;
  Intl.NumberFormat = Counting;
  try {
    const parser = new FormatLocalizationValueParser();
    const texts = { en: { a: "{0}", b: "x {0}" }, de: { a: "{0}" } };
    const en = await managerFor(texts, "en", [parser]);
    for (let i = 0; i < 50; i++) {
      en.t("a", i);
      en.t("b", i);
    }
    assert.equal(created, 1);
    const de = await managerFor(texts, "de", [parser]);
    de.t("a", 1);
    de.t("a", 2);
    assert.equal(created, 2);
  } finally {
    Intl.NumberFormat = OriginalNumberFormat;
  }
});

test("value parsers run once per key and culture, not on every translate() call", async () => {
  let parsed = 0;
  const counting: LocalizationValueParser = {
    parse: (text) => {
      parsed++;
      return text;
    },
  };
  const m = await managerFor({ en: { a: "Hi {0}", b: "B" } }, "en", [
    new FormatLocalizationValueParser(),
    counting,
  ]);
  for (let i = 0; i < 100; i++) {
    m.t("a", i);
    m.t("b");
  }
  // "Hi " for a (the argument is final), "B" for b.
  assert.equal(parsed, 2);
});

test("value parsers are applied in the order given", async () => {
  const one: LocalizationValueParser = { parse: (text) => `${text}1` };
  const two: LocalizationValueParser = { parse: (text) => `${text}2` };
  const texts = { en: { a: "x" } };
  assert.equal((await managerFor(texts, "en", [one, two])).t("a"), "x12");
  assert.equal((await managerFor(texts, "en", [two, one])).t("a"), "x21");
});

test("LocalizationManager applies FormatLocalizationValueParser and RefLocalizationValueParser by default", async () => {
  const m = await managerFor(
    { en: { app: "Kit", title: "{@app} says {0}" } },
    "en",
  );
  assert.equal(m.t("title", "hi"), "Kit says hi");
});

test("an empty value parser list uses texts as written", async () => {
  const m = await managerFor({ en: { app: "Kit", t: "{@app} {0}" } }, "en", []);
  assert.equal(m.t("t", "x"), "{@app} {0}");
});

// --- RefLocalizationValueParser ---

const refParsers = () => [
  new FormatLocalizationValueParser(),
  new RefLocalizationValueParser(),
];

test("RefLocalizationValueParser replaces {@group.key} with the text of that key", async () => {
  const m = await managerFor(
    {
      en: {
        "common.app": "Kit",
        "home.title": "Welcome to {@common.app}!",
      },
    },
    "en",
    refParsers(),
  );
  assert.equal(m.t("home.title"), "Welcome to Kit!");
});

test("RefLocalizationValueParser resolves nested references", async () => {
  const m = await managerFor(
    {
      en: {
        "a": "A({@b})",
        "b": "B({@c})",
        "c": "C({@d})",
        "d": "D",
      },
    },
    "en",
    refParsers(),
  );
  assert.equal(m.t("a"), "A(B(C(D)))");
});

test("RefLocalizationValueParser passes the call's arguments to {0} markers of referenced texts", async () => {
  const m = await managerFor(
    { en: { greet: "Hello {0}", line: "{@greet}, you have {1} messages" } },
    "en",
    refParsers(),
  );
  assert.equal(m.t("line", "Ada", 3), "Hello Ada, you have 3 messages");
});

test("RefLocalizationValueParser gives the same result whichever order it runs in with the format parser", async () => {
  const texts = {
    en: {
      app: "Kit {0}",
      t: "{@app} / {1} / {{@app}} / {{0}}",
    },
  };
  const formatFirst = await managerFor(texts, "en", [
    new FormatLocalizationValueParser(),
    new RefLocalizationValueParser(),
  ]);
  const refFirst = await managerFor(texts, "en", [
    new RefLocalizationValueParser(),
    new FormatLocalizationValueParser(),
  ]);
  const expected = "Kit a / b / {@app} / {0}";
  assert.equal(formatFirst.t("t", "a", "b"), expected);
  assert.equal(refFirst.t("t", "a", "b"), expected);
});

test("RefLocalizationValueParser leaves a reference to an unknown key as written", async () => {
  const m = await managerFor(
    { en: { a: "see {@nowhere.key}" } },
    "en",
    refParsers(),
  );
  assert.equal(m.t("a"), "see {@nowhere.key}");
});

test("RefLocalizationValueParser follows the fallback chain for a key the culture lacks", async () => {
  const m = await managerFor(
    { en: { app: "Kit" }, fr: { title: "Bienvenue dans {@app}" } },
    "fr",
    refParsers(),
    "en",
  );
  assert.equal(m.t("title"), "Bienvenue dans Kit");
});

test("a reference in a text a fallback culture supplied is read from that culture onwards", async () => {
  const m = await managerFor(
    {
      en: { app: "Kit", title: "Welcome to {@app}" },
      fr: { app: "Le Kit" },
    },
    "fr",
    refParsers(),
    "en",
  );
  // The title comes from en, the reference is read from en onwards.
  assert.equal(m.t("title"), "Welcome to Kit");
  assert.equal(m.t("app"), "Le Kit");
});

test("a reference cycle throws a LocalizationReferenceError naming the chain", async () => {
  const m = await managerFor(
    {
      en: { start: "{@a}", a: "x {@b}", b: "y {@c}", c: "z {@a}", ok: "fine" },
    },
    "en",
    refParsers(),
  );
  assert.throws(() => m.t("start"), (error: unknown) => {
    assert.ok(error instanceof LocalizationReferenceError);
    assert.equal(
      error.message,
      'Reference cycle in translations for culture "en": start → a → b → c → a',
    );
    assert.deepEqual(error.chain, ["start", "a", "b", "c", "a"]);
    assert.equal(error.cycle, true);
    return true;
  });
  // Still an error on the next call, and other keys keep working.
  assert.throws(() => m.t("a"), LocalizationReferenceError);
  assert.equal(m.t("ok"), "fine");
});

test("a text referring to itself is a cycle", async () => {
  const m = await managerFor({ en: { me: "I am {@me}" } }, "en", refParsers());
  assert.throws(() => m.t("me"), {
    name: "LocalizationReferenceError",
    message: 'Reference cycle in translations for culture "en": me → me',
  });
});

test("a very long chain of references ends in a LocalizationReferenceError, never a stack overflow", async () => {
  const en: Record<string, string> = {};
  for (let i = 0; i < 100_000; i++) en[`k${i}`] = `{@k${i + 1}}`;
  en.k100000 = "end";
  const m = await managerFor({ en }, "en", refParsers());
  assert.throws(() => m.t("k0"), (error: unknown) => {
    assert.ok(error instanceof LocalizationReferenceError);
    assert.equal(error.cycle, false);
    assert.match(
      error.message,
      /^References nested deeper than 32 levels in translations for culture "en": k0 → k1 → /,
    );
    return true;
  });
});

test("references nested up to the depth limit resolve", async () => {
  const en: Record<string, string> = {};
  const depth = LocalizationReferenceError.MAX_DEPTH;
  for (let i = 0; i < depth; i++) en[`k${i}`] = `${i}{@k${i + 1}}`;
  en[`k${depth}`] = "!";
  const m = await managerFor({ en }, "en", refParsers());
  assert.ok(m.t("k0").endsWith(`${depth - 1}!`));
});
