/**
 * The names closest to `name`, best first: case-insensitive equality, then containment either way,
 * then the Levenshtein distance (at most 2, or a third of the longer name). At most `limit` (default 3).
 */
export function closeNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = name.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    let score: number;
    if (lower === wanted) score = 0;
    else if (wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower))) score = 1;
    else {
      const distance = editDistance(wanted, lower);
      if (distance > Math.max(2, Math.floor(Math.max(wanted.length, lower.length) / 3))) continue;
      score = 1 + distance;
    }
    scored.push({ name: candidate, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, limit)
    .map((entry) => entry.name);
}

function editDistance(a: string, b: string): number {
  if (a.length > 128 || b.length > 128) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
