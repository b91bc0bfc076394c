// Per-attempt timeouts of HttpClient on one timer per timeout length instead
// of a setTimeout/clearTimeout pair per attempt (a measurable share of a call
// over loopback). Attempts with the same timeout expire in the order they
// started, so each length keeps a queue and one timer armed at the oldest
// deadline; a finished attempt only leaves the queue. The timer is ref'd only
// while an attempt waits on it, so it never keeps a process alive by itself;
// where a timer cannot be unref'd (browsers, which have no process to keep
// alive, and runtimes returning numeric ids), it is cleared when the last
// waiting attempt leaves, as a per-attempt timer would be.

/** What the queue expires: an attempt. */
export interface Expiring {
  /** When it expires, in `performance.now()` milliseconds. */
  deadline: number;
  /** True while it waits in a queue. */
  queued: boolean;
  /** Called once when the deadline passes while it still waits. */
  expire(): void;
}

interface Referable {
  ref(): unknown;
  unref(): unknown;
}

/** Queues kept for lengths not in use; beyond this they are dropped. */
const KEEP_IDLE = 16;
const queues = new Map<number, DeadlineQueue>();

/** Starts waiting for `item`'s timeout of `timeout` milliseconds. */
export function startDeadline(timeout: number, item: Expiring): void {
  let queue = queues.get(timeout);
  if (queue === undefined) {
    queue = new DeadlineQueue(timeout);
    queues.set(timeout, queue);
  }
  queue.add(item);
}

/** Stops waiting for `item` (a no-op once it expired or left). */
export function stopDeadline(timeout: number, item: Expiring): void {
  if (item.queued) queues.get(timeout)?.remove(item);
}

class DeadlineQueue {
  readonly #timeout: number;
  #items: Expiring[] = [];
  #head = 0;
  #waiting = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The deadline the timer was armed for. */
  #armedFor = 0;

  constructor(timeout: number) {
    this.#timeout = timeout;
  }

  add(item: Expiring): void {
    item.deadline = performance.now() + this.#timeout;
    item.queued = true;
    this.#items.push(item);
    if (this.#waiting++ === 0 && this.#timer !== undefined) {
      (this.#timer as unknown as Referable).ref();
    }
    if (this.#timer === undefined) this.#arm(item.deadline);
  }

  remove(item: Expiring): void {
    item.queued = false;
    if (--this.#waiting === 0) this.#idle();
    this.#skip();
  }

  /** Moves the head past the items that left. */
  #skip(): void {
    const items = this.#items;
    let head = this.#head;
    while (head < items.length && !items[head].queued) head++;
    if (head === items.length) {
      items.length = 0;
      head = 0;
    } else if (head > 1024 && head * 2 > items.length) {
      items.splice(0, head);
      head = 0;
    }
    this.#head = head;
  }

  #arm(deadline: number): void {
    this.#armedFor = deadline;
    this.#timer = setTimeout(
      this.#fire,
      Math.max(0, deadline - performance.now()),
    );
  }

  /** No attempt waits: let the process exit, or stop the timer. */
  #idle(): void {
    const timer = this.#timer;
    if (timer === undefined) return;
    if (
      queues.size <= KEEP_IDLE &&
      typeof (timer as unknown as Partial<Referable>).unref === "function"
    ) {
      (timer as unknown as Referable).unref();
      return;
    }
    clearTimeout(timer);
    this.#timer = undefined;
    if (queues.size > KEEP_IDLE) queues.delete(this.#timeout);
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    // The timer may fire a hair before its deadline by performance.now().
    const limit = Math.max(this.#armedFor, performance.now());
    const items = this.#items;
    while (this.#head < items.length) {
      const item = items[this.#head];
      if (item.queued) {
        if (item.deadline > limit) break;
        item.queued = false;
        this.#waiting--;
        item.expire();
      }
      this.#head++;
    }
    this.#skip();
    if (this.#head < items.length) this.#arm(items[this.#head].deadline);
  };
}
