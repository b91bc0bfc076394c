/**
 * HttpClient against raw `fetch` (the floor), `ky` and `axios`: GETs of a
 * small JSON body from a local node:http server, 5,000 sequential requests
 * (one request per iteration) and batches of 50 concurrent requests. Every
 * row parses the JSON body. Goal (issue 5): Kit within 10 % of raw fetch and
 * faster than axios.
 *
 * Run: `deno bench -A bench/http_bench.ts`
 *
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import ky from "ky";
import axios from "axios";
import { AuthInterceptor, ErrorInterceptor, HttpClient } from "../http/mod.ts";

const payload = JSON.stringify({
  id: 42,
  name: "Kit",
  tags: ["http", "bench"],
  active: true,
});
const server = createServer((_request, response) => {
  response.writeHead(200, {
    "content-type": "application/json",
    "content-length": String(payload.length),
  });
  response.end(payload);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const url = `${base}/item`;

const kit = new HttpClient(base);
// The default total timeout (30 s) costs a timer and a controller per call;
// this row shows that cost against a client with it turned off.
const kitNoTotal = new HttpClient(base, { totalTimeout: 0 });
const kitIntercepted = new HttpClient(base)
  .addInterceptor(new ErrorInterceptor())
  .addInterceptor(new AuthInterceptor({ getToken: () => "bench-token" }));
const kyClient = ky.create({ prefixUrl: base });
const axiosClient = axios.create({ baseURL: base });

async function rawFetch(): Promise<void> {
  const response = await fetch(url, {
    headers: { accept: "application/json" },
  });
  await response.json();
}
async function kitGet(): Promise<void> {
  await kit.get("/item");
}
async function kitNoTotalGet(): Promise<void> {
  await kitNoTotal.get("/item");
}
async function kitInterceptedGet(): Promise<void> {
  await kitIntercepted.get("/item");
}
async function kyGet(): Promise<void> {
  await kyClient.get("item").json();
}
async function axiosGet(): Promise<void> {
  await axiosClient.get("/item");
}

// Warm the server, the connection pools and the JIT for every client before
// measuring, so the first group's first row is not penalised.
for (let i = 0; i < 300; i++) {
  await rawFetch();
  await kitGet();
  await kitNoTotalGet();
  await kitInterceptedGet();
  await kyGet();
  await axiosGet();
}

const SEQUENTIAL = 5_000;
const CONCURRENT = 50;

const sequential = "GET small JSON, sequential (5,000 requests)";
Deno.bench({
  name: "raw fetch",
  group: sequential,
  baseline: true,
  n: SEQUENTIAL,
  warmup: 200,
  fn: rawFetch,
});
Deno.bench({
  name: "Kit HttpClient",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kitGet,
});
Deno.bench({
  name: "Kit HttpClient, totalTimeout: 0",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kitNoTotalGet,
});
Deno.bench({
  name: "Kit HttpClient + Error/Auth interceptors",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kitInterceptedGet,
});
Deno.bench({
  name: "ky",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kyGet,
});
Deno.bench({
  name: "axios",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: axiosGet,
});

function batch(get: () => Promise<void>): () => Promise<void> {
  return async () => {
    await Promise.all(Array.from({ length: CONCURRENT }, get));
  };
}

const concurrent = "GET small JSON, 50 concurrent";
Deno.bench({
  name: "raw fetch",
  group: concurrent,
  baseline: true,
  n: 200,
  warmup: 20,
  fn: batch(rawFetch),
});
Deno.bench({
  name: "Kit HttpClient",
  group: concurrent,
  n: 200,
  warmup: 20,
  fn: batch(kitGet),
});
Deno.bench({
  name: "ky",
  group: concurrent,
  n: 200,
  warmup: 20,
  fn: batch(kyGet),
});
Deno.bench({
  name: "axios",
  group: concurrent,
  n: 200,
  warmup: 20,
  fn: batch(axiosGet),
});

globalThis.addEventListener("unload", () => server.close());
