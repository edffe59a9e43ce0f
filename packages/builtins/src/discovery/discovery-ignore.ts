import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { compileLinearGlob, type LinearGlob } from '@toolhost/path-policy';

// Hand-written rather than the `ignore` package on purpose: the JS fallback of `grep` must select
// exactly the files ripgrep selects, and ripgrep (its `ignore` crate) matches each path against
// each ignore file's globs on its own, without the parent-directory exclusion the `ignore` package
// always applies. That difference shows whenever a search starts inside an ignored directory
// (`grep path=dist`), which ripgrep searches and the `ignore` package would hide entirely.
// The line rules below follow the crate's `GitignoreBuilder::add_line`; globs are compiled with
// path-policy's linear matcher (compileLinearGlob), which keeps picomatch's (and so globset's) semantics for
// `*`, `?`, `**`, `[...]` and `{a,b}` without its backtracking regexes.

/**
 * The picomatch options whose meaning the linear matcher keeps for ignore files and grep globs
 * (its tests hold it to picomatch with these): globset's (ripgrep's) glob semantics: `*` matches dot-names, no
 * extglobs or leading-`!` negation (the caller handles `!`), `[!a]` is a negated class, and a
 * bracket expression is only a class (picomatch otherwise also matches it literally).
 */
export const GLOBSET_LIKE = Object.freeze({
  dot: true,
  noextglob: true,
  nonegate: true,
  windows: false,
  posix: true,
  literalBrackets: false,
} as const);

/** What one ignore file (or a list of globs) says about a path. */
export type IgnoreMatch = 'ignore' | 'whitelist' | 'none';

/** A compiled ignore file. */
export interface GitignoreMatcher {
  /** How many non-`!` rules it holds. */
  readonly ignoreRuleCount: number;
  /** The compiled lines, in file order (grep's JS engine sends them to its workers as data). */
  readonly rules: readonly GitignoreRule[];
  /**
   * What the last matching rule says about `relativePath` (relative to the file's directory, with
   * `/` separators, no leading `./`). Rules ending in `/` match directories only.
   */
  match(relativePath: string, isDirectory: boolean): IgnoreMatch;
}

/** One compiled ignore line: a `!` line re-includes (`whitelist`); a trailing `/` matches directories only. */
export interface GitignoreRule {
  readonly whitelist: boolean;
  readonly onlyDirectory: boolean;
  /** Matches the path relative to the ignore file's directory, in linear time (path-policy's compileLinearGlob). */
  readonly matcher: LinearGlob;
}

/** Options of {@link compileGitignore}. */
export interface CompileGitignoreOptions {
  /** Match case-insensitively. Default false (as git and ripgrep on every platform). */
  readonly caseInsensitive?: boolean;
}

/**
 * Compiles gitignore text: `#` comments, `!` re-includes, a leading or inner `/` anchors the glob
 * to the file's directory, a trailing `/` restricts it to directories, `\` escapes, trailing
 * spaces are dropped unless escaped, and the last matching line wins. Lines that are not valid
 * globs are skipped (as ripgrep skips them).
 */
export function compileGitignore(text: string, options: CompileGitignoreOptions = {}): GitignoreMatcher {
  const rules: GitignoreRule[] = [];
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const rawLine of source.split('\n')) {
    const rule = compileLine(rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine, options);
    if (rule !== undefined) rules.push(rule);
  }
  return matcherOf(rules);
}

/** Compiles a list of glob lines (each one gitignore line), as ripgrep builds `--glob` overrides. */
export function compileGlobLines(
  lines: readonly string[],
  options: CompileGitignoreOptions = {},
): GitignoreMatcher {
  const rules: GitignoreRule[] = [];
  for (const line of lines) {
    const rule = compileLine(line, options);
    if (rule !== undefined) rules.push(rule);
  }
  return matcherOf(rules);
}

/** Whether a glob line compiles (a `glob` argument is checked before any walk starts). */
export function isValidGlobLine(line: string): boolean {
  try {
    return compileLine(line, {}) !== undefined;
  } catch {
    return false;
  }
}

