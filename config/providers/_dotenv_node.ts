// The .env parser, loaded on first use: dotenv reaches node:fs and friends
// at import time, so it is imported dynamically and only here. The npm
// build's `browser` condition uses _dotenv_browser.ts instead.

/** dotenv's `parse`, loaded once. */
export async function loadDotEnvParser(): Promise<
  (text: string) => Record<string, string>
> {
  const { parse } = await import("dotenv");
  return (text) => parse(text);
}
