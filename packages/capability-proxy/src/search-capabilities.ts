import { editDistance } from '@toolhost/contracts';

/** One reachable capability as search and candidate lists see it. */
export interface CapabilitySummary {
  readonly id: string;
  readonly kind: 'tool' | 'mcp-server' | 'mcp-tool' | 'mcp-resource' | 'mcp-prompt' | 'session';
  /** The short name (tool name, server name). */
  readonly name: string;
  /** For MCP tools, resources and prompts: the server. */
  readonly server?: string;
  readonly description: string;
  /** Where its schema comes from: a connected server, the cache, or nowhere yet. */
  readonly schemaSource?: 'live' | 'cached' | 'unknown';
}

/** A ranked hit. */
export interface CapabilityHit {
  readonly entry: CapabilitySummary;
  readonly score: number;
}

/**
 * Ranks capabilities by how well a query's words match their names and descriptions. Per word: the
 * exact name 12, a name part 8, inside the name 5, a whole description word 3, inside the
 * description 1; a hit on the whole query in the name adds 6; entries that match no word are left
 * out. Ties are broken by id, so the order is stable.
 */
export function searchCapabilities(
  entries: readonly CapabilitySummary[],
  query: string,
  limit = 10,
): CapabilityHit[] {
  const words = wordsOf(query);
  if (words.length === 0) return [];
  const phrase = normalize(query);
  const hits: CapabilityHit[] = [];
  for (const entry of entries) {
    const { name, nameParts, description, descriptionWords } = indexOf(entry);
    let score = 0;
    let matched = 0;
    for (const word of words) {
      let best = 0;
      if (name === word) best = 12;
      else if (nameParts.has(word)) best = 8;
      else if (name.includes(word) || (entry.server ?? '').toLowerCase().includes(word)) best = 5;
      else if (descriptionWords.has(word) || descriptionWords.has(singular(word))) best = 3;
      else if (word.length >= 3 && description.includes(word)) best = 1;
      if (best > 0) matched++;
      score += best;
    }
    if (matched === 0) continue;
    if (phrase.length > 1 && normalize(entry.name).includes(phrase)) score += 6;
    // Entries matching every word rank above entries matching some.
    if (matched === words.length) score += 2;
    hits.push({ entry, score });
  }
  hits.sort((a, b) => b.score - a.score || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0));
  return hits.slice(0, limit);
}

/**
 * Capabilities whose name is close to a name that did not resolve: the same name in another
 * namespace (score 100), the same name ignoring case and `-`/`_` (90), one containing the other
 * (50), or at most two edits apart (30). Best first, at most `limit`.
 */
export function closeCandidates(
  entries: readonly CapabilitySummary[],
  wanted: string,
  limit = 8,
): CapabilityHit[] {
  const target = wanted.trim();
  if (!target) return [];
  const loose = normalize(target);
  const hits: CapabilityHit[] = [];
  for (const entry of entries) {
    let score = 0;
    if (entry.name === target) score = 100;
    else if (normalize(entry.name) === loose) score = 90;
    else if (
      loose.length >= 3 &&
      (normalize(entry.name).includes(loose) || loose.includes(normalize(entry.name)))
    )
      score = 50;
    else if (loose.length >= 4 && editDistance(normalize(entry.name), loose, 2) <= 2) score = 30;
    if (score > 0) hits.push({ entry, score });
  }
  hits.sort((a, b) => b.score - a.score || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0));
  return hits.slice(0, limit);
}

interface EntryIndex {
  readonly name: string;
  readonly nameParts: ReadonlySet<string>;
  readonly description: string;
  readonly descriptionWords: ReadonlySet<string>;
}

// Word sets per summary object: summaries are reused while a server's tool list is unchanged, so
// a search over hundreds of cached tools does not split every description again.
const indexes = new WeakMap<CapabilitySummary, EntryIndex>();

function indexOf(entry: CapabilitySummary): EntryIndex {
  let index = indexes.get(entry);
  if (!index) {
    index = {
      name: entry.name.toLowerCase(),
      nameParts: new Set(wordsOf(`${entry.name} ${entry.server ?? ''}`)),
      description: entry.description.toLowerCase(),
      descriptionWords: new Set(wordsOf(entry.description)),
    };
    indexes.set(entry, index);
  }
  return index;
}

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/[-_\s.]+/g, '');
}

function singular(word: string): string {
  return word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : `${word}s`;
}
