import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';

/**
 * Names that are protected under every root whatever the configuration: `.git` holds hooks and config
 * that run code, `.toolhost` holds the host's own state (requirement SB-4).
 */
export const ALWAYS_PROTECTED_NAMES: readonly string[] = Object.freeze(['.git', '.toolhost']);

/**
 * Missing protected names that get an empty *directory* placeholder; any other missing literal path
 * gets an empty file (a pattern ending in `/` or `/**` also asks for a directory). `.git` must be a
 * directory: git ignores an empty `.git` directory but refuses an empty `.git` file.
 */
const DIRECTORY_NAMES = new Set(['.git', '.toolhost', '.hg', '.svn', 'node_modules', '.next']);

/**
 * Directories never descended into while looking for pattern matches (size, not safety: see README).
 * `.git` is protected as a whole in `workspace_write`; its object store holds no secret files.
 */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

/** A protected path that does not exist yet and gets an empty read-only placeholder. */
export interface MissingProtectedPath {
  readonly path: string;
  readonly kind: 'directory' | 'file';
}

/** What the sandbox must do with the protected and secret paths of the writable roots. */
export interface ProtectedPathPlan {
  /** Existing paths to re-bind read-only, shallowest first. */
  readonly readOnly: readonly string[];
  /** Literal protected paths that do not exist yet: they get placeholders so they cannot be created. */
  readonly missing: readonly MissingProtectedPath[];
  /** Existing secret files and directories to cover with an empty placeholder (unreadable). */
  readonly hidden: readonly { readonly path: string; readonly kind: 'directory' | 'file' }[];
  /**
   * Directories between a root and a nested protected path. Binding them onto themselves turns them
   * into mount points, which cannot be renamed: otherwise `mv sub x && mkdir sub` would move the
   * protection away and re-create the path unprotected.
   */
  readonly pinned: readonly string[];
  /** Whether the walk stopped at its entry budget (some deep matches may be unprotected). */
  readonly truncated: boolean;
}

/** Options of {@link planProtectedPaths}. */
export interface PlanProtectedPathsOptions {
  /** Real absolute roots that are writable in the sandbox. */
  readonly roots: readonly string[];
  /** Protected patterns or absolute paths (path-policy syntax, see README). */
  readonly protectedPaths: readonly string[];
  /** Secret patterns or absolute paths whose existing matches become unreadable. */
  readonly secretPaths: readonly string[];
  /** Compare names case-sensitively. Default true. */
  readonly caseSensitive?: boolean;
  /** Directory entries visited at most per plan. Default 200 000. */
  readonly maxEntries?: number;
  /** Include {@link ALWAYS_PROTECTED_NAMES} (and reserve them when missing). Default true. */
  readonly includeAlwaysProtected?: boolean;
}

interface CompiledList {
  /** Root-anchored patterns that name one path (`/config/`, `/deploy/prod.key`). */
  readonly literalAnchored: Array<{ readonly path: string; readonly directory: boolean }>;
  /** `basename`: the pattern names no directory (`.env`, `*.pem`, `.git/**`), so the entry's own name is matched. */
  readonly matchers: Array<{ readonly regex: RegExp; readonly negated: boolean; readonly basename: boolean }>;
  readonly absolute: string[];
}

const GLOB_CHARACTERS = /[*?[\]{}()!+@]/;

/**
 * Whether a pattern is an absolute path rather than a root-anchored pattern: it starts with `/`, has
 * no glob characters, and lies inside one of the roots (`/repo/config/app.key` with root `/repo`).
 * Any other leading `/` anchors a pattern at each root (`/config/app.key`).
 */
export function isAbsoluteLiteral(pattern: string, roots: readonly string[]): boolean {
  if (!path.isAbsolute(pattern) || GLOB_CHARACTERS.test(pattern)) return false;
  const normalized = path.normalize(pattern);
  return roots.some((root) => isInside(root, normalized) && normalized !== root);
}

