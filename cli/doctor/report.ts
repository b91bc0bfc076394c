// The doctor's findings and how they print: a readable report (colour only
// on a terminal, never with NO_COLOR), a summary line, or JSON for machines.
// Every text passes through maskSecretText on its way out.
import { maskSecretText } from "../../core/mod.ts";

/** How one check came out. `warn` and `skip` do not fail the run. */
export type CheckStatus = "pass" | "warn" | "fail" | "skip";

/** The groups of checks, in the order they print. */
export type CheckGroup =
  | "Registry"
  | "Compiler"
  | "Configuration"
  | "Services";

/** One finding of the doctor. */
export interface Check {
  /** The group the check belongs to. */
  readonly group: CheckGroup;
  /** A short name (`scope registry`, `moduleResolution`…). */
  readonly name: string;
  /** The outcome. */
  readonly status: CheckStatus;
  /** What was found, in plain words. */
  readonly message: string;
  /** What to do about it, for a failure or warning. */
  readonly advice?: string;
  /** More lines (one validation failure each…), shown indented. */
  readonly details?: readonly string[];
}

/** The doctor's whole answer. */
export interface DoctorResult {
  /** The folder checked (absolute). */
  readonly folder: string;
  /** The findings, in group order. */
  readonly checks: readonly Check[];
  /** The bug-report block, when `--report` was given. */
  readonly report?: Readonly<Record<string, string>>;
}

/** Counts per status. */
export interface Summary {
  readonly pass: number;
  readonly warn: number;
  readonly fail: number;
  readonly skip: number;
}

const GROUPS: readonly CheckGroup[] = [
  "Registry",
  "Compiler",
  "Configuration",
  "Services",
];

// Secret values the checks came across (tokens, passwords): masked
// wherever they appear, whatever their shape.
const knownSecrets: string[] = [];

/** Remembers a secret value so no output shows it. */
export function rememberSecret(value: string | undefined): void {
  if (value !== undefined && value !== "" && !knownSecrets.includes(value)) {
    knownSecrets.push(value);
  }
}

/** Masks secrets in a text (URL passwords, `key=value` secrets, tokens). */
export function mask(text: string): string {
  return maskSecretText(text, knownSecrets);
}

/** Counts the checks by status. */
export function summarize(checks: readonly Check[]): Summary {
  const count = (status: CheckStatus): number =>
    checks.filter((check) => check.status === status).length;
  return {
    pass: count("pass"),
    warn: count("warn"),
    fail: count("fail"),
    skip: count("skip"),
  };
}

/** The one-line summary: `3 passed, 1 failed, 1 warning, 2 skipped`. */
export function summaryLine(summary: Summary): string {
  const parts = [`${summary.pass} passed`, `${summary.fail} failed`];
  if (summary.warn > 0) {
    parts.push(`${summary.warn} warning${summary.warn === 1 ? "" : "s"}`);
  }
  if (summary.skip > 0) parts.push(`${summary.skip} skipped`);
  return parts.join(", ");
}

/** The exit code of a run: 1 when a check failed, else 0. */
export function exitCodeOf(checks: readonly Check[]): number {
  return checks.some((check) => check.status === "fail") ? 1 : 0;
}

interface Palette {
  readonly green: (text: string) => string;
  readonly red: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly bold: (text: string) => string;
}

function palette(color: boolean): Palette {
  const wrap = (open: number, close: number) => (text: string): string =>
    color ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}

const LABELS: Record<CheckStatus, string> = {
  pass: "PASS",
  warn: "WARN",
  fail: "FAIL",
  skip: "SKIP",
};

/** Renders the readable report, ending with the summary line. */
export function renderText(result: DoctorResult, color: boolean): string {
  const paint = palette(color);
  const tint: Record<CheckStatus, (text: string) => string> = {
    pass: paint.green,
    warn: paint.yellow,
    fail: paint.red,
    skip: paint.dim,
  };
  const lines: string[] = [paint.bold(`kit doctor: ${result.folder}`)];
  for (const group of GROUPS) {
    const checks = result.checks.filter((check) => check.group === group);
    if (checks.length === 0) continue;
    lines.push("", paint.bold(group));
    for (const check of checks) {
      lines.push(
        `  ${tint[check.status](LABELS[check.status])}  ${check.name}: ${
          mask(check.message)
        }`,
      );
      for (const detail of check.details ?? []) {
        lines.push(`        - ${mask(detail)}`);
      }
      if (check.advice !== undefined && check.status !== "pass") {
        // A multi-line fix (a .yarnrc.yml block) keeps its shape, indented
        // under the `fix:` line so it can be copied as it stands.
        lines.push(
          `        ${paint.bold("fix:")} ${
            mask(check.advice).replaceAll("\n", "\n            ")
          }`,
        );
      }
    }
  }
  if (result.report !== undefined) {
    lines.push("", renderReport(result.report));
  }
  const summary = summarize(result.checks);
  lines.push(
    "",
    (summary.fail > 0 ? paint.red : paint.green)(summaryLine(summary)),
  );
  return lines.join("\n") + "\n";
}

/** The bug-report block, fenced so it pastes into an issue as it is. */
export function renderReport(report: Readonly<Record<string, string>>): string {
  const width = Math.max(...Object.keys(report).map((key) => key.length));
  const rows = Object.entries(report).map(([key, value]) =>
    `${(key + ":").padEnd(width + 1)} ${mask(value)}`
  );
  return [
    "Bug report (paste this block into the issue):",
    "```text",
    ...rows,
    "```",
  ].join("\n");
}

/** Renders the result as JSON (secrets masked), with the summary. */
export function renderJson(result: DoctorResult): string {
  const checks = result.checks.map((check) => ({
    group: check.group,
    name: check.name,
    status: check.status,
    message: mask(check.message),
    ...(check.advice === undefined ? {} : { advice: mask(check.advice) }),
    ...(check.details === undefined
      ? {}
      : { details: check.details.map(mask) }),
  }));
  const report = result.report === undefined ? undefined : Object.fromEntries(
    Object.entries(result.report).map(([key, value]) => [key, mask(value)]),
  );
  return JSON.stringify(
    {
      folder: result.folder,
      ok: exitCodeOf(result.checks) === 0,
      summary: summarize(result.checks),
      checks,
      ...(report === undefined ? {} : { report }),
    },
    null,
    2,
  ) + "\n";
}
