import { compileLinearGlob, type LinearGlob } from './linear-glob.js';

/**
 * Default protected paths: readable, never writable through the policy (PP-PROT-1). `.git` holds
 * hooks and config that run code; `.toolhost` holds the host's own state.
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = Object.freeze(['.git/**', '.toolhost/**']);

/**
 * Default secret paths: neither readable, listable nor writable through the policy (PP-PROT-2).
 * Example env files are exempt because they are meant to be shared.
 */
export const DEFAULT_SECRET_PATHS: readonly string[] = Object.freeze([
  '.env',
  '.env.*',
  '!.env.example',
  '!.env.sample',
  '!.env.template',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_ed25519*',
]);

/** Options of {@link createPathPatternMatcher}. */
export interface PathPatternMatcherOptions {
  /** Match names case-sensitively. */
  readonly caseSensitive: boolean;
}

/** Decides which pattern of a list, if any, matches a path. */
export interface PathPatternMatcher {
  /** The patterns as configured. */
  readonly patterns: readonly string[];
  /**
   * The pattern that decides for `subject`, or `undefined` when none matches or the deciding one is
   * an exception (`!pattern`).
   *
   * @param subject names joined by `/` (`.` or `''` for a root itself): relative to a root when
   *   `relativeToRoot` is true, otherwise the names of an absolute path (anchored patterns are
   *   skipped for those).
   */
  match(subject: string, relativeToRoot: boolean): string | undefined;
  /** {@link PathPatternMatcher.match} on names already split (no `.` or `..` names). */
  matchNames(names: readonly string[], relativeToRoot: boolean): string | undefined;
  /**
   * The pattern that covers a path: the one deciding for the path itself or for any directory
   * above it, the outermost first (requirement PP-PROT-6). A directory that a pattern decides for
   * covers everything beneath it, as in `.gitignore` and as the shell sandbox hides or re-binds a
   * matched directory as a whole: `certs.key/inner.txt` is covered by `*.key`, and an exception
   * cannot re-include a path below a covered directory (`['secrets/', '!secrets/a']` covers
   * `secrets/a`; write `secrets/*` to make exceptions inside). `undefined` when nothing covers it.
   */
  matchCovering(names: readonly string[], relativeToRoot: boolean): string | undefined;
}

/** `**` as a whole name: any number of names, including none. */
const GLOBSTAR = Symbol('globstar');

interface CompiledPattern {
  readonly pattern: string;
  readonly negated: boolean;
  readonly anchored: boolean;
  /** One entry per name of the pattern. */
  readonly parts: ReadonlyArray<LinearGlob | typeof GLOBSTAR>;
}

/**
 * Whether a glob groups across a `/` (`{a,b/c}`, `@(x|y/z)`, `[/]`): such a pattern cannot be
 * matched name by name, so it is refused at configuration.
 */
function groupsAcrossSeparator(glob: string): boolean {
  let depth = 0;
  for (let index = 0; index < glob.length; index += 1) {
    const character = glob[index];
    if (character === '\\') index += 1;
    else if (character === '{' || character === '(' || character === '[') depth += 1;
    else if ((character === '}' || character === ')' || character === ']') && depth > 0) depth -= 1;
    else if (character === '/' && depth > 0) return true;
  }
  return false;
}

function compile(pattern: string, caseSensitive: boolean): CompiledPattern {
  const invalid = (why: string) =>
    new TypeError(`path policy: invalid path pattern ${JSON.stringify(pattern)} (${why})`);
  if (typeof pattern !== 'string') throw invalid('expected a string');
  const negated = pattern.startsWith('!');
  let body = negated ? pattern.slice(1) : pattern;
  const anchored = body.startsWith('/');
  if (anchored) body = body.slice(1);
  if (body.endsWith('/')) body = `${body}**`;
  if (groupsAcrossSeparator(body)) throw invalid('a {…}, (…) or […] group may not contain /');
  const names = body.split('/').filter((name) => name !== '' && name !== '.');
  if (names.length === 0) throw invalid('expected a non-empty glob');
  if (names.includes('..')) throw invalid('a pattern may not contain ..');
  // Each name is matched in linear time (linear-glob.ts): the patterns are configured, but the
  // names come from the model, and picomatch's regex for `*a*a*a*a*a*a*a*a*a*a*a*b` takes seconds
  // on a name of 28 characters (backslash stays an escape everywhere, as picomatch's `windows: false`).
  const parts = names.map((name) => {
    if (name === '**') return GLOBSTAR;
    const compiled = compileLinearGlob(name, { dot: true, extglob: true, caseInsensitive: !caseSensitive });
    if (!compiled.ok) throw invalid(compiled.problem);
    return compiled.value;
  });
  // Unanchored patterns match at any depth: as if they started with `**/`.
  return { pattern, negated, anchored, parts: anchored ? parts : [GLOBSTAR, ...parts] };
}

/**
 * Whether `names` match `parts` from first to last. A small dynamic program over (pattern name,
 * path name) pairs: O(parts × names) regex tests on single names, so a long model-chosen path can
 * never make a configured `a/**\/b/**\/c` backtrack the way one whole-path regex does.
 */
