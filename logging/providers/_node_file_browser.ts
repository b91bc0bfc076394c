// Browser flavour of the log-file adapter (the npm build's `browser`
// condition uses it in place of _node_file_node.ts): a page has no file system, so
// FileLogProvider reports a clear error through onError and no `node:` module
// reaches the bundle.
import type { LogFile } from "./_node_file_node.ts";

export type { LogFile };

/** Always rejects: a browser has no file system. */
export function openLogFile(path: string, _maxFiles: number): Promise<LogFile> {
  return Promise.reject(
    new Error(
      `FileLogProvider needs a file system (Deno, Node.js or Bun) to write ${path}; in a browser use ConsoleLogProvider or RemoteLogProvider`,
    ),
  );
}
