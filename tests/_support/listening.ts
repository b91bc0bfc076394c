// A service started as a child process is ready once it prints the address
// it listens on (`Listening on http://…`, as Kit's server logs it). This
// collects the child's output and waits for that line, failing with the
// output so far when the child exits first or the line does not come in
// time.
import type { ChildProcess } from "node:child_process";

/** A started service: its address, its output so far, and its exit. */
export interface ListeningChild {
  /** The `http://…` address the service printed. */
  readonly url: string;
  /** Everything it wrote to stdout and stderr so far, interleaved. */
  output(): string;
  /** Its exit code, once it exits. */
  readonly exited: Promise<number | null>;
}

/**
 * Waits until `child` (started with piped stdout and stderr) prints
 * `Listening on http://…`.
 *
 * @throws Error with the output when it exits first, or after `timeoutMs`
 * (60 s by default).
 */
export async function untilListening(
  child: ChildProcess,
  timeoutMs = 60_000,
): Promise<ListeningChild> {
  let output = "";
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve(code))
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the service did not start:\n${output}`)),
      timeoutMs,
    );
    const decoder = new TextDecoder();
    const onData = (chunk: Uint8Array): void => {
      output += decoder.decode(chunk);
      const match = /[Ll]istening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code}:\n${output}`));
    });
  });
  return { url, output: () => output, exited };
}
