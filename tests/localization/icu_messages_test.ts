import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DefaultCultureProvider,
  FormatLocalizationValueParser,
  IcuLocalizationValueParser,
  LocalizationManager,
  type LocalizationMessageError,
  MapLocalizationProvider,
  type MissingTranslationReport,
  RefLocalizationValueParser,
} from "../../localization/mod.ts";
import { type Texts, toMaps } from "./_helpers.ts";

async function managerFor(
  texts: Texts,
  culture: string,
  options: {
    fallbackCulture?: string;
    onMessageError?: (error: LocalizationMessageError) => void;
    onMissing?: (report: MissingTranslationReport) => void;
  } = {},
): Promise<LocalizationManager> {
  const manager = new LocalizationManager(
    new MapLocalizationProvider(toMaps(texts)),
    new DefaultCultureProvider(culture),
    (key) => `[${key}]`,
    undefined,
    undefined,
    { onMessageError: () => {}, ...options },
  );
  await manager.setCulture(culture);
  return manager;
}

// Each category's text is its own name, so the output is the category the
// message chose.
const CATEGORIES =
  "{n, plural, zero {zero} one {one} two {two} few {few} many {many} other {other}}";
const SAMPLES = [
  0,
  1,
  2,
  3,
  4,
  5,
  6,
  10,
  11,
  12,
  14,
  19,
  21,
  22,
  25,
  100,
  101,
  102,
  103,
  111,
  1000,
  1001,
  1.5,
  0.5,
];

describe("ICU plural categories follow Intl.PluralRules", () => {
  for (const culture of ["en", "fr", "ru", "ar", "ja"]) {
    it(`for ${culture}`, async () => {
      const manager = await managerFor(
        {
          [culture]: {
            cardinal: CATEGORIES,
            ordinal: CATEGORIES.replace("plural", "selectordinal"),
          },
        },
        culture,
      );
      const cardinal = new Intl.PluralRules(culture);
      const ordinal = new Intl.PluralRules(culture, { type: "ordinal" });
      for (const n of SAMPLES) {
        assert.equal(manager.t("cardinal", { n }), cardinal.select(n), `${n}`);
        assert.equal(manager.t("ordinal", { n }), ordinal.select(n), `${n}`);
      }
      assert.ok(
        cardinal.resolvedOptions().pluralCategories.length >= 1,
      );
    });
  }

  it("ru and ar use their own categories (few, many, two, zero)", async () => {
    const manager = await managerFor(
      { ru: { c: CATEGORIES }, ar: { c: CATEGORIES } },
      "ru",
    );
    assert.equal(manager.t("c", { n: 1 }), "one");
    assert.equal(manager.t("c", { n: 3 }), "few");
    assert.equal(manager.t("c", { n: 5 }), "many");
    assert.equal(manager.t("c", { n: 21 }), "one");
    await manager.setCulture("ar");
    assert.equal(manager.t("c", { n: 0 }), "zero");
    assert.equal(manager.t("c", { n: 2 }), "two");
    assert.equal(manager.t("c", { n: 3 }), "few");
    assert.equal(manager.t("c", { n: 11 }), "many");
  });
});

