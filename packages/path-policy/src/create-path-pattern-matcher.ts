import picomatch from 'picomatch';

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
   * @param subject names joined by `/`: relative to a root when `relativeToRoot` is true, otherwise
   *   the names of an absolute path (anchored patterns are skipped for those).
   */
  match(subject: string, relativeToRoot: boolean): string | undefined;
}

interface CompiledPattern {
  readonly pattern: string;
  readonly negated: boolean;
  readonly anchored: boolean;
  readonly regex: RegExp;
}

/**
 * Compiles a list of path patterns (picomatch globs with `/` separators; requirement PP-PROT-4).
 *
 * Semantics, close to .gitignore:
 * - a pattern matches at any depth (`.git/**` also covers `vendor/x/.git/hooks/y`) unless it starts
 *   with `/`, which anchors it at the root (`/secrets/**`);
 * - `dir/**` and `dir/` also match `dir` itself;
 * - a pattern starting with `!` is an exception, and the last matching pattern decides
 *   (`['.env.*', '!.env.example']`);
 * - dotfiles are matched by `*`; case follows `caseSensitive`.
 *
 * Throws a `TypeError` for a pattern that is not a non-empty string (a configuration error).
 */
export function createPathPatternMatcher(
  patterns: readonly string[],
  options: PathPatternMatcherOptions,
): PathPatternMatcher {
  const compiled: CompiledPattern[] = patterns.map((pattern) => {
    if (typeof pattern !== 'string' || pattern.replace(/^!/, '').replace(/^\//, '').trim() === '') {
      throw new TypeError(
        `path policy: invalid path pattern ${JSON.stringify(pattern)} (expected a non-empty glob)`,
      );
    }
    const negated = pattern.startsWith('!');
    let body = negated ? pattern.slice(1) : pattern;
    const anchored = body.startsWith('/');
    if (anchored) body = body.slice(1);
    if (body.endsWith('/')) body = `${body}**`;
    // `windows: false`: subjects always use `/`, and backslash stays an escape on every host.
    const regex = picomatch.makeRe(anchored ? body : `**/${body}`, {
      dot: true,
      nocase: !options.caseSensitive,
      windows: false,
    });
    return { pattern, negated, anchored, regex };
  });
  return {
    patterns: Object.freeze([...patterns]),
    match(subject, relativeToRoot) {
      for (let index = compiled.length - 1; index >= 0; index -= 1) {
        const entry = compiled[index]!;
        if (entry.anchored && !relativeToRoot) continue;
        if (entry.regex.test(subject)) return entry.negated ? undefined : entry.pattern;
      }
      return undefined;
    },
  };
}
