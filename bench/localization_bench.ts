// Kit's LocalizationManager.t against i18next's t, with the same resources,
// in the same run: a plain lookup, a lookup with two positional arguments and
// a reference to another key. i18next is the baseline of each group.
//
//   deno bench -A bench/localization_bench.ts
import i18next from "i18next";
import {
  DefaultCultureProvider,
  LoaderLocalizationProvider,
  LocalizationManager,
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

globalThis.addEventListener("unload", () => {
  if (sink === "\0") console.log(sink);
});
