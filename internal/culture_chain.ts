// The cultures read for one requested culture, in order: the culture, its
// shorter forms (zh-Hant-TW → zh-Hant → zh), then the fallback culture and its
// shorter forms, without duplicates.
export function cultureChain(
  culture: string,
  fallbackCulture: string | undefined,
): string[] {
  const chain: string[] = [];
  appendWithParents(chain, culture);
  if (fallbackCulture !== undefined) appendWithParents(chain, fallbackCulture);
  return chain;
}

function appendWithParents(chain: string[], culture: string): void {
  let current = culture;
  while (true) {
    if (!chain.includes(current)) chain.push(current);
    const cut = current.lastIndexOf("-");
    if (cut <= 0) return;
    current = current.slice(0, cut);
  }
}
