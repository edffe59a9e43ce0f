import { closeSync, constants, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { type PathPolicyError, pathError } from './path-policy-error.js';

/** Options of `PathPolicy.pinTarget`. */
export interface PinTargetOptions {
  /** What the caller will do with the target (the same access it was resolved for). */
  readonly access: 'read' | 'write' | 'list';
  /**
   * Create missing directories on the way to the target, each one inside the pinned directory above
   * it and never through a symbolic link (`write` only). Default false: a missing directory is
   * `FS_NOT_FOUND`.
   */
  readonly createParents?: boolean;
}

/**
 * How a pinned target is reached:
 * - `descriptor`: the target's directory is held open by a descriptor, reached from the root one
 *   name at a time with `O_DIRECTORY | O_NOFOLLOW`, and `path` names the target through
 *   `/proc/self/fd/<descriptor>/<name>` (Linux with /proc). No later change of the tree can redirect
 *   a system call on `path` to another directory: a directory on the way swapped for a symbolic link
 *   fails the walk, and one swapped after the walk is not consulted any more.
 * - `path`: no descriptor-relative names on this platform (macOS, Windows, Linux without /proc);
 *   `path` is the real path, and {@link PinnedTarget.verify} is the path-based re-check, which narrows
 *   the window between check and use to microseconds but cannot close it.
 */
export type PinMode = 'descriptor' | 'path';

/** A target whose directory is pinned for one file operation. Close it when the operation ends. */
export interface PinnedTarget {
  /** The pinning in effect (see {@link PinMode}). */
  readonly mode: PinMode;
  /** What every system call on the target should use: descriptor-relative, or the real path. */
  readonly path: string;
  /** The target's real path, as `resolve` returned it (for keys, locks and messages). */
  readonly realPath: string;
  /** The target's display path. */
  readonly displayPath: string;
  /** The target's final name. */
  readonly name: string;
  /** The directory as a path for system calls (fsync, temp files): `/proc/self/fd/<n>` or the real directory. */
  readonly directoryPath: string;
  /** The directory's real path when it was pinned. */
  readonly directoryRealPath: string;
  /** The path of another name in the same pinned directory (temp files, renames within it). */
  sibling(name: string): string;
  /**
   * Re-checks the pin, synchronously, for use immediately before a commit (and after a read, before
   * its bytes are used). `descriptor`: the pinned directory is still at its real path (the kernel's
   * name of the descriptor, read from `/proc/self/fd`), so it was not moved out of or within the
   * roots since the walk. `path`: the policy's path-based `verifyTarget`. Errors: `PATH_INVALID` with
   * reason `changed_since_check`, and those of `verifyTarget`.
   */
  verify(): { ok: true } | { ok: false; error: PathPolicyError };
  /** Closes the pinned descriptor (idempotent); the pin must not be used afterwards. */
  close(): void;
}

/** A pinned target, or why the walk to it was refused. */
export type PinTargetResult = { ok: true; value: PinnedTarget } | { ok: false; error: PathPolicyError };

/** What the pinner needs from its policy (internal). */
export interface PinnerContext {
  readonly caseSensitive: boolean;
  /** Use descriptors where available (false: always the path-based fallback). */
  readonly descriptors: boolean;
  /** The deepest root holding `realPath`, or undefined when none does. */
  rootOf(realPath: string): string | undefined;
  displayPathOf(realPath: string): string;
  /** The policy's decision on a canonical real path (pure): refuses what `resolve` would refuse. */
  decide(
    realPath: string,
    access: PinTargetOptions['access'],
  ): { ok: true } | { ok: false; error: PathPolicyError };
  /** The path-based re-check (`verifyTarget`). */
  verifyTarget(
    realPath: string,
    access: PinTargetOptions['access'],
  ): { ok: true } | { ok: false; error: PathPolicyError };
}

const PROC_FD = '/proc/self/fd';
const DIRECTORY_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

let descriptorSupport: boolean | undefined;

/**
 * Whether descriptor-relative names work here: Linux with a procfs whose `/proc/self/fd/<n>` names
 * the open directory. Probed once per process.
 */
export function descriptorPinningAvailable(): boolean {
  if (descriptorSupport !== undefined) return descriptorSupport;
  descriptorSupport = false;
  if (process.platform !== 'linux') return false;
  let descriptor: number | undefined;
  try {
    descriptor = openSync('/', DIRECTORY_FLAGS);
    descriptorSupport = readlinkSync(`${PROC_FD}/${descriptor}`) === '/';
  } catch {
    descriptorSupport = false;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  return descriptorSupport;
}

function errnoOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'UNKNOWN';
}

function changed(what: string): { ok: false; error: PathPolicyError } {
  return pathError(
    'PATH_INVALID',
    'changed_since_check',
    `The path changed while it was being used (${what}); nothing was read or written there. Retry the call; if it keeps failing, something is rewriting that directory tree.`,
  );
}

/**
 * Pins the directory of a real path the policy resolved (requirement PP-PIN): see
 * `PathPolicy.pinTarget`. Synchronous: one `open` per directory name below the root, plus one
 * `mkdir` per directory it creates.
 */
export function pinTarget(
  context: PinnerContext,
  realPath: string,
  options: PinTargetOptions,
): PinTargetResult {
  const access = options.access;
  if (typeof realPath !== 'string' || !path.isAbsolute(realPath) || path.resolve(realPath) !== realPath) {
    return pathError(
      'PATH_INVALID',
      'not_canonical',
      'The target is not an absolute, normalised path returned by the path policy; nothing was opened.',
    );
  }
  const decision = context.decide(realPath, access);
  if (!decision.ok) return decision;
  const directory = path.dirname(realPath);
  const name = path.basename(realPath);
  const displayPath = context.displayPathOf(realPath);
  if (directory === realPath || name === '' || !context.descriptors || !descriptorPinningAvailable())
    return pinByPath(context, realPath, directory, name, displayPath, options);

  const held = descriptorFor(context, directory, access === 'write' && options.createParents === true);
  if (!held.ok) return held;
  const entry = held.entry;
  const directoryPath = `${PROC_FD}/${entry.descriptor}`;
  let open = true;
  const pin: PinnedTarget = {
    mode: 'descriptor',
    path: `${directoryPath}/${name}`,
    realPath,
    displayPath,
    name,
    directoryPath,
    directoryRealPath: directory,
    sibling: (other) => `${directoryPath}/${other}`,
    verify: () => {
      if (!open) throw new Error('pinTarget: verify() after close()');
      return confirmName(context, entry.descriptor, directory);
    },
    close: () => {
      if (!open) return;
      open = false;
      releaseEntry(entry);
    },
  };
  return { ok: true, value: pin };
}

/** A directory descriptor, shared by the pins that use it. */
interface DirectoryEntry {
  readonly descriptor: number;
  readonly directory: string;
  /** Pins holding it now. */
  users: number;
  /** Dropped from the cache: closed when its last pin closes. */
  evicted: boolean;
}

// Directories pinned recently, by real path, least recently used first. A cached descriptor is
// used again only after the same check a fresh walk ends with (its kernel name is the directory's
// real path, so the inode is at that path right now): that is what the walk establishes, for one
// readlink instead of an open per name. Bounded, and every descriptor is close-on-exec (libuv opens
// with O_CLOEXEC), so no child process ever inherits one.
const CACHE_LIMIT = 64;
const cache = new Map<string, DirectoryEntry>();

function releaseEntry(entry: DirectoryEntry): void {
  entry.users -= 1;
  if (entry.evicted && entry.users === 0) closeSync(entry.descriptor);
}

function evict(entry: DirectoryEntry): void {
  if (entry.evicted) return;
  entry.evicted = true;
  if (cache.get(entry.directory) === entry) cache.delete(entry.directory);
  if (entry.users === 0) closeSync(entry.descriptor);
}

/** A confirmed descriptor of `directory`: a cached one that still names it, else a fresh walk. */
function descriptorFor(
  context: PinnerContext,
  directory: string,
  create: boolean,
): { ok: true; entry: DirectoryEntry } | { ok: false; error: PathPolicyError } {
  const cached = cache.get(directory);
  if (cached !== undefined) {
    if (confirmName(context, cached.descriptor, directory).ok) {
      cache.delete(directory);
      cache.set(directory, cached);
      cached.users += 1;
      return { ok: true, entry: cached };
    }
    evict(cached);
  }
  const walked = walkTo(context, directory, create);
  if (!walked.ok) return walked;
  const entry: DirectoryEntry = { descriptor: walked.descriptor, directory, users: 1, evicted: false };
  cache.set(directory, entry);
  for (const [, oldest] of cache) {
    if (cache.size <= CACHE_LIMIT) break;
    evict(oldest);
  }
  return { ok: true, entry };
}

/**
 * Walks from the deepest root holding the directory (the file system root for a path outside every
 * root, in danger_full_access), one name at a time, never following a link, and confirms the result.
 */
function walkTo(
  context: PinnerContext,
  directory: string,
  create: boolean,
): { ok: true; descriptor: number } | { ok: false; error: PathPolicyError } {
  const base = context.rootOf(directory) ?? path.parse(directory).root;
  const names = path
    .relative(base, directory)
    .split(path.sep)
    .filter((part) => part !== '');
  let current: number;
  try {
    current = openSync(base, DIRECTORY_FLAGS);
  } catch (error) {
    const errno = errnoOf(error);
    if (errno === 'EACCES' || errno === 'EPERM') return accessDenied();
    return changed(`a root cannot be opened: ${errno}`);
  }
  try {
    for (const part of names) {
      const opened = openDirectoryIn(current, part, create);
      if (!opened.ok) return opened;
      closeSync(current);
      current = opened.descriptor;
    }
    const confirmed = confirmName(context, current, directory);
    if (!confirmed.ok) return confirmed;
    const descriptor = current;
    current = -1; // handed to the caller
    return { ok: true, descriptor };
  } finally {
    if (current >= 0) closeSync(current);
  }
}

/** The directory descriptor's kernel name is still `expected` (it was not moved or replaced). */
function confirmName(
  context: PinnerContext,
  descriptor: number,
  expected: string,
): { ok: true } | { ok: false; error: PathPolicyError } {
  let actual: string;
  try {
    actual = readlinkSync(`${PROC_FD}/${descriptor}`);
  } catch (error) {
    return changed(`the directory cannot be confirmed: ${errnoOf(error)}`);
  }
  const same = context.caseSensitive ? actual === expected : actual.toLowerCase() === expected.toLowerCase();
  return same ? { ok: true } : changed('its directory was moved or replaced');
}

function accessDenied(): { ok: false; error: PathPolicyError } {
  return pathError(
    'FS_ACCESS_DENIED',
    'access_denied',
    'The path cannot be used: the operating system denied access to a directory on the way. Choose a path this user can access.',
  );
}

/** Opens `name` inside the directory `parent` as a directory, never through a link; creates it when asked. */
function openDirectoryIn(
  parent: number,
  name: string,
  create: boolean,
): { ok: true; descriptor: number } | { ok: false; error: PathPolicyError } {
  const entry = `${PROC_FD}/${parent}/${name}`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      return { ok: true, descriptor: openSync(entry, DIRECTORY_FLAGS) };
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'ENOENT') {
        if (!create) {
          return pathError(
            'FS_NOT_FOUND',
            'missing_parent',
            'The path does not exist: a directory on the way is missing. Check the path with ls or glob.',
          );
        }
        try {
          mkdirSync(entry, 0o777);
        } catch (mkdirError) {
          const mkdirErrno = errnoOf(mkdirError);
          if (mkdirErrno === 'EACCES' || mkdirErrno === 'EPERM') return accessDenied();
          // EEXIST: something appeared there meanwhile; the next open decides what it is.
          if (mkdirErrno !== 'EEXIST') return changed(`a directory could not be created: ${mkdirErrno}`);
        }
        continue;
      }
      if (errno === 'ENOTDIR' || errno === 'ELOOP') {
        // A link, or a directory again by now (it was a link a moment ago): a change. Only a file
        // that is still a file is a path that does not exist.
        let file = false;
        try {
          const stats = lstatSync(entry);
          file = !stats.isSymbolicLink() && !stats.isDirectory();
        } catch {
          // Gone again: a change as well.
        }
        if (!file) return changed('a directory on the way is now a symbolic link');
        return notADirectory();
      }
      if (errno === 'EACCES' || errno === 'EPERM') return accessDenied();
      return changed(`a directory on the way cannot be opened: ${errno}`);
    }
  }
  return changed('a directory on the way keeps changing');
}