function matcherOf(rules: readonly GitignoreRule[]): GitignoreMatcher {
  const ignoreRuleCount = rules.filter((rule) => !rule.whitelist).length;
  return {
    ignoreRuleCount,
    rules,
    match(relativePath, isDirectory) {
      for (let index = rules.length - 1; index >= 0; index -= 1) {
        const rule = rules[index]!;
        if (rule.onlyDirectory && !isDirectory) continue;
        if (rule.matcher.test(relativePath)) return rule.whitelist ? 'whitelist' : 'ignore';
      }
      return 'none';
    },
  };
}

function compileLine(input: string, options: CompileGitignoreOptions): GitignoreRule | undefined {
  if (input.startsWith('#')) return undefined;
  let line = input.endsWith('\\ ') ? input : input.trimEnd();
  if (line === '') return undefined;
  let whitelist = false;
  let anchored = false;
  if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
    anchored = line.startsWith('/');
  } else {
    if (line.startsWith('!')) {
      whitelist = true;
      line = line.slice(1);
    }
    if (line.startsWith('/')) {
      line = line.slice(1);
      anchored = true;
    }
  }
  let onlyDirectory = false;
  if (line.endsWith('/')) {
    onlyDirectory = true;
    line = line.slice(0, -1);
    if (line.endsWith('\\')) line = line.slice(0, -1);
  }
  if (line === '') return undefined;
  let glob = line;
  // Without a slash the glob matches a name at any depth.
  if (!anchored && !glob.includes('/') && !glob.startsWith('**/')) glob = `**/${glob}`;
  // `dir/**` matches what is inside the directory, not the directory itself.
  if (glob.endsWith('/**')) glob = `${glob}/*`;
  // Project ignore files and the model's globs meet paths on the host's thread (glob, ls) and in
  // grep's workers: compiled once, in linear time, never to a backtracking regex. A line the
  // matcher refuses (a lone trailing `\`, a huge brace range) is skipped, as ripgrep skips a line
  // that is not a valid glob.
  const matcher = compileLinearGlob(glob, {
    dot: GLOBSET_LIKE.dot,
    extglob: false,
    caseInsensitive: options.caseInsensitive === true,
  });
  return matcher.ok ? { whitelist, onlyDirectory, matcher: matcher.value } : undefined;
}

/** One directory's ignore files, linked to the nearest ancestor directory that has any. */
export interface IgnoreLevel {
  /** The directory's real absolute path. */
  readonly directory: string;
  readonly parent: IgnoreLevel | undefined;
  /** `.rgignore` (highest precedence). */
  readonly rgignore: GitignoreMatcher | undefined;
  /** `.ignore`. */
  readonly ignore: GitignoreMatcher | undefined;
  /** `.gitignore`; only consulted up to the nearest repository root. */
  readonly gitignore: GitignoreMatcher | undefined;
  /** `.git/info/exclude` of a repository root. */
  readonly exclude: GitignoreMatcher | undefined;
  /** Whether the directory holds `.git` (a repository root). */
  readonly hasGit: boolean;
}

/** The names in a directory listing that make it an ignore level. */
const IGNORE_FILE_NAMES: ReadonlySet<string> = new Set(['.rgignore', '.ignore', '.gitignore', '.git']);

/** Whether a directory listing holds any ignore file (or `.git`), so it needs its own level. */
function listingHasIgnoreFiles(names: Iterable<string>): boolean {
  for (const name of names) if (IGNORE_FILE_NAMES.has(name)) return true;
  return false;
}

/**
 * Loads a directory's ignore files into a level above `parent`, or returns `parent` when the
 * directory has none. `names`, when given, is the directory's listing (saves failed reads).
 * Unreadable ignore files count as empty, as in ripgrep.
 */
export async function loadIgnoreLevel(
  directory: string,
  parent: IgnoreLevel | undefined,
  names?: ReadonlySet<string>,
): Promise<IgnoreLevel | undefined> {
  if (names !== undefined && !listingHasIgnoreFiles(names)) return parent;
  const has = (name: string) => names === undefined || names.has(name);
  const [rgignore, ignore, gitignore, exclude, hasGit] = await Promise.all([
    has('.rgignore') ? readIgnoreText(path.join(directory, '.rgignore')) : undefined,
    has('.ignore') ? readIgnoreText(path.join(directory, '.ignore')) : undefined,
    has('.gitignore') ? readIgnoreText(path.join(directory, '.gitignore')) : undefined,
    has('.git') ? readIgnoreText(path.join(directory, '.git', 'info', 'exclude')) : undefined,
    has('.git') ? exists(path.join(directory, '.git')) : false,
  ]);
  return ignoreLevelFromTexts(directory, parent, { rgignore, ignore, gitignore, exclude, hasGit });
}

