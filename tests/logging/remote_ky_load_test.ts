// RemoteLogProvider loads ky when its first batch goes out. When that import
// fails, each attempt fails like a network error: the batch is retried,
// then counted as dropped and reported to onError, and flush() still
// resolves (nothing rejects unhandled). The child process of the runtime
// running the tests is given a ky that throws when loaded: an import map in
// Deno, a resolve hook in Node.js, a load plugin in Bun.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { moduleUrl } from "../_support/module_url.ts";
import { runProcess } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const versions = process.versions as Record<string, string | undefined>;
const BROKEN = 'throw new Error("ky failed to load (test)");\n';

// Arguments that make `ky` throw when loaded, for the runtime running this.
async function brokenKyArgs(dir: string): Promise<string[]> {
  const broken = join(dir, "broken_ky.mjs");
  await writeFile(broken, BROKEN);
  if (versions.deno !== undefined) {
    const config = new URL("../../deno.dev.json", import.meta.url);
    const { imports } = JSON.parse(await readFile(config, "utf8")) as {
      imports: Record<string, string>;
    };
    const absolute: Record<string, string> = {};
    for (const [name, target] of Object.entries(imports)) {
      absolute[name] = target.startsWith(".")
        ? new URL(target, config).href
        : target;
    }
    absolute.ky = pathToFileURL(broken).href;
    const map = join(dir, "import_map.json");
    await writeFile(map, JSON.stringify({ imports: absolute }));
    return [
      "run",
      "-A",
      "--config",
      fileURLToPath(config),
      "--import-map",
      map,
    ];
  }
  if (versions.bun !== undefined) {
    const preload = join(dir, "preload.mjs");
    await writeFile(
      preload,
      `Bun.plugin({
  name: "broken-ky",
  setup(build) {
    build.onLoad({ filter: /[\\\\/]node_modules[\\\\/]ky[\\\\/].*\\.js$/ }, () => ({
      contents: ${JSON.stringify(BROKEN)},
      loader: "js",
    }));
  },
});
`,
    );
    return ["--preload", preload];
  }
  const register = join(dir, "register.mjs");
  const hook = `export async function resolve(specifier, context, next) {
  if (specifier === "ky") {
    return { url: ${
    JSON.stringify(pathToFileURL(broken).href)
  }, shortCircuit: true };
  }
  return next(specifier, context);
}`;
  await writeFile(
    register,
    `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));
`,
  );
  return ["--import", pathToFileURL(register).href];
}

test("RemoteLogProvider counts a batch as dropped and reports it when ky cannot be loaded", async () => {
  const dir = await mkdtemp(join(tmpdir(), "kit-ky-load-"));
  try {
    const script = join(dir, "child.mjs");
    await writeFile(
      script,
      `import { LogLevel, RemoteLogProvider } from ${
        JSON.stringify(moduleUrl("logging"))
      };
const errors = [];
const remote = new RemoteLogProvider({
  endpoint: "http://127.0.0.1:9/ingest",
  maxRetries: 1,
  retryDelay: 1,
  flushInterval: 60000,
  onError: (error) => errors.push(error.message),
});
await remote.log({ timestamp: new Date(), level: LogLevel.Info, category: "x", message: "m", properties: {} });
await remote.flush({ timeout: 10000 });
console.log(JSON.stringify({ dropped: remote.dropped, buffered: remote.buffered, errors }));
`,
    );
    const args = [...await brokenKyArgs(dir), script];
    const result = await runProcess(process.execPath, args);
    assert.equal(result.code, 0, result.out);
    const printed = JSON.parse(result.out.trim().split("\n").at(-1)!) as {
      dropped: number;
      buffered: number;
      errors: string[];
    };
    assert.equal(printed.dropped, 1, result.out);
    assert.equal(printed.buffered, 0);
    assert.equal(printed.errors.length, 1, result.out);
    assert.match(
      printed.errors[0],
      /^RemoteLogProvider: 1 entry dropped after 2 attempts: ky failed to load \(test\)$/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