function matchesParts(parts: CompiledPattern['parts'], names: readonly string[]): boolean {
  // The two shapes nearly every configured pattern has, answered without the table:
  // `**/name` (`.env`, `*.pem`) tests the last name; `**/name/**` (`.git/**`) tests each name.
  if (parts.length === 2 && parts[0] === GLOBSTAR && parts[1] !== GLOBSTAR) {
    return names.length > 0 && parts[1]!.test(names[names.length - 1]!);
  }
  if (parts.length === 3 && parts[0] === GLOBSTAR && parts[1] !== GLOBSTAR && parts[2] === GLOBSTAR) {
    const regex = parts[1]!;
    return names.some((name) => regex.test(name));
  }
  let reachable = new Uint8Array(names.length + 1);
  reachable[0] = 1;
  for (const part of parts) {
    const next = new Uint8Array(names.length + 1);
    let any = false;
    for (let index = 0; index <= names.length; index += 1) {
      if (part === GLOBSTAR) {
        if (reachable[index] === 1) any = true;
        if (any) next[index] = 1;
      } else if (reachable[index] === 1 && index < names.length && part.test(names[index]!)) {
        next[index + 1] = 1;
        any = true;
      }
    }
    if (!any) return false;
    reachable = next;
  }
  return reachable[names.length] === 1;
}

/**
 * Marks in `out` (indexed by prefix length, 1..names.length) every non-empty prefix of `names`
 * that `parts` match, with the same dynamic program as {@link matchesParts}: O(parts × names).
 */
function markMatchingPrefixes(
  parts: CompiledPattern['parts'],
  names: readonly string[],
  out: Uint8Array,
  at: number,
): boolean {
  let marked = false;
  // `**/name`: the prefixes ending in a matching name.
  if (parts.length === 2 && parts[0] === GLOBSTAR && parts[1] !== GLOBSTAR) {
    const regex = parts[1]!;
    for (let index = 0; index < names.length; index += 1)
      if (regex.test(names[index]!)) {
        out[at + index + 1] = 1;
        marked = true;
      }
    return marked;
  }
  // `**/name/**`: every prefix from the first matching name on.
  if (parts.length === 3 && parts[0] === GLOBSTAR && parts[1] !== GLOBSTAR && parts[2] === GLOBSTAR) {
    const regex = parts[1]!;
    let index = 0;
    while (index < names.length && !regex.test(names[index]!)) index += 1;
    for (index += 1; index <= names.length; index += 1) {
      out[at + index] = 1;
      marked = true;
    }
    return marked;
  }
  let reachable = new Uint8Array(names.length + 1);
  reachable[0] = 1;
  for (const part of parts) {
    const next = new Uint8Array(names.length + 1);
    let any = false;
    for (let index = 0; index <= names.length; index += 1) {
      if (part === GLOBSTAR) {
        if (reachable[index] === 1) any = true;
        if (any) next[index] = 1;
      } else if (reachable[index] === 1 && index < names.length && part.test(names[index]!)) {
        next[index + 1] = 1;
        any = true;
      }
    }
    if (!any) return false;
    reachable = next;
  }
  for (let index = 1; index <= names.length; index += 1)
    if (reachable[index] === 1) {
      out[at + index] = 1;
      marked = true;
    }
  return marked;
}

/**
 * Compiles a list of path patterns (picomatch globs with `/` separators; requirement PP-PROT-4).
 *
 * Semantics, close to .gitignore:
 * - a pattern matches at any depth (`.git/**` also covers `vendor/x/.git/hooks/y`) unless it starts
 *   with `/`, which anchors it at the root (`/secrets/**`);
 * - `**` as a whole name matches any number of names; `dir/**` and `dir/` also match `dir` itself;
 * - a pattern starting with `!` is an exception, and the last matching pattern decides
 *   (`['.env.*', '!.env.example']`);
 * - dotfiles are matched by `*`; case follows `caseSensitive`;
 * - {@link PathPatternMatcher.matchCovering} (what the path policy uses) also lets a matched
 *   directory cover everything beneath it, as `.gitignore` does;
 * - each name is matched by its own linear-time glob (picomatch's syntax, linear-glob.ts), and
 *   `**` by a dynamic program, so the cost is linear in the path whatever the patterns.
 *
 * Throws a `TypeError` (a configuration error) for a pattern that is not a non-empty string, that
 * contains a `..` name, or whose `{…}`, `(…)` or `[…]` group spans a `/`.
 */
export function createPathPatternMatcher(
  patterns: readonly string[],
  options: PathPatternMatcherOptions,
): PathPatternMatcher {
  if (!Array.isArray(patterns)) throw new TypeError('path policy: path patterns must be an array of strings');
  const compiled = patterns.map((pattern) => compile(pattern, options.caseSensitive));
  const matchNames = (names: readonly string[], relativeToRoot: boolean): string | undefined => {
    for (let index = compiled.length - 1; index >= 0; index -= 1) {
      const entry = compiled[index]!;
      if (entry.anchored && !relativeToRoot) continue;
      if (matchesParts(entry.parts, names)) return entry.negated ? undefined : entry.pattern;
    }
    return undefined;
  };
  const matchCovering = (names: readonly string[], relativeToRoot: boolean): string | undefined => {
    if (names.length === 0) return matchNames(names, relativeToRoot);
    // One row of prefix matches per pattern, then per prefix (outermost first) the last matching
    // pattern decides: O(patterns × names), the same bound as one whole-path match per name.
    const width = names.length + 1;
    const rows = new Uint8Array(compiled.length * width);
    let any = false;
    for (const [index, entry] of compiled.entries()) {
      if (entry.anchored && !relativeToRoot) continue;
      if (markMatchingPrefixes(entry.parts, names, rows, index * width)) any = true;
    }
    if (!any) return undefined;
    for (let length = 1; length <= names.length; length += 1) {
      for (let index = compiled.length - 1; index >= 0; index -= 1) {
        if (rows[index * width + length] !== 1) continue;
        const entry = compiled[index]!;
        if (!entry.negated) return entry.pattern;
        break;
      }
    }
    return undefined;
  };
  return {
    patterns: Object.freeze([...patterns]),
    matchNames,
    matchCovering,
    match: (subject, relativeToRoot) =>
      matchNames(
        subject.split('/').filter((name) => name !== '' && name !== '.'),
        relativeToRoot,
      ),
  };
}
