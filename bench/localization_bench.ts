// Kit's LocalizationManager.t against i18next's t, with the same resources,
// in the same run: a plain lookup, a lookup with two positional arguments and
// a reference to another key. i18next is the baseline of each group. Then
// ICU messages: a plural message against i18next's plural t and
// intl-messageformat's format of a pre-built message; the first use of
// 7,000 messages (parse + compile + format each once) against constructing
// and formatting 7,000 IntlMessageFormat; and forCulture of a loaded culture
// against a Map.get.
//
//   deno bench -A --config deno.dev.json bench/localization_bench.ts
import i18next from "i18next";
import { IntlMessageFormat } from "intl-messageformat";
import {
  DefaultCultureProvider,
  LoaderLocalizationProvider,
  LocalizationManager,
  MapLocalizationProvider,
  type Translator,
} from "../localization/mod.ts";

// 50 groups of 20 keys, so both libraries look up in a realistically sized
// resource, plus the keys the rows read.
function filler(): Record<string, Record<string, string>> {
  const groups: Record<string, Record<string, string>> = {};
  for (let g = 0; g < 50; g++) {
    const group: Record<string, string> = {};
    for (let k = 0; k < 20; k++) group[`key${k}`] = `Text ${g}.${k}`;
    groups[`group${g}`] = group;
  }
  return groups;
}

const kitResources = {
  ...filler(),
  home: { title: "Welcome" },
  inbox: { summary: "Hello {0}, you have {1} messages" },
  common: { app: "Kit" },
  footer: { copyright: "Copyright {@common.app} contributors" },
};

const i18nextResources = {
  ...filler(),
  home: { title: "Welcome" },
  inbox: { summary: "Hello {{name}}, you have {{total}} messages" },
  common: { app: "Kit" },
  footer: { copyright: "Copyright $t(common.app) contributors" },
};

const manager = new LocalizationManager(
  new LoaderLocalizationProvider({
    load: () => Promise.resolve(kitResources),
  }),
  new DefaultCultureProvider("en"),
);
await manager.setCulture("en");

const i18n = i18next.createInstance();
await i18n.init({
  lng: "en",
  initAsync: false,
  resources: { en: { translation: i18nextResources } },
  interpolation: { escapeValue: false },
});

// Same output from both, checked once before measuring.
const checks: Array<[string, string]> = [
  [manager.t("home.title"), i18n.t("home.title")],
  [
    manager.t("inbox.summary", "Ada", 42),
    i18n.t("inbox.summary", { name: "Ada", total: 42 }),
  ],
  [manager.t("footer.copyright"), i18n.t("footer.copyright")],
];
for (const [kit, peer] of checks) {
  if (kit !== peer) throw new Error(`outputs differ: ${kit} / ${peer}`);
}

let sink = "";

Deno.bench({
  name: "i18next t(): plain lookup",
  group: "plain lookup",
  baseline: true,
  fn: () => {
    sink = i18n.t("home.title");
  },
});
Deno.bench({
  name: "Kit t(): plain lookup",
  group: "plain lookup",
  fn: () => {
    sink = manager.t("home.title");
  },
});

Deno.bench({
  name: "i18next t(): two arguments",
  group: "two arguments",
  baseline: true,
  fn: () => {
    sink = i18n.t("inbox.summary", { name: "Ada", total: 42 });
  },
});
Deno.bench({
  name: "Kit t(): two {0} {1} arguments",
  group: "two arguments",
  fn: () => {
    sink = manager.t("inbox.summary", "Ada", 42);
  },
});

Deno.bench({
  name: "i18next t(): reference $t(common.app)",
  group: "reference",
  baseline: true,
  fn: () => {
    sink = i18n.t("footer.copyright");
  },
});
Deno.bench({
  name: "Kit t(): reference {@common.app}",
  group: "reference",
  fn: () => {
    sink = manager.t("footer.copyright");
  },
});

// ---------------------------------------------------------------- plurals

