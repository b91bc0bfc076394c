// The shared delivery queue against a real loopback collector: it batches,
// bounds its buffer and counts what it drops, retries through the backoff,
// stops stacking retries while the endpoint is down (probes at a bounded
// rate), and a flush ends at its deadline.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { systemClock } from "../../core/mod.ts";
import {
  type DeliveryFailure,
  type DeliveryOutcome,
  DeliveryQueue,
  type DeliveryQueueOptions,
  type FailedBatch,
} from "../../internal/delivery/delivery_queue.ts";
import { postJson } from "../../internal/delivery/post_json.ts";
import {
  sendJson,
  startTestServer,
  type TestServer,
} from "../_support/http_server.ts";

class HttpFailure extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

interface Harness {
  queue: DeliveryQueue<number>;
  counts: Record<DeliveryOutcome, number>;
  failed: FailedBatch[];
  abandoned: number[];
  overflows: number;
}

function harness(
  server: TestServer,
  options: Partial<DeliveryQueueOptions<number>> = {},
): Harness {
  const counts = { delivered: 0, dropped: 0, retried: 0 };
  const h: Harness = {
    counts,
    failed: [],
    abandoned: [],
    overflows: 0,
  } as unknown as Harness;
  h.queue = new DeliveryQueue<number>({
    batchSize: 10,
    flushInterval: 0,
    maxQueueSize: 1_000,
    maxRetries: 2,
    retryDelay: 20,
    maxRetryDelay: 1_000,
    clock: systemClock,
    send: async (batch, signal) => {
      const answer = await postJson(
        `${server.url}/ingest`,
        JSON.stringify(batch),
        { timeout: 5_000, signal },
      );
      if (!answer.ok) throw new HttpFailure(answer.status);
    },
    classify: (error): DeliveryFailure =>
      error instanceof HttpFailure
        ? {
          retriable: error.status >= 500,
          status: error.status,
          reason: error.message,
        }
        : { retriable: true, reason: String(error) },
    count: (outcome, items) => counts[outcome] += items,
    onFailed: (batch) => h.failed.push(batch),
    onAbandoned: (items) => h.abandoned.push(items),
    onOverflow: () => h.overflows++,
    ...options,
  });
  return h;
}

const bodies = (server: TestServer): number[][] =>
  server.requests.map((request) => JSON.parse(request.body));