/** The fallback without descriptor-relative names: the real path, re-checked by path. */
function pinByPath(
  context: PinnerContext,
  realPath: string,
  directory: string,
  name: string,
  displayPath: string,
  options: PinTargetOptions,
): PinTargetResult {
  if (options.access === 'write' && options.createParents === true && directory !== realPath) {
    const created = createDirectoriesByPath(context, directory);
    if (!created.ok) return created;
  }
  const checked = context.verifyTarget(realPath, options.access);
  if (!checked.ok) return checked;
  return {
    ok: true,
    value: {
      mode: 'path',
      path: realPath,
      realPath,
      displayPath,
      name,
      directoryPath: directory,
      directoryRealPath: directory,
      sibling: (other) => path.join(directory, other),
      verify: () => context.verifyTarget(realPath, options.access),
      close: () => undefined,
    },
  };
}

/**
 * Creates the missing directories above a target one at a time (the fallback has no descriptors):
 * each parent must be its own real path just before its child is made, `mkdir` never follows a link
 * at the name it creates, and what was made (or found) must be a directory, not a link.
 */
function createDirectoriesByPath(
  context: PinnerContext,
  directory: string,
): { ok: true } | { ok: false; error: PathPolicyError } {
  const missing: string[] = [];
  for (let current = directory; ; ) {
    let exists = false;
    try {
      lstatSync(current);
      exists = true;
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'ENOTDIR') return notADirectory();
      if (errno !== 'ENOENT') return changed(`a directory on the way cannot be inspected: ${errno}`);
    }
    if (exists) break;
    missing.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const entry of missing) {
    const parent = path.dirname(entry);
    let real: string;
    try {
      real = realpathSync.native(parent);
    } catch (error) {
      return changed(`a directory on the way cannot be resolved: ${errnoOf(error)}`);
    }
    const same = context.caseSensitive ? real === parent : real.toLowerCase() === parent.toLowerCase();
    if (!same) return changed('a directory on the way is now a symbolic link');
    try {
      mkdirSync(entry, 0o777);
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'EACCES' || errno === 'EPERM') return accessDenied();
      if (errno !== 'EEXIST') return changed(`a directory could not be created: ${errno}`);
    }
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(entry);
    } catch (error) {
      return changed(`a directory on the way cannot be inspected: ${errnoOf(error)}`);
    }
    if (stats.isSymbolicLink()) return changed('a directory on the way is now a symbolic link');
    if (!stats.isDirectory()) return notADirectory();
  }
  return { ok: true };
}

function notADirectory(): { ok: false; error: PathPolicyError } {
  return pathError(
    'FS_NOT_FOUND',
    'parent_not_a_directory',
    'The path does not exist: a name on the way is a file, not a directory. Check the path with ls or glob.',
  );
}
