/**
 * What services typed by their registrations cost the type checker: `deno
 * check` of an application with 50 services, each depending on the one
 * before, written two ways in the same run:
 *
 * - **chained**: the steps return their chains of `register` calls and the
 *   host infers every service's type (no map written);
 * - **map**: the same services with a service map written by hand
 *   (`Application.start<Services, Config>`), the way an application typed
 *   them before.
 *
 * Each round checks both, in alternating order, each after a fresh comment
 * so that Deno's type-check cache cannot answer; it prints each side's
 * median wall time and the median of the per-round ratios (chained ÷ map).
 * Goal: ≤ 1.2×.
 *
 * Run: `deno run -A --config deno.dev.json bench/service_types_bench.ts [rounds]` (default 9).
 *
 * @module
 */
import { join } from "node:path";

const COUNT = 50;
const rounds = Number(Deno.args[0] ?? 9);

function classes(): string {
  let out = "";
  for (let i = 0; i < COUNT; i++) {
    const prev = i === 0 ? "number" : `Svc${i - 1}`;
    out += `class Svc${i} {\n  constructor(readonly prev: ${prev}) {}\n` +
      `  value${i}(): number {\n    return ${i};\n  }\n}\n`;
  }
  return out;
}

function use(get: (name: string) => string): string {
  let out = "";
  for (let i = 0; i < COUNT; i += 7) {
    out += `  const v${i}: number = ${get(`svc${i}`)}.value${i}();\n`;
  }
  return out;
}

const header = `import { Application } from "../../platform/mod.ts";\n`;

const chained = header + classes() +
  `const app = await Application.start({\n` +
  `  configuration: () => ({ port: 1 }),\n` +
  `  services: (services) =>\n    services\n` +
  Array.from(
    { length: COUNT },
    (_, i) =>
      `      .register("svc${i}", (s) => new Svc${i}(${
        i === 0 ? "0" : `s.get("svc${i - 1}")`
      }))\n`,
  ).join("") +
  `,\n  serve: (services) => () => {\n` +
  use((name) => `services.get("${name}")`) +
  `    return new Response("ok");\n  },\n});\n` +
  use((name) => `app.services.get("${name}")`).replace(/^/gm, "") +
  `await app.stop();\n`;

const map = header + classes() +
  `interface Services {\n  config: { port: number };\n` +
  Array.from({ length: COUNT }, (_, i) => `  svc${i}: Svc${i};\n`).join("") +
  `}\n` +
  `const app = await Application.start<Services, { port: number }>({\n` +
  `  configuration: () => ({ port: 1 }),\n` +
  `  services: (services) => {\n` +
  Array.from(
    { length: COUNT },
    (_, i) =>
      `    services.register("svc${i}", (s) => new Svc${i}(${
        i === 0 ? "0" : `s.get("svc${i - 1}")`
      }));\n`,
  ).join("") +
  `  },\n  serve: (services) => () => {\n` +
  use((name) => `services.get("${name}")`) +
  `    return new Response("ok");\n  },\n});\n` +
  use((name) => `app.services.get("${name}")`) +
  `await app.stop();\n`;

// Inside the checkout, so that the relative import resolves.
const dir = join(new URL(".", import.meta.url).pathname, ".service_types");
await Deno.mkdir(dir, { recursive: true });

async function check(name: string, source: string): Promise<number> {
  const file = join(dir, `${name}.ts`);
  await Deno.writeTextFile(file, `${source}// ${crypto.randomUUID()}\n`);
  const started = performance.now();
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "-q", file],
    stdout: "null",
    stderr: "piped",
  }).output();
  const took = performance.now() - started;
  if (code !== 0) {
    throw new Error(
      `deno check ${name}.ts failed:\n${new TextDecoder().decode(stderr)}`,
    );
  }
  return took;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

try {
  // One round each first, unmeasured: the platform's own files get cached.
  await check("chained", chained);
  await check("map", map);
  const times = { chained: [] as number[], map: [] as number[] };
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0 ? "chained" : "map";
    const a = await check(first, first === "chained" ? chained : map);
    const second = first === "chained" ? "map" : "chained";
    const b = await check(second, second === "chained" ? chained : map);
    const c = first === "chained" ? a : b;
    const m = first === "chained" ? b : a;
    times.chained.push(c);
    times.map.push(m);
    ratios.push(c / m);
  }
  console.log(
    `deno check, ${COUNT} services, ${rounds} rounds: chained ${
      median(times.chained).toFixed(0)
    } ms, map ${median(times.map).toFixed(0)} ms, median ratio ${
      median(ratios).toFixed(2)
    }× (goal ≤ 1.2×)`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
