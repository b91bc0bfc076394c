// Reads a response body as text, counting the bytes as they arrive, so an
// endless or oversized body (chunked, or with a Content-Length that lies)
// stops at the limit instead of filling the memory.

/** The body was larger than the limit; `how` says how it showed. */
export class BodyTooLarge {
  constructor(readonly how: string) {}
}

/**
 * The body of `response` as text (UTF-8, like `Response.text()`), or a
 * {@linkcode BodyTooLarge} once more than `limit` bytes are declared or have
 * arrived (`0` = no limit). The body is cancelled when refused.
 */
export async function readBoundedText(
  response: Response,
  limit: number,
): Promise<string | BodyTooLarge> {
  if (limit === 0) return await response.text();
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => {});
    return new BodyTooLarge(`its Content-Length is ${declared} bytes`);
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return new BodyTooLarge(`more than ${limit} bytes arrived`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
