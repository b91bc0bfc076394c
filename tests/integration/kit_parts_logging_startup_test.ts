// A failed start-up is printed exactly once by Application.run, naming the
// service at fault: by the logging step when there is one (not again by
// run()), else by run() itself. Real child processes.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

function program(withLogging: boolean): string {
  return `
    const { Application } = await import(PLATFORM_URL);
    const { ConsoleLogProvider, LoggerManager } = await import(LOGGING_URL);
    const code = await Application.run({
      exit: false,
      configuration: () => ({}),
      ${
    withLogging
      ? `logging: () => new LoggerManager().configure({
        level: "info",
        providers: [new ConsoleLogProvider({ colorize: false })],
      }),`
      : ""
  }
      services: (services) => {
        services.register("orders", () => {
          throw new Error("the orders database refused the connection");
        }, { eager: true });
      },
    });
    console.log("EXIT " + code);
  `;
}

function linesNaming(out: string, text: string): string[] {
  return out.split("\n").filter((line) => line.includes(text));
}

describe("Application.run with a failing start-up", () => {
  for (const withLogging of [true, false]) {
    it(
      `prints the failure once, naming the service (${
        withLogging ? "with" : "without"
      } a logging step)`,
      async () => {
        const result = await runChildScript(program(withLogging));
        assert.match(result.out, /EXIT 1/, result.out);
        // The failure's line (a stack below it may repeat the cause).
        const lines = linesNaming(result.out, "Start-up step 4");
        assert.equal(lines.length, 1, result.out);
        assert.match(lines[0], /'orders'/, result.out);
        assert.match(lines[0], /refused the connection/, result.out);
      },
    );
  }
});
