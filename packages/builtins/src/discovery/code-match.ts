import type { SymbolKindArgument } from './code-arguments.js';
import { type CodeSymbol, qualifiedName, type SymbolKind } from './code-symbols.js';

/** The kinds a `kind` argument selects (Go's spellings and `type` as the family of type definitions). */
export function kindsOf(argument: SymbolKindArgument): ReadonlySet<SymbolKind> {
  switch (argument) {
    case 'func':
      return new Set(['function']);
    case 'var':
      return new Set(['variable']);
    case 'const':
      return new Set(['constant']);
    case 'type':
      return new Set(['type', 'struct', 'interface', 'enum', 'union', 'trait']);
    default:
      return new Set([argument]);
  }
}

/**
 * A symbol argument as a name and an optional container: `Server.Close`, `(*Server).Close`,
 * `(s *Server) Close` and `Server::close` all give container `Server` and name `Close`.
 */
export function parseSymbolQuery(query: string): { name: string; container?: string } {
  let text = query.trim();
  // Go's receiver forms.
  const receiver = /^\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_][\w.]*)(?:\[[^\]]*\])?\s*\)\s*\.?\s*(.+)$/.exec(
    text,
  );
  if (receiver) text = `${receiver[1]}.${receiver[2]}`;
  text = text.replace(/::/g, '.').replace(/#/g, '.');
  const dot = text.lastIndexOf('.');
  if (dot <= 0 || dot === text.length - 1) return { name: text };
  return { name: text.slice(dot + 1), container: text.slice(0, dot) };
}

/** Whether a symbol is the one a parsed query names exactly (the container, when given, ends the symbol's). */
export function namesSymbol(
  symbol: CodeSymbol,
  query: { name: string; container?: string },
  caseSensitive = true,
): boolean {
  const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
  if (fold(symbol.name) !== fold(query.name)) return false;
  if (query.container === undefined) return true;
  if (!symbol.container) return false;
  const container = fold(symbol.container);
  const wanted = fold(query.container);
  return container === wanted || container.endsWith(`.${wanted}`);
}

/** Where each word of an identifier starts: `getFileSnapshot` → g, F, S; `read_file` → r, f. */
function wordStarts(name: string): number[] {
  const starts: number[] = [];
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    const previous = index > 0 ? name.charCodeAt(index - 1) : -1;
    const isUpper = code >= 65 && code <= 90;
    const isLetterOrDigit = (c: number) =>
      (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!isLetterOrDigit(code)) continue;
    if (index === 0 || !isLetterOrDigit(previous) || (isUpper && !(previous >= 65 && previous <= 90)))
      starts.push(index);
  }
  return starts;
}

/**
 * How well a name matches a search, lower is better, `undefined` for no match: 0 exact, 1 exact
 * ignoring case, 2 prefix, 3 prefix ignoring case, 4 the query's letters start words of the name in
 * order (`gFS` or `gfs` for `getFileSnapshot`), 5 substring ignoring case, 6+ the query's letters in
 * order with gaps (more gaps, higher).
 */
export function matchScore(name: string, query: string): number | undefined {
  if (name === query) return 0;
  const lowerName = name.toLowerCase();
  const lowerQuery = query.toLowerCase();
  if (lowerName === lowerQuery) return 1;
  if (name.startsWith(query)) return 2;
  if (lowerName.startsWith(lowerQuery)) return 3;
  const starts = wordStarts(name);
  if (lowerQuery.length <= starts.length) {
    let at = 0;
    for (const start of starts) {
      if (at < lowerQuery.length && lowerName[start] === lowerQuery[at]) at++;
    }
    if (at === lowerQuery.length && lowerName[0] === lowerQuery[0]) return 4;
  }
  if (lowerName.includes(lowerQuery)) return 5;
  // Letters in order with gaps; names far longer than the query are not worth showing.
  if (lowerQuery.length < 2 || name.length > lowerQuery.length * 6) return undefined;
  let at = 0;
  let gaps = 0;
  let previous = -1;
  for (let index = 0; index < lowerName.length && at < lowerQuery.length; index++) {
    if (lowerName[index] !== lowerQuery[at]) continue;
    if (previous >= 0 && index !== previous + 1) gaps++;
    previous = index;
    at++;
  }
  if (at < lowerQuery.length) return undefined;
  return 6 + gaps;
}

/** The score of a symbol for a search text; a text with a dot is matched against the qualified name too. */
export function symbolScore(symbol: CodeSymbol, query: string): number | undefined {
  const byName = matchScore(symbol.name, query);
  if (!query.includes('.') && !query.includes(':')) return byName;
  const parsed = parseSymbolQuery(query);
  if (namesSymbol(symbol, parsed)) return 0;
  if (namesSymbol(symbol, parsed, false)) return 1;
  const qualified = matchScore(qualifiedName(symbol), query.replace(/::/g, '.'));
  if (byName === undefined) return qualified;
  if (qualified === undefined) return byName;
  return Math.min(byName, qualified);
}
