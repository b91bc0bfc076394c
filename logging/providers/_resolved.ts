// The promise built-in providers return from log(): already settled and never
// rejecting, so the manager can skip attaching a rejection handler to it.
export const RESOLVED: Promise<void> = Promise.resolve();
