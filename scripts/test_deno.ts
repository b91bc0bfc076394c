/**
 * The Deno pass of `deno task test`: runs `deno test -A --parallel` on the
 * given paths (`tests/` by default) with a limit per test, which Deno's test
 * runner has no option for.
 *
 * `deno test` reports a test that has been running for a minute, and again
 * at 2, 4, 8… minutes (`'<name>' has been running for over (2m0s)`). From
 * the first report on, this follows the test until `deno test` reports its
 * end; once it has run {@linkcode DENO_TEST_LIMIT_MINUTES}, this prints its
 * name and the test files that declare a test of that name, stops the run
 * (`deno test` and everything it started: it runs in a process group of
 * its own) and exits with 1. A run that prints nothing at all for
 * {@linkcode DENO_SILENCE_LIMIT_MINUTES} (a test module whose top-level code
 * waits for ever runs no test) is stopped the same way. Otherwise the exit
 * code is `deno test`'s, and its output is passed on as it comes.
 *
 * A `describe` block counts as one test in `deno test`'s report; its `it`
 * steps each have the limit they give (tests/_support/limits.ts), which
 * `deno test` enforces itself.
 *
 * ```sh
 * deno run -A --config deno.dev.json scripts/test_deno.ts                  # tests/
 * deno run -A --config deno.dev.json scripts/test_deno.ts tests/http/      # one folder
 * ```
 *
 * @module
 */
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import process from "node:process";
import {
  DENO_SILENCE_LIMIT_MINUTES,
  DENO_TEST_LIMIT_MINUTES,
} from "./_test_limits.ts";

const ROOT = resolve(new URL(".", import.meta.url).pathname, "..");

/** What a watched run ended with. */
export interface WatchResult {
  /** The exit code: the command's, or 1 when it was stopped. */
  code: number;
  /** Why it was stopped, or `undefined` when it ended by itself. */
  stopped?: string;
}

/** The limits of a watched run, and where its output goes. */
export interface WatchOptions {
  /** A test that has been running this many minutes stops the run. */
  testMinutes: number;
  /** How often the running time of the slow tests is checked; 5 s by default. */
  checkMs?: number;
  /** This many milliseconds without any output stop the run. */
  silenceMs: number;
  /**
   * Says where the test a stop message names is declared, appended to the
   * message; nothing by default.
   */
  locate?: (why: string) => Promise<string>;
  /** Receives the output; this process's stdout and stderr by default. */
  write?: (chunk: Uint8Array, stream: "stdout" | "stderr") => void;
}

// `deno test`'s report of a slow test: the name in quotes, then how long.
const SLOW =
  /^'(.*)' has been running for over \((?:(\d+)h)?(?:(\d+)m)?\d+s\)$/;
// Colours and other terminal sequences, around the report's words.
// deno-lint-ignore no-control-regex
const ESCAPES = /\x1b\[[0-9;]*[A-Za-z]/g;

/**
 * The minutes a line of `deno test`'s output says a test has been running,
 * with its name, or `undefined` for any other line.
 *
 * @param line One line of output, colours included.
 * @returns The test's name and its minutes.
 */
export function slowTest(
  line: string,
): { name: string; minutes: number } | undefined {
  const match = SLOW.exec(line.replace(ESCAPES, "").trim());
  if (match === null) return undefined;
  const minutes = Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  return { name: match[1], minutes };
}

/**
 * Whether a line of `deno test`'s output reports the end of the top-level
 * test `name`: `name ... ok (2s)`, or `./a_test.ts => name ... FAILED (2s)`
 * when files run in parallel (a step's line names its steps after `name`).
 *
 * @param line One line of output, colours included.
 * @param name The test's name.
 * @returns `true` for its end.
 */
export function endsTest(line: string, name: string): boolean {
  const text = line.replace(ESCAPES, "").trim();
  const alone = `${name} ... `;
  const inFile = `=> ${name} ... `;
  const at = text.startsWith(alone)
    ? alone.length
    : text.startsWith("./") && text.includes(inFile)
    ? text.indexOf(inFile) + inFile.length
    : -1;
  return at >= 0 && /^(ok|FAILED|ignored)\b/.test(text.slice(at));
}

/** Kills a child started in a process group of its own, with the group. */
function signalGroup(
  child: ReturnType<typeof spawn>,
  signal: NodeJS.Signals,
): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Not a group leader (or gone): the child alone.
    child.kill(signal);
  }
}

/**
 * Runs `command` (a `deno test`) in a process group of its own, passing its
 * output on, and stops it (the whole group) once a test reported slow has
 * been running `options.testMinutes` (counted from the start its first
 * report implies), or nothing was printed for `options.silenceMs`; the
 * reason goes to stderr.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param options The limits, and where the output goes.
 * @returns Its exit code, and why it was stopped if it was.
 */
