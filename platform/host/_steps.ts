// The names of the application's four start-up steps, in order.
export const STEP_NAMES: readonly string[] = Object.freeze([
  "configuration",
  "logging",
  "platform",
  "services",
]);
