// Browser flavour of the .env parser loader (the npm build's `browser`
// condition uses it in place of _dotenv_node.ts): .env files live on servers, and
// dotenv needs node:fs, so nothing of it reaches a browser bundle.

/** Always rejects: .env files are read by server runtimes only. */
export function loadDotEnvParser(): Promise<
  (text: string) => Record<string, string>
> {
  return Promise.reject(
    new Error(
      "DotEnvProvider needs a file system (Deno, Node.js or Bun); in a browser use JsonUrlProvider or MemoryProvider",
    ),
  );
}