describe("ICU messages", () => {
  const en = {
    inbox:
      "{count, plural, =0 {No new messages} one {# new message} other {# new messages}}",
    party:
      "{guests, plural, offset:1 =0 {nobody} =1 {{host} alone} one {{host} and # other} other {{host} and # others}}",
    place: "{n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}",
    owner: "{gender, select, female {her} male {his} other {their}} cart",
    hello: "Hello {name}!",
    share: "{ratio, number, percent} done, {n, number, integer} items",
    price: "{amount, number, ::currency/EUR}",
    when: "{d, date, long}",
    at: "{d, time, short}",
    positional: "Hello {0}, you have {1} messages",
    app: "Kit",
    welcome: "Welcome to {@app}, {name}",
    quoted: "It''s '{'literal'}' and it's fine, {name}",
  };

  it("plural with =0, one and other, # formatted for the culture", async () => {
    const manager = await managerFor({ en, fr: { inbox: en.inbox } }, "en");
    assert.equal(manager.t("inbox", { count: 0 }), "No new messages");
    assert.equal(manager.t("inbox", { count: 1 }), "1 new message");
    assert.equal(manager.t("inbox", { count: 1234 }), "1,234 new messages");
    await manager.setCulture("fr");
    assert.equal(
      manager.t("inbox", { count: 1234 }).replace(/\s/g, " "),
      "1 234 new messages",
    );
  });

  it("plural offset: # is the value minus the offset, =n matches the value", async () => {
    const manager = await managerFor({ en }, "en");
    assert.equal(manager.t("party", { guests: 0, host: "Ada" }), "nobody");
    assert.equal(manager.t("party", { guests: 1, host: "Ada" }), "Ada alone");
    assert.equal(
      manager.t("party", { guests: 2, host: "Ada" }),
      "Ada and 1 other",
    );
    assert.equal(
      manager.t("party", { guests: 5, host: "Ada" }),
      "Ada and 4 others",
    );
  });

  it("selectordinal and select", async () => {
    const manager = await managerFor({ en }, "en");
    assert.deepEqual(
      [1, 2, 3, 4, 11, 21, 22, 23, 101].map((n) => manager.t("place", { n })),
      ["1st", "2nd", "3rd", "4th", "11th", "21st", "22nd", "23rd", "101st"],
    );
    assert.equal(manager.t("owner", { gender: "female" }), "her cart");
    assert.equal(manager.t("owner", { gender: "male" }), "his cart");
    assert.equal(manager.t("owner", { gender: "x" }), "their cart");
    assert.equal(manager.t("owner", {}), "their cart");
  });

  it("named arguments come from an object; a missing one stays as written", async () => {
    const manager = await managerFor({ en }, "en");
    assert.equal(manager.t("hello", { name: "Ada" }), "Hello Ada!");
    assert.equal(manager.t("hello"), "Hello {name}!");
    assert.equal(manager.t("hello", { name: 1234.5 }), "Hello 1,234.5!");
  });

  it("number, date and time arguments with styles", async () => {
    const manager = await managerFor({ en, de: { price: en.price } }, "en");
    assert.equal(
      manager.t("share", { ratio: 0.25, n: 3.7 }),
      "25% done, 4 items",
    );
    assert.equal(manager.t("price", { amount: 12.5 }), "€12.50");
    const date = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));
    assert.equal(
      manager.t("when", { d: date }),
      new Intl.DateTimeFormat("en", { dateStyle: "long" }).format(date),
    );
    assert.equal(
      manager.t("at", { d: date }),
      new Intl.DateTimeFormat("en", { timeStyle: "short" }).format(date),
    );
    await manager.setCulture("de");
    assert.equal(
      manager.t("price", { amount: 12.5 }).replace(/\s/g, " "),
      "12,50 €",
    );
  });

  it("positional {0} markers and {@ref} references keep working beside ICU messages, and references work inside them", async () => {
    const manager = await managerFor({ en }, "en");
    assert.equal(
      manager.t("positional", "Ada", 1200),
      "Hello Ada, you have 1,200 messages",
    );
    assert.equal(manager.t("welcome", { name: "Ada" }), "Welcome to Kit, Ada");
    assert.equal(
      manager.t("quoted", { name: "Ada" }),
      "It's {literal} and it's fine, Ada",
    );
  });

  it("texts without ICU arguments are left to the other parsers: stray braces and {{ escapes stay as before", async () => {
    const manager = await managerFor({
      en: {
        stray: "a { b } c",
        dotted: "Write to {support.email} or {x-y}",
        escaped: "{{name}} is {0}",
        apostrophe: "it's {0}",
      },
    }, "en");
    assert.equal(manager.t("stray"), "a { b } c");
    assert.equal(manager.t("dotted"), "Write to {support.email} or {x-y}");
    assert.equal(manager.t("escaped", "x"), "{name} is x");
    assert.equal(manager.t("apostrophe", "ok"), "it's ok");
  });

  it("an ICU message is parsed once per key and culture", async () => {
    let parses = 0;
    const icu = new IcuLocalizationValueParser();
    const counting = {
      parse: (
        text: string,
        context: Parameters<IcuLocalizationValueParser["parse"]>[1],
      ) => {
        parses++;
        return icu.parse(text, context);
      },
    };
    const manager = new LocalizationManager(
      new MapLocalizationProvider(toMaps({ en })),
      new DefaultCultureProvider("en"),
      undefined,
      undefined,
      [
        counting,
        new FormatLocalizationValueParser(),
        new RefLocalizationValueParser(),
      ],
    );
    await manager.setCulture("en");
    for (let count = 0; count < 5; count++) manager.t("inbox", { count });
    assert.equal(parses, 1);
  });
});

describe("ICU syntax errors", () => {
  it("name the culture, the key and the position, and the key falls back to the next culture", async () => {
    const errors: LocalizationMessageError[] = [];
    const reports: MissingTranslationReport[] = [];
    const manager = await managerFor(
      {
        en: { items: "{count, plural, one {# item} other {# items}}" },
        fr: {
          items: "{count, plural, one {# article} other {# articles}",
          ok: "{name} va bien",
        },
      },
      "fr",
      {
        fallbackCulture: "en",
        onMessageError: (error) => errors.push(error),
        onMissing: (report) => reports.push(report),
      },
    );
    assert.equal(manager.t("items", { count: 2 }), "2 items");
    assert.equal(manager.t("ok", { name: "Ada" }), "Ada va bien");
    assert.equal(manager.t("items", { count: 3 }), "3 items");
    assert.equal(errors.length, 1, "reported once");
    const [error] = errors;
    assert.equal(error.name, "LocalizationMessageError");
    assert.equal(error.culture, "fr");
    assert.equal(error.key, "items");
    assert.equal(error.line, 1);
    assert.equal(typeof error.column, "number");
    assert.match(
      error.message,
      /^Invalid message for key "items" in culture "fr" at line 1, column \d+: /,
    );
    assert.deepEqual(reports[0], {
      key: "items",
      resolvedKey: "items",
      requestedCulture: "fr",
      missingCulture: "fr",
      answeringCulture: "en",
    });
  });

  it("give the missing-translation handler's result when no culture has a valid text", async () => {
    const errors: LocalizationMessageError[] = [];
    const manager = await managerFor(
      {
        en: {
          broken: "{count, plural, one {# item}}",
          fine: "{count, plural, one {# item} other {# items}}",
        },
      },
      "en",
      { onMessageError: (error) => errors.push(error) },
    );
    assert.equal(manager.t("broken", { count: 1 }), "[broken]");
    assert.equal(manager.t("fine", { count: 1 }), "1 item");
    assert.equal(errors[0].key, "broken");
    assert.match(errors[0].reason, /MISSING_OTHER_CLAUSE/);
  });

  it("an unknown style is reported the same way", async () => {
    const errors: LocalizationMessageError[] = [];
    const manager = await managerFor(
      { en: { odd: "{n, number, sparkly}" } },
      "en",
      { onMessageError: (error) => errors.push(error) },
    );
    assert.equal(manager.t("odd", { n: 1 }), "[odd]");
    assert.match(errors[0].message, /unknown number style "sparkly"/);
  });
});
