// Close-match suggestions for "not found" messages.

function distance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + cost,
      );
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length];
}

/**
 * Names from `candidates` that look like `name`: equal ignoring case, one
 * containing the other, or within an edit distance of about a third of the
 * name. Best matches first, at most `limit`.
 */
export function suggest(
  name: string,
  candidates: Iterable<string>,
  limit = 3,
): string[] {
  const wanted = name.toLowerCase();
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of new Set(candidates)) {
    const other = candidate.toLowerCase();
    let score: number;
    if (other === wanted) score = 0;
    else if (
      wanted.length >= 3 && (other.includes(wanted) || wanted.includes(other))
    ) {
      score = 1;
    } else {
      const d = distance(wanted, other);
      if (d > Math.max(2, Math.floor(wanted.length / 3))) continue;
      score = 1 + d;
    }
    scored.push({ candidate, score });
  }
  scored.sort((x, y) =>
    x.score - y.score || x.candidate.localeCompare(y.candidate)
  );
  return scored.slice(0, limit).map((entry) => entry.candidate);
}