function compileList(
  patterns: readonly string[],
  roots: readonly string[],
  caseSensitive: boolean,
): CompiledList {
  const compiled: CompiledList = { literalAnchored: [], matchers: [], absolute: [] };
  for (const raw of patterns) {
    if (typeof raw !== 'string' || raw.replace(/^!/, '').replace(/^\//, '').trim() === '') {
      throw new TypeError(`jobs sandbox: invalid protected path pattern ${JSON.stringify(raw)}`);
    }
    const negated = raw.startsWith('!');
    let body = negated ? raw.slice(1) : raw;
    if (!negated && isAbsoluteLiteral(body, roots)) {
      compiled.absolute.push(path.normalize(body).replace(/[\\/]+$/, '') || '/');
      continue;
    }
    const anchored = body.startsWith('/');
    if (anchored) body = body.slice(1);
    if (body.endsWith('/')) body = `${body}**`;
    const literal = body.replace(/\/\*\*$/, '');
    if (anchored && !negated && !GLOB_CHARACTERS.test(literal)) {
      compiled.literalAnchored.push({ path: literal, directory: literal !== body });
    }
    // A pattern without a directory part matches an entry by its own name at any depth; the walk
    // stops at a matched directory, so `name/**` needs only `name`. Matching the name alone is several
    // times cheaper than matching `**/name` against every relative path.
    const basename = !anchored && !literal.includes('/');
    compiled.matchers.push({
      regex: picomatch.makeRe(basename ? literal : anchored ? body : `**/${body}`, {
        dot: true,
        nocase: !caseSensitive,
        windows: false,
      }),
      negated,
      basename,
    });
  }
  return compiled;
}

function matches(list: CompiledList, relative: string, name: string): boolean {
  for (let index = list.matchers.length - 1; index >= 0; index -= 1) {
    const entry = list.matchers[index]!;
    if (entry.regex.test(entry.basename ? name : relative)) return !entry.negated;
  }
  return false;
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function kindOf(target: string): 'directory' | 'file' | 'other' | undefined {
  try {
    const stats = lstatSync(target);
    if (stats.isDirectory()) return 'directory';
    if (stats.isFile()) return 'file';
    return 'other';
  } catch {
    return undefined;
  }
}

/**
 * Works out which paths of the writable roots must be re-bound read-only, which missing ones need a
 * placeholder, which secrets must be covered, and which directories must be pinned.
 *
 * Patterns follow the path-policy syntax (`@toolhost/path-policy`): relative globs match at any
 * depth, a leading `/` anchors at the root, `dir/` and `dir/**` cover `dir` itself, `!` makes an
 * exception (last match wins), dotfiles match `*`. An absolute path inside a root is taken
 * literally (see {@link isAbsoluteLiteral}). Existing
 * matches are found by walking each root (symbolic links are not followed; `node_modules` is not
 * entered, nor `.git` below a root; the walk stops after `maxEntries` entries and reports `truncated`). A matched directory
 * is protected as a whole and not entered.
 *
 * Placeholders are planned for `.git` and `.toolhost` under every root, for anchored literal
 * patterns (`/config/secrets.json`) and for absolute paths inside a root; a pattern that names no
 * single path (`**\/.env`) cannot be reserved before it exists (see README, "Limits").
 */
export function planProtectedPaths(options: PlanProtectedPathsOptions): ProtectedPathPlan {
  const caseSensitive = options.caseSensitive ?? true;
  const always = options.includeAlwaysProtected === false ? [] : ALWAYS_PROTECTED_NAMES;
  const protectedList = compileList(
    [...always.map((name) => `${name}/**`), ...options.protectedPaths],
    options.roots,
    caseSensitive,
  );
  const secretList = compileList(options.secretPaths, options.roots, caseSensitive);
  const readOnly = new Set<string>();
  const hidden = new Map<string, 'directory' | 'file'>();
  const missing = new Map<string, 'directory' | 'file'>();
  let budget = options.maxEntries ?? 200_000;
  let truncated = false;
  const roots = [...new Set(options.roots)];

  const reserve = (target: string, root: string, wantsDirectory: boolean) => {
    // The first missing component is the placeholder: creating `a/b/c` needs `a` first.
    let current = target;
    let directory = wantsDirectory || DIRECTORY_NAMES.has(path.basename(target));
    for (;;) {
      const parent = path.dirname(current);
      if (parent === current || !isInside(root, parent) || kindOf(parent) !== undefined) break;
      current = parent;
      directory = true;
    }
    if (kindOf(current) === undefined) missing.set(current, directory ? 'directory' : 'file');
    else if (kindOf(current) !== undefined) readOnly.add(current);
  };

  for (const root of roots) {
    for (const name of always) reserve(path.join(root, name), root, true);
    for (const literal of protectedList.literalAnchored) {
      reserve(path.join(root, ...literal.path.split('/')), root, literal.directory);
    }
    for (const absolute of protectedList.absolute) {
      if (isInside(root, absolute) && absolute !== root) reserve(absolute, root, false);
    }
    for (const absolute of secretList.absolute) {
      const kind = kindOf(absolute);
      if (isInside(root, absolute) && (kind === 'file' || kind === 'directory')) hidden.set(absolute, kind);
    }
  }

  const walk = (root: string, directory: string, relativeDirectory: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (budget-- <= 0) {
        truncated = true;
        return;
      }
      const relative = relativeDirectory ? `${relativeDirectory}/${entry.name}` : entry.name;
      const absolute = path.join(directory, entry.name);
      const isDirectory = entry.isDirectory();
      if ((isDirectory || entry.isFile()) && matches(secretList, relative, entry.name)) {
        hidden.set(absolute, isDirectory ? 'directory' : 'file');
        continue;
      }
      if (matches(protectedList, relative, entry.name)) {
        readOnly.add(absolute);
        continue;
      }
      if (isDirectory && !SKIPPED_DIRECTORIES.has(entry.name)) walk(root, absolute, relative);
    }
  };
  const walkNeeded = protectedList.matchers.length > 0 || secretList.matchers.length > 0;
  if (walkNeeded) for (const root of roots) walk(root, root, '');

  // Only paths inside a writable root need anything: the rest of the file system is read-only.
  const insideRoots = (target: string) => roots.some((root) => isInside(root, target) && target !== root);
  const sortedReadOnly = [...readOnly].filter(insideRoots).sort(byDepth);
  for (const target of [...hidden.keys()]) if (!insideRoots(target)) hidden.delete(target);
  // A secret inside a read-only path is still hidden; a read-only path inside a hidden one is moot.
  const pinned = new Set<string>();
  for (const target of [...sortedReadOnly, ...missing.keys(), ...hidden.keys()]) {
    const root = roots
      .filter((candidate) => isInside(candidate, target))
      .sort(byDepth)
      .at(-1);
    if (!root) continue;
    for (let parent = path.dirname(target); parent !== root && isInside(root, parent); ) {
      pinned.add(parent);
      const next = path.dirname(parent);
      if (next === parent) break;
      parent = next;
    }
  }
  return {
    readOnly: sortedReadOnly,
    missing: [...missing]
      .map(([target, kind]) => ({ path: target, kind }))
      .sort((a, b) => byDepth(a.path, b.path)),
    hidden: [...hidden]
      .map(([target, kind]) => ({ path: target, kind }))
      .sort((a, b) => byDepth(a.path, b.path)),
    pinned: [...pinned].sort(byDepth),
    truncated,
  };
}

function byDepth(a: string, b: string): number {
  const depth = a.split(path.sep).length - b.split(path.sep).length;
  return depth !== 0 ? depth : a < b ? -1 : a > b ? 1 : 0;
}
