import { lstatSync } from 'node:fs';
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
export const DIRECTORY_NAMES: ReadonlySet<string> = new Set([
  '.git',
  '.toolhost',
  '.hg',
  '.svn',
  'node_modules',
  '.next',
]);

/**
 * Directories never descended into while looking for pattern matches (size, not safety: see README).
 * `.git` is protected as a whole in `workspace_write`; its object store holds no secret files.
 */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git']);

/** Compiled patterns of one list (protected or secret). */
export interface CompiledList {
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

/** Compiles a pattern list (see {@link planProtectedPaths} for the syntax). Throws a `TypeError` for an empty pattern. */
export function compileList(
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

/** Whether an entry (root-relative path with `/`, and its name) matches a list; the last match wins. */
export function matches(list: CompiledList, relative: string, name: string): boolean {
  for (let index = list.matchers.length - 1; index >= 0; index -= 1) {
    const entry = list.matchers[index]!;
    if (entry.regex.test(entry.basename ? name : relative)) return !entry.negated;
  }
  return false;
}

/** Whether `child` is `parent` or inside it (lexically). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The type of what is at a path, without following a final link; undefined when nothing is. */
export function kindOf(target: string): 'directory' | 'file' | 'other' | undefined {
  try {
    const stats = lstatSync(target);
    if (stats.isDirectory()) return 'directory';
    if (stats.isFile()) return 'file';
    return 'other';
  } catch {
    return undefined;
  }
}

/** Sorts paths shallowest first, then by name. */
export function byDepth(a: string, b: string): number {
  const depth = a.split(path.sep).length - b.split(path.sep).length;
  return depth !== 0 ? depth : a < b ? -1 : a > b ? 1 : 0;
}
