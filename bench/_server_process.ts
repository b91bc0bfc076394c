// A server under load in a process of its own, for the load benchmarks: it
// prints its port on the first line of its standard output once it listens.

/** A started server process. */
export interface ServerProcess {
  /** The process. */
  readonly child: Deno.ChildProcess;
  /** Its standard output, past the port line (for what it prints later). */
  readonly reader: ReadableStreamDefaultReader<string>;
  /** The port it listens on. */
  readonly port: number;
  /** What was read after the port line. */
  readonly rest: string;
}

/**
 * Starts `command` and waits for the port it prints.
 *
 * @param mode The server's name, for the error when it ends first.
 * @param command The program and its arguments.
 * @returns The running process and its port.
 * @throws {Error} When the process ends before printing a line.
 */
export async function startServerProcess(
  mode: string,
  command: readonly [string, ...string[]],
): Promise<ServerProcess> {
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the ${mode} server ended before listening`);
    text += value;
  }
  const newline = text.indexOf("\n");
  return {
    child,
    reader,
    port: Number(text.slice(0, newline).trim()),
    rest: text.slice(newline + 1),
  };
}
