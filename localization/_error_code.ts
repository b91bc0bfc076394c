// The `code` of a file-system error, shared by both flavours of the file
// adapter (_fs_node.ts and _fs_browser.ts).

/** The `code` of a file-system error (`ENOENT`…), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
