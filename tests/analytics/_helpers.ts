// Shared helpers of the analytics tests: a collecting endpoint on a real
// loopback server, bounded waits, and an in-memory provider.
import {
  type RecordedRequest,
  startCollector,
  startTestServer,
  type TestServer,
} from "../_support/http_server.ts";
import { delay } from "../_support/wait_for.ts";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type {
  AnalyticsEvent,
  AnalyticsFlushResult,
  IAnalyticsProvider,
} from "../../analytics/mod.ts";

export { startCollector };
export type { RecordedRequest, TestServer };

let messages = 0;

/**
 * A `track` event named `name` from `anon-1`, sampled at 1, with no
 * properties: the event the delivery tests send. Its `messageId` is a fresh
 * `m-<n>` unless given.
 */
export function trackEvent(
  name = "a",
  messageId = `m-${++messages}`,
): AnalyticsEvent {
  return {
    type: "track",
    name,
    properties: {},
    timestamp: Date.now(),
    anonymousId: "anon-1",
    sampleRate: 1,
    messageId,
  };
}

/** The events of every `{ events: [...] }` request received so far. */
export function receivedEvents(server: TestServer): AnalyticsEvent[] {
  return server.requests.flatMap((request) =>
    request.method === "POST"
      ? (JSON.parse(request.body) as { events: AnalyticsEvent[] }).events
      : []
  );
}

export { delay };

/** A promise with its resolver, for gating a server handler. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Tells whether a promise has settled yet, without waiting for it. */
export async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol("pending");
  const winner = await Promise.race([
    promise.then(() => true, () => true),
    delay(0).then(() => marker),
  ]);
  return winner !== marker;
}

/** A provider that records what it receives. */
export class MemoryProvider implements IAnalyticsProvider {
  readonly name: string;
  readonly events: AnalyticsEvent[] = [];
  flushes = 0;
  disposed = false;
  constructor(name = "memory") {
    this.name = name;
  }
  track(event: AnalyticsEvent): void {
    this.events.push(event);
  }
  page(event: AnalyticsEvent): void {
    this.events.push(event);
  }
  identify(event: AnalyticsEvent): void {
    this.events.push(event);
  }
  flush(): Promise<AnalyticsFlushResult> {
    this.flushes++;
    return Promise.resolve({ delivered: 0, dropped: 0 });
  }
  dispose(): Promise<void> {
    this.disposed = true;
    return Promise.resolve();
  }
}

/** Collects errors given to an `onError` hook. */
export function errorSink(): { errors: Error[]; onError: (e: Error) => void } {
  const errors: Error[] = [];
  return { errors, onError: (error) => errors.push(error) };
}

export function eventsOf(request: RecordedRequest): AnalyticsEvent[] {
  return (JSON.parse(request.body) as { events: AnalyticsEvent[] }).events;
}

/**
 * The address of a loopback port nothing listens on (bound, then closed), so
 * connections to it are refused at once.
 */
export async function refusingEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1/events`;
}

/** A server that reads each request and never answers it. */
export function startHangingServer(): Promise<TestServer> {
  return startTestServer(() => {});
}
