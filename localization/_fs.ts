// Runtime adapter: the only place the localization package touches the file
// system. node:fs is reached through a dynamic import so a browser bundle of
// localization/mod.ts never pulls it in. node:fs/promises works in Deno,
// Node.js and Bun alike.
interface NodeFs {
  readFile(path: string, encoding: "utf8"): Promise<string>;
}

let fsPromise: Promise<NodeFs> | undefined;

export function readTextFile(path: string): Promise<string> {
  fsPromise ??= import("node:fs/promises") as Promise<NodeFs>;
  return fsPromise.then((fs) => fs.readFile(path, "utf8"));
}
