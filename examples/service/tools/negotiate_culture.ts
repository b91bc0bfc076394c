// Culture negotiation without Kit, for the benchmark's baseline
// (bare_hono.ts): `?culture=` first, then the ranges of Accept-Language by
// q-value (then order), then the default. The service itself uses Kit's
// negotiateCulture.

/**
 * Picks a supported culture for a request.
 *
 * @param match The supported culture for a name or language, if any.
 * @param fallback The culture when nothing matches.
 * @param query The `culture` query parameter, if any.
 * @param acceptLanguage The `Accept-Language` header, if any.
 * @returns A supported culture.
 */
export function negotiateCulture(
  match: (name: string) => string | undefined,
  fallback: string,
  query: string | undefined,
  acceptLanguage: string | null | undefined,
): string {
  if (query !== undefined && query !== "") {
    const found = match(query);
    if (found !== undefined) return found;
  }
  if (acceptLanguage) {
    const ranges = acceptLanguage.split(",").slice(0, 20).map(
      (part, index) => {
        const [tag, ...params] = part.trim().split(";");
        const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
        const weight = q === undefined ? 1 : Number(q.slice(2));
        return {
          tag: tag.trim(),
          weight: Number.isFinite(weight) ? weight : 0,
          index,
        };
      },
    ).filter((range) => range.weight > 0 && range.tag !== "*")
      .sort((a, b) => b.weight - a.weight || a.index - b.index);
    for (const range of ranges) {
      const found = match(range.tag);
      if (found !== undefined) return found;
    }
  }
  return fallback;
}
