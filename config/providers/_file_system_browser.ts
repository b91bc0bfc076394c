// Browser flavour of the file-system adapter (the npm build's `browser`
// condition uses it in place of _file_system_node.ts): a page has no file system,
// so file sources fail with the same error the server flavour gives when
// `node:` modules are missing, and nothing of `node:` reaches the bundle.
import { ConfigurationSourceError } from "./configuration_source_error.ts";

function unavailable(source: string): ConfigurationSourceError {
  return new ConfigurationSourceError(
    `Configuration source ${source} needs a file system (Deno, Node.js or Bun); in a browser use JsonUrlProvider or MemoryProvider`,
    { source },
  );
}

/** Always rejects: a browser has no file system. */
export function resolveConfigPath(
  path: string,
  _basePath: string | undefined,
): Promise<string> {
  return Promise.reject(unavailable(path));
}

/** Always rejects: a browser has no file system. */
export function readTextFile(
  _absolutePath: string,
  source: string,
  _maxFileSize?: number,
  _readTimeout?: number,
): Promise<string | undefined> {
  return Promise.reject(unavailable(source));
}

/** Nothing to watch in a browser: returns a stopper that does nothing. */
export function pollFile(
  _absolutePath: string,
  _initial: string | undefined,
  _interval: number,
  _onChange: () => void,
  _maxFileSize?: number,
  _readTimeout?: number,
): () => Promise<void> {
  return () => Promise.resolve();
}