const PLURAL = "{count, plural, one {# new message} other {# new messages}}";
const pluralManager = new LocalizationManager(
  new MapLocalizationProvider(
    new Map([[
      "en",
      new Map([
        ...Object.entries(filler()).flatMap(
          ([group, keys]) =>
            Object.entries(keys).map(([key, text]) =>
              [`${group}.${key}`, text] as [string, string]
            ),
        ),
        ["inbox.count", PLURAL],
      ]),
    ]]),
  ),
  new DefaultCultureProvider("en"),
);
await pluralManager.setCulture("en");
const pluralI18n = i18next.createInstance();
await pluralI18n.init({
  lng: "en",
  initAsync: false,
  resources: {
    en: {
      translation: {
        ...filler(),
        inbox: {
          count_one: "{{count}} new message",
          count_other: "{{count}} new messages",
        },
      },
    },
  },
  interpolation: { escapeValue: false },
});
const prebuilt = new IntlMessageFormat(PLURAL, "en");
for (const count of [1, 5, 1234]) {
  const kit = pluralManager.t("inbox.count", { count });
  const peers = [
    pluralI18n.t("inbox.count", { count }),
    String(prebuilt.format({ count })),
  ];
  // i18next does not group digits ("1234"); the others do ("1,234").
  if (kit !== peers[1] || kit.replace(",", "") !== peers[0]) {
    throw new Error(`plural outputs differ: ${kit} / ${peers.join(" / ")}`);
  }
}
let count = 0;

Deno.bench({
  name: "i18next t(): plural",
  group: "plural",
  baseline: true,
  fn: () => {
    sink = pluralI18n.t("inbox.count", { count: (count++ & 7) + 1 });
  },
});
Deno.bench({
  name: "intl-messageformat format(): plural, pre-built",
  group: "plural",
  fn: () => {
    sink = String(prebuilt.format({ count: (count++ & 7) + 1 }));
  },
});
Deno.bench({
  name: "Kit t(): ICU plural",
  group: "plural",
  fn: () => {
    sink = pluralManager.t("inbox.count", { count: (count++ & 7) + 1 });
  },
});

// ---------------------------------------------------------- first use of 7,000

const MESSAGES: Array<[string, string]> = [];
for (let i = 0; i < 7000; i++) {
  MESSAGES.push([
    `page${i >> 6}.message${i}`,
    [
      `{count, plural, =0 {No items in list ${i}} one {# item in list ${i}} other {# items in list ${i}}}`,
      `Hello {name}, welcome back to page ${i}`,
      `{gender, select, female {She} male {He} other {They}} liked post ${i}`,
      `You have {count, number} points on board ${i}`,
    ][i & 3],
  ]);
}
const VALUES = { count: 3, name: "Ada", gender: "female" };
const firstUse = new Map([["en", new Map(MESSAGES)]]);

Deno.bench({
  name: "intl-messageformat: construct and format 7,000 messages",
  group: "first use of 7,000 messages",
  baseline: true,
  fn: () => {
    for (const [, text] of MESSAGES) {
      sink = String(new IntlMessageFormat(text, "en").format(VALUES));
    }
  },
});
Deno.bench({
  name: "Kit: parse, compile and t() 7,000 messages (new manager)",
  group: "first use of 7,000 messages",
  async fn() {
    const fresh = new LocalizationManager(
      new MapLocalizationProvider(firstUse),
      new DefaultCultureProvider("en"),
    );
    await fresh.setCulture("en");
    for (const [key] of MESSAGES) sink = fresh.t(key, VALUES);
  },
});

// ---------------------------------------------------------------- forCulture

const loaded = await pluralManager.forCulture("en");
const translators = new Map<string, Translator>([["en", loaded]]);
let held: Translator | undefined;

Deno.bench({
  name: "await Map.get() of a translator",
  group: "forCulture of a loaded culture",
  baseline: true,
  async fn() {
    held = await translators.get("en");
  },
});
Deno.bench({
  name: "Kit await manager.forCulture() of a loaded culture",
  group: "forCulture of a loaded culture",
  async fn() {
    held = await pluralManager.forCulture("en");
  },
});
Deno.bench({
  name: "Map.get() of a translator (no await)",
  group: "forCulture of a loaded culture, without await",
  baseline: true,
  fn: () => {
    held = translators.get("en");
  },
});
Deno.bench({
  name: "Kit manager.forCulture() of a loaded culture (the promise, no await)",
  group: "forCulture of a loaded culture, without await",
  fn: () => {
    held = pluralManager.forCulture("en") as unknown as Translator;
  },
});

globalThis.addEventListener("unload", () => {
  if (held === undefined) console.log(held);
  if (sink === "\0") console.log(sink);
});
