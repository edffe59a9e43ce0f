import { editDistance } from './edit-distance.js';

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
      const allowed = Math.max(2, Math.floor(Math.max(wanted.length, lower.length) / 3));
      // Names over 128 characters are never close: the distance table would be too large to build.
      if (wanted.length > 128 || lower.length > 128) continue;
      const distance = editDistance(wanted, lower, allowed);
      if (distance > allowed) continue;
      score = 1 + distance;
    }
    scored.push({ name: candidate, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, limit)
    .map((entry) => entry.name);
}
