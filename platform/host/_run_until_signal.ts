// Application.run: start, wait for SIGINT or SIGTERM, stop, and end the
// process with an exit code; a second signal during start-up or shutdown
// ends it at once. Also the line a failed start-up prints, and which
// failures the logging step has written already. Not re-exported.
import { exitProcess, onShutdownSignal } from "#platform/host/process";
import { messageOf } from "./_application_support.ts";
import { ApplicationStartError } from "./application_start_error.ts";

// The start-up failures the logging step has written, so that run() does
// not print them a second time.
export const loggedFailures: WeakSet<object> = new WeakSet<object>();

/**
 * The line of a failed start-up: its message, and the service at fault when
 * the message does not name it already.
 */
export function startFailureLine(error: unknown): string {
  const message = messageOf(error);
  const name = error instanceof ApplicationStartError
    ? error.serviceName
    : undefined;
  return name === undefined || message.includes(`'${name}'`)
    ? message
    : `${message} (service '${name}')`;
}

/**
 * Starts an application, waits for a shutdown signal, stops it, and ends the
 * process (or, with `exit` false, resolves to the exit code).
 *
 * @param exit Whether to end the process with the exit code.
 * @param start Starts the application.
 * @param stop Stops it after `signal`; resolves to whether it stopped
 * cleanly.
 * @returns The exit code: 0, or 1 when start-up or shutdown failed.
 */
export async function runUntilSignal<A>(
  exit: boolean,
  start: () => Promise<A>,
  stop: (app: A, signal: string) => Promise<boolean>,
): Promise<number> {
  const done = (code: number): number => {
    if (exit) exitProcess(code);
    return code;
  };
  let received: ((signal: string) => void) | undefined;
  let stopping = false;
  const signals: string[] = [];
  const detach = onShutdownSignal((signal) => {
    // A second signal, during start-up or shutdown, ends the process at
    // once: a hung start-up or disposal can always be interrupted.
    if (stopping || signals.length > 0) {
      const code = signal === "SIGINT" ? 130 : 143;
      console.error(
        `Received ${signal} again during ${
          stopping ? "shutdown" : "start-up"
        }: exiting now with ${code} without waiting.`,
      );
      exitProcess(code);
      return;
    }
    signals.push(signal);
    if (received !== undefined) received(signal);
    else {
      console.error(
        `Received ${signal} during start-up: stopping once it ends (send it again to exit now).`,
      );
    }
  });
  // Waiting for a signal is the point of run(): keep the process alive
  // until one arrives (signal listeners alone do not in Node.js).
  const keepAlive = setInterval(() => {}, 2_147_483_647);
  let app: A;
  try {
    try {
      app = await start();
    } catch (error) {
      // Printed here unless the logging step has written it already.
      if (!loggedFailures.has(error as object)) {
        console.error(startFailureLine(error));
      }
      return done(1);
    }
    const signal = signals[0] ?? await new Promise<string>((resolve) => {
      received = resolve;
    });
    stopping = true;
    return done(await stop(app, signal) ? 0 : 1);
  } finally {
    clearInterval(keepAlive);
    detach();
  }
}