export function watchTests(
  command: string,
  args: readonly string[],
  options: WatchOptions,
): Promise<WatchResult> {
  const locate = options.locate ?? (() => Promise.resolve(""));
  const write = options.write ??
    ((chunk: Uint8Array, stream: "stdout" | "stderr") =>
      void (stream === "stdout" ? process.stdout : process.stderr).write(
        chunk,
      ));
  return new Promise((resolvePromise) => {
    const child = spawn(command, [...args], {
      stdio: ["inherit", "pipe", "pipe"],
      detached: true,
    });
    let stopped: string | undefined;
    let silence: ReturnType<typeof setTimeout> | undefined;
    // The tests reported slow, by name, with the time they started.
    const slow = new Map<string, number>();
    const limitMs = options.testMinutes * 60_000;
    const overLimit = (name: string): void =>
      stop(
        `test_deno: '${name}' has been running for over ${options.testMinutes} minutes, the limit of a test: stopped the run`,
      );
    const check = setInterval(() => {
      for (const [name, started] of slow) {
        if (Date.now() - started >= limitMs) overLimit(name);
      }
    }, options.checkMs ?? 5_000);
    // The stop's message, written before the run is said to be over.
    let told: Promise<void> = Promise.resolve();
    const stop = (why: string): void => {
      if (stopped !== undefined) return;
      stopped = why;
      clearTimeout(silence);
      clearInterval(check);
      signalGroup(child, "SIGKILL");
      told = locate(why).catch(() => "").then((where) =>
        write(new TextEncoder().encode(`\n${why}${where}\n`), "stderr")
      );
    };
    const quiet = (): void => {
      clearTimeout(silence);
      silence = setTimeout(
        () =>
          stop(
            `test_deno: deno test printed nothing for ${
              Math.round(options.silenceMs / 1000)
            } s: stopped the run (a test module's top-level code may be waiting for ever)`,
          ),
        options.silenceMs,
      );
    };
    quiet();
    const watch = (
      stream: NodeJS.ReadableStream,
      name: "stdout" | "stderr",
    ): void => {
      const decoder = new TextDecoder();
      let partial = "";
      stream.on("data", (chunk: Uint8Array) => {
        write(chunk, name);
        if (stopped !== undefined) return;
        quiet();
        const lines = (partial + decoder.decode(chunk, { stream: true }))
          .split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) {
          const report = slowTest(line);
          if (report !== undefined) {
            const started = Date.now() - report.minutes * 60_000;
            slow.set(
              report.name,
              Math.min(slow.get(report.name) ?? started, started),
            );
            if (report.minutes * 60_000 >= limitMs) overLimit(report.name);
            continue;
          }
          for (const name of slow.keys()) {
            if (endsTest(line, name)) slow.delete(name);
          }
        }
      });
    };
    watch(child.stdout!, "stdout");
    watch(child.stderr!, "stderr");
    // Ctrl-C or a CI's stop reaches what deno test started too.
    const forward = (signal: NodeJS.Signals) => () =>
      signalGroup(child, signal);
    const onInt = forward("SIGINT");
    const onTerm = forward("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    child.on("close", async (code) => {
      clearTimeout(silence);
      clearInterval(check);
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      await told;
      resolvePromise(
        stopped === undefined ? { code: code ?? 1 } : { code: 1, stopped },
      );
    });
  });
}

/**
 * The test files under `dir` whose source holds `name` as written in a
 * string (a test's name), for the message of a test past its limit.
 */
async function declaredIn(dir: string, name: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await visit(path);
      else if (/_test\.[jt]s$/.test(entry.name)) {
        const text = await readFile(path, "utf8");
        if (text.includes(`"${name}"`) || text.includes(`\`${name}\``)) {
          found.push(relative(ROOT, path));
        }
      }
    }
  };
  await visit(dir);
  return found;
}

async function main(): Promise<number> {
  const paths = process.argv.slice(2);
  const { code } = await watchTests(
    Deno.execPath(),
    [
      "test",
      "-A",
      "--parallel",
      // The tests' own dependencies (playwright-core, the OpenTelemetry SDK)
      // are mapped there, beside everything deno.json maps.
      "--config",
      join(ROOT, "deno.dev.json"),
      ...(paths.length > 0 ? paths : ["tests/"]),
    ],
    {
      testMinutes: DENO_TEST_LIMIT_MINUTES,
      silenceMs: DENO_SILENCE_LIMIT_MINUTES * 60_000,
      locate: async (why) => {
        const name = /^test_deno: '(.*)' has been running/.exec(why)?.[1];
        if (name === undefined) return "";
        const files = await declaredIn(join(ROOT, "tests"), name).catch(
          () => [],
        );
        return files.length === 0 ? "" : ` (declared in ${files.join(", ")})`;
      },
    },
  );
  return code;
}

if (import.meta.main) process.exit(await main());