/** The texts of one directory's ignore files (undefined: absent or unreadable) and whether it holds `.git`. */
export interface IgnoreTexts {
  readonly rgignore: string | undefined;
  readonly ignore: string | undefined;
  readonly gitignore: string | undefined;
  /** `.git/info/exclude`. */
  readonly exclude: string | undefined;
  readonly hasGit: boolean;
}

/**
 * Builds a directory's level from its ignore files' texts (as {@link loadIgnoreLevel} reads them),
 * or returns `parent` when it has none. For callers that read the files elsewhere (grep's workers).
 */
export function ignoreLevelFromTexts(
  directory: string,
  parent: IgnoreLevel | undefined,
  texts: IgnoreTexts,
): IgnoreLevel | undefined {
  const rgignore = compileIgnoreText(texts.rgignore);
  const ignore = compileIgnoreText(texts.ignore);
  const gitignore = compileIgnoreText(texts.gitignore);
  const exclude = compileIgnoreText(texts.exclude);
  const { hasGit } = texts;
  if (!rgignore && !ignore && !gitignore && !exclude && !hasGit) return parent;
  return { directory, parent, rgignore, ignore, gitignore, exclude, hasGit };
}

/**
 * The levels of every ancestor of `directory` (not the directory itself), from the file system
 * root down, as ripgrep reads parent ignore files. Returns the deepest one.
 */
export async function loadAncestorIgnoreLevels(directory: string): Promise<IgnoreLevel | undefined> {
  const ancestors: string[] = [];
  for (let current = directory; path.dirname(current) !== current; ) {
    current = path.dirname(current);
    ancestors.unshift(current);
  }
  let level: IgnoreLevel | undefined;
  for (const ancestor of ancestors) level = await loadIgnoreLevel(ancestor, level);
  return level;
}

/**
 * What the ignore files in effect say about an entry, with ripgrep's precedence: `.rgignore` over
 * `.ignore` over `.gitignore` over `.git/info/exclude`; within one kind the deepest file that has an
 * opinion wins; `.gitignore` and `exclude` files above the nearest repository root do not apply.
 */
export function matchIgnoreLevels(
  level: IgnoreLevel | undefined,
  absolutePath: string,
  isDirectory: boolean,
): IgnoreMatch {
  let rgignore: IgnoreMatch = 'none';
  let ignore: IgnoreMatch = 'none';
  let gitignore: IgnoreMatch = 'none';
  let exclude: IgnoreMatch = 'none';
  let sawGit = false;
  for (let current = level; current !== undefined; current = current.parent) {
    const relative = relativeTo(current.directory, absolutePath);
    if (relative === undefined) continue;
    if (rgignore === 'none' && current.rgignore) rgignore = current.rgignore.match(relative, isDirectory);
    if (ignore === 'none' && current.ignore) ignore = current.ignore.match(relative, isDirectory);
    if (!sawGit) {
      if (gitignore === 'none' && current.gitignore)
        gitignore = current.gitignore.match(relative, isDirectory);
      if (exclude === 'none' && current.exclude) exclude = current.exclude.match(relative, isDirectory);
    }
    sawGit ||= current.hasGit;
  }
  if (rgignore !== 'none') return rgignore;
  if (ignore !== 'none') return ignore;
  if (gitignore !== 'none') return gitignore;
  return exclude;
}

function relativeTo(directory: string, absolutePath: string): string | undefined {
  if (directory === '/') return absolutePath.length > 1 ? absolutePath.slice(1) : undefined;
  if (absolutePath.length <= directory.length + 1 || !absolutePath.startsWith(directory)) return undefined;
  if (absolutePath.charCodeAt(directory.length) !== 0x2f) return undefined;
  return absolutePath.slice(directory.length + 1);
}

/** Unreadable ignore files count as empty, as in ripgrep. */
async function readIgnoreText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

function compileIgnoreText(text: string | undefined): GitignoreMatcher | undefined {
  if (text === undefined) return undefined;
  try {
    return compileGitignore(text);
  } catch {
    return undefined;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}
