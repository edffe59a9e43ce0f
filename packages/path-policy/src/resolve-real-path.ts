import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * Symbolic links followed by hand (dangling links, see below) before giving up with a loop. The
 * same ceiling as Linux's MAXSYMLINKS, so a chain the kernel would follow is followed here too.
 */
export const MAX_SYMLINK_HOPS = 40;

/** The real location of a path, or why it has none. */
export type ResolveRealPathResult =
  | {
      ok: true;
      /** The real absolute path: every existing component resolved, no symbolic links left. */
      path: string;
      /** Whether the path itself exists (false: `path` is where it would be created). */
      exists: boolean;
    }
  | { ok: false; reason: 'symlink_loop' | 'too_long' | 'access_denied' | 'unresolvable'; errno: string };

type Failure = Extract<ResolveRealPathResult, { ok: false }>;

function errnoOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'UNKNOWN';
}

function isMissing(errno: string): boolean {
  return errno === 'ENOENT' || errno === 'ENOTDIR';
}

function failure(errno: string): Failure {
  if (errno === 'ELOOP') return { ok: false, reason: 'symlink_loop', errno };
  if (errno === 'ENAMETOOLONG') return { ok: false, reason: 'too_long', errno };
  if (errno === 'EACCES' || errno === 'EPERM') return { ok: false, reason: 'access_denied', errno };
  return { ok: false, reason: 'unresolvable', errno };
}

/**
 * The deepest existing ancestor of `absolutePath`, realpath-ed, and the names below it that do not
 * resolve. The file system root always exists, so the walk ends.
 */
function deepestExistingAncestor(absolutePath: string): { ancestor: string; rest: string[] } | Failure {
  const rest: string[] = [path.basename(absolutePath)];
  let current = path.dirname(absolutePath);
  for (;;) {
    try {
      return { ancestor: realpathSync.native(current), rest };
    } catch (error) {
      const errno = errnoOf(error);
      if (!isMissing(errno)) return failure(errno);
    }
    const parent = path.dirname(current);
    if (parent === current) return { ok: false, reason: 'unresolvable', errno: 'ENOENT' };
    rest.unshift(path.basename(current));
    current = parent;
  }
}

/**
 * Resolves an absolute, normalised path to its real location on the host file system.
 *
 * Guarantees:
 * - an existing path is realpath-ed (`fs.realpathSync.native`: every symbolic link resolved, on
 *   Windows also 8.3 short names and `subst` drives);
 * - a missing path is the realpath of its deepest existing ancestor plus the remaining names;
 * - a **dangling** symbolic link met on the way (it exists as a link but its target does not) is
 *   followed by hand, relative to its real directory, up to {@link MAX_SYMLINK_HOPS} links, so the
 *   result is where a write through the link would land, never the link itself;
 * - loops give `symlink_loop`, `ENAMETOOLONG` gives `too_long`, `EACCES`/`EPERM` give
 *   `access_denied`; any other error gives `unresolvable`. Nothing is thrown.
 *
 * `..` inside a dangling link's target is applied lexically to the link's real directory (like
 * `path.resolve`), so the result is always a path this function has itself resolved; callers must
 * open the returned path, not the input.
 */
export function resolveRealPath(absolutePath: string): ResolveRealPathResult {
  // A missing target costs one or two thrown fs errors, and capturing their stack traces is most of
  // the price (about 4x the system calls). Nothing here reads a stack, and the code is synchronous,
  // so no other code runs while the limit is lowered.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return resolveRealPathUncaptured(absolutePath);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function resolveRealPathUncaptured(absolutePath: string): ResolveRealPathResult {
  let current = absolutePath;
  for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops += 1) {
    try {
      return { ok: true, path: realpathSync.native(current), exists: true };
    } catch (error) {
      const errno = errnoOf(error);
      if (!isMissing(errno)) return failure(errno);
    }
    const found = deepestExistingAncestor(current);
    if ('ok' in found) return found;
    const { ancestor, rest } = found;
    const first = path.join(ancestor, rest[0]!);
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(first, { throwIfNoEntry: false });
    } catch (error) {
      const errno = errnoOf(error);
      if (isMissing(errno)) return { ok: true, path: path.join(ancestor, ...rest), exists: false };
      return failure(errno);
    }
    if (stats === undefined) return { ok: true, path: path.join(ancestor, ...rest), exists: false };
    if (stats.isSymbolicLink()) {
      // A link whose target does not resolve: continue from its target, relative to its real directory.
      let target: string;
      try {
        target = readlinkSync(first);
      } catch (error) {
        const errno = errnoOf(error);
        // Replaced between lstat and readlink: start over from the same path.
        if (errno === 'EINVAL' || isMissing(errno)) continue;
        return failure(errno);
      }
      current = path.resolve(ancestor, target, ...rest.slice(1));
    }
    // Not a link but realpath failed: the tree changed under us; the loop retries (bounded).
  }
  return { ok: false, reason: 'symlink_loop', errno: 'ELOOP' };
}