describe("DeliveryQueue", () => {
  it("sends in batches of batchSize, in order, and flush() says what was delivered", async () => {
    await using server = await startTestServer((_request, response) =>
      sendJson(response, 200, {})
    );
    const { queue, counts } = harness(server, { batchSize: 2 });
    for (let i = 0; i < 5; i++) queue.enqueue(i);
    const result = await queue.flush();
    assert.deepEqual(result, { delivered: 5, dropped: 0 });
    assert.deepEqual(bodies(server), [[0, 1], [2, 3], [4]]);
    assert.equal(counts.delivered, 5);
    assert.equal(queue.state.delivered, 5);
  });

  it("bounds its buffer: a full queue drops the newest, counts it and tells once", async () => {
    await using server = await startTestServer((_request, response) =>
      sendJson(response, 200, {})
    );
    const h = harness(server, { maxQueueSize: 3, batchSize: 100 });
    const { queue, counts } = h;
    const kept = [0, 1, 2, 3, 4].map((i) => queue.enqueue(i));
    assert.deepEqual(kept, [true, true, true, false, false]);
    assert.equal(queue.queued, 3);
    assert.equal(queue.state.dropped, 2);
    assert.equal(counts.dropped, 2);
    assert.equal(h.overflows, 1, "one report per overflow episode");
    await queue.flush();
    assert.deepEqual(bodies(server), [[0, 1, 2]]);
  });

  it("with overflow: drop-oldest, keeps the newest items", async () => {
    await using server = await startTestServer((_request, response) =>
      sendJson(response, 200, {})
    );
    const { queue } = harness(server, {
      maxQueueSize: 3,
      batchSize: 100,
      overflow: "drop-oldest",
    });
    for (let i = 0; i < 5; i++) queue.enqueue(i);
    assert.equal(queue.state.dropped, 2);
    await queue.flush();
    assert.deepEqual(bodies(server), [[2, 3, 4]]);
  });

  it("with overflow: drop-oldest, a flush waiting on an evicted item still ends when the rest is sent", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => release = resolve);
    await using server = await startTestServer(async (_request, response) => {
      await held;
      sendJson(response, 200, {});
    });
    const { queue, counts } = harness(server, {
      maxQueueSize: 2,
      batchSize: 1,
      maxConcurrentRequests: 1,
      overflow: "drop-oldest",
    });
    queue.enqueue(0); // in flight, held by the server
    queue.enqueue(1); // queued, waited for by the flush below
    const flushed = queue.flush();
    queue.enqueue(2);
    queue.enqueue(3); // full: 1 goes
    release();
    const started = performance.now();
    const result = await Promise.race([
      flushed,
      new Promise<"pending">((resolve) =>
        setTimeout(() => resolve("pending"), 3_000)
      ),
    ]);
    assert.deepEqual(result, { delivered: 1, dropped: 1 });
    assert.ok(performance.now() - started < 3_000);
    assert.equal(counts.dropped, 1, "the evicted item is counted once");
    await queue.flush();
    assert.deepEqual(bodies(server), [[0], [2], [3]]);
  });

  it("retries a failed batch through the backoff, doubling the delay", async () => {
    const times: number[] = [];
    await using server = await startTestServer((_request, response) => {
      times.push(performance.now());
      sendJson(response, times.length <= 2 ? 503 : 200, {});
    });
    const { queue, counts } = harness(server, { retryDelay: 40 });
    queue.enqueue(1);
    assert.deepEqual(await queue.flush(), { delivered: 1, dropped: 0 });
    assert.equal(times.length, 3);
    assert.equal(counts.retried, 2);
    // The waits are at least the backoff's: 40 ms, then 80 ms (no jitter).
    assert.ok(times[1] - times[0] >= 35, `first wait ${times[1] - times[0]}`);
    assert.ok(times[2] - times[1] >= 75, `second wait ${times[2] - times[1]}`);
  });

  it("drops a batch after maxRetries and reports it with its attempts; a refusal is not retried", async () => {
    await using server = await startTestServer((request, response) =>
      sendJson(response, JSON.parse(request.body)[0] === 0 ? 503 : 400, {})
    );
    const { queue, failed, counts } = harness(server, {
      batchSize: 1,
      maxRetries: 1,
      retryDelay: 5,
    });
    queue.enqueue(0);
    assert.deepEqual(await queue.flush(), { delivered: 0, dropped: 1 });
    queue.enqueue(1);
    assert.deepEqual(await queue.flush(), { delivered: 0, dropped: 1 });
    assert.equal(server.requests.length, 3, "2 attempts, then 1");
    assert.deepEqual(
      failed.map(({ attempts, items, probe, failure }) => ({
        attempts,
        items,
        probe,
        status: failure.status,
      })),
      [
        { attempts: 2, items: 1, probe: false, status: 503 },
        { attempts: 1, items: 1, probe: false, status: 400 },
      ],
    );
    assert.equal(counts.dropped, 2);
  });

  it("while the endpoint is down, batches go as single-attempt probes (drop-batch)", async () => {
    await using server = await startTestServer((_request, response) =>
      sendJson(response, 503, {})
    );
    const { queue, failed } = harness(server, {
      maxRetries: 2,
      retryDelay: 5,
    });
    for (let i = 0; i < 30; i++) queue.enqueue(i);
    assert.deepEqual(await queue.flush(), { delivered: 0, dropped: 30 });
    // The first batch: 3 attempts; then 2 probes of one attempt each.
    assert.equal(server.requests.length, 5);
    assert.deepEqual(failed.map((batch) => batch.probe), [false, true, true]);
    assert.equal(queue.state.outage, "up", "an idle queue forgets the outage");
  });

  it("with afterFailedProbe: drop-waiting, a failed probe drops the rest of the flush at once", async () => {
    await using server = await startTestServer((_request, response) =>
      sendJson(response, 503, {})
    );
    const { queue, failed } = harness(server, {
      maxRetries: 2,
      retryDelay: 5,
      afterFailedProbe: "drop-waiting",
      forgetOutageWhenIdle: false,
    });
    for (let i = 0; i < 30; i++) queue.enqueue(i);
    await queue.flush();
    assert.equal(server.requests.length, 4);
    assert.deepEqual(failed.map((batch) => batch.items), [10, 20]);
    assert.equal(queue.state.outage, "down");
  });

  it("bounds the probe rate: probes start at least minProbeInterval apart", async () => {
    const times: number[] = [];
    await using server = await startTestServer((_request, response) => {
      times.push(performance.now());
      sendJson(response, 503, {});
    });
    const { queue } = harness(server, {
      batchSize: 1,
      maxRetries: 0,
      minProbeInterval: 150,
    });
    for (let i = 0; i < 3; i++) queue.enqueue(i);
    await queue.flush({ timeout: 5_000 });
    assert.equal(times.length, 3);
    assert.ok(times[1] - times[0] >= 140, `gap ${times[1] - times[0]}`);
    assert.ok(times[2] - times[1] >= 140, `gap ${times[2] - times[1]}`);
  });

  it("a flush ends at its deadline: what it waits for is dropped and reported once", async () => {
    await using server = await startTestServer(() => {
      // Never answers.
    });
    const { queue, abandoned, counts } = harness(server, { batchSize: 5 });
    for (let i = 0; i < 12; i++) queue.enqueue(i);
    const started = Date.now();
    const result = await queue.flush({ timeout: 200 });
    assert.ok(Date.now() - started < 3_000);
    assert.deepEqual(result, { delivered: 0, dropped: 12 });
    assert.deepEqual(abandoned, [12]);
    assert.equal(counts.dropped, 12);
    assert.equal(queue.queued + queue.inFlight, 0);
  });

  it("close() stops accepting items and flushes", async () => {
    await using server = await startTestServer((_request, response) =>
      sendJson(response, 200, {})
    );
    const { queue } = harness(server);
    queue.enqueue(1);
    assert.deepEqual(await queue.close({ timeout: 5_000 }), {
      delivered: 1,
      dropped: 0,
    });
    assert.equal(queue.enqueue(2), false);
    assert.equal(queue.state.dropped, 1);
  });
});
