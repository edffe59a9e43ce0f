import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  createPathPatternMatcher,
  DEFAULT_PROTECTED_PATHS,
  DEFAULT_SECRET_PATHS,
} from './create-path-pattern-matcher.js';
import { type PathPolicyError, pathError, quoteDisplayPath, subjectOf } from './path-policy-error.js';
import {
  absoluteDisplayPath,
  HOST_CASE_SENSITIVE,
  HOST_PLATFORM,
  isSplitInside,
  relativeSplitDisplay,
  type SplitPath,
  splitAbsolutePath,
} from './path-syntax.js';
import { detectCaseSensitivity } from './detect-case-sensitivity.js';
import { DEFAULT_MAX_PATH_LENGTH, resolveLexicalPath } from './resolve-lexical-path.js';
import { resolveRealPath } from './resolve-real-path.js';
import { type PinTargetOptions, type PinTargetResult, pinTarget } from './pin-target.js';

/**
 * How far file access reaches:
 * - `none`: nothing (every path is refused);
 * - `current_project`: the project root;
 * - `allowed_roots`: the configured roots (relative inputs resolve against the first one);
 * - `danger_full_access`: any path; relative inputs resolve against the project root.
 */
export type PathPolicyMode = 'none' | 'current_project' | 'allowed_roots' | 'danger_full_access';

/** What a caller means to do with a path: protected paths refuse `write`; secret paths refuse all three. */
export type PathAccess = 'read' | 'write' | 'list';

/** Options of {@link createPathPolicy}. */
export interface PathPolicyOptions {
  /** How far access reaches. */
  readonly mode: PathPolicyMode;
  /** The project root; required for `current_project` and `danger_full_access`. Must be an existing directory. */
  readonly root?: string;
  /** The roots of `allowed_roots` (the first is the base for relative inputs); extra roots in `danger_full_access`. Default `[]`. */
  readonly allowedRoots?: readonly string[];
  /** Write-protected patterns (see {@link createPathPatternMatcher}). Default {@link DEFAULT_PROTECTED_PATHS}; `[]` turns them off. */
  readonly protectedPaths?: readonly string[];
  /** Secret patterns, refused for every access. Default {@link DEFAULT_SECRET_PATHS}; `[]` turns them off. */
  readonly secretPaths?: readonly string[];
  /**
   * Compare names case-sensitively. Default: what the first root's volume does (probed once with a
   * case-swapped lookup, see `detectCaseSensitivity`), else false on Windows and macOS, true elsewhere.
   */
  readonly caseSensitive?: boolean;
  /** Longest accepted input, in UTF-8 bytes. Default 4096. */
  readonly maxPathLength?: number;
  /**
   * How {@link PathPolicy.pinTarget} holds directories: `auto` (by descriptor where the platform
   * allows, see `descriptorPinningAvailable`) or `path` (always the path-based fallback, as on macOS
   * and Windows). Default `auto`.
   */
  readonly pinning?: 'auto' | 'path';
}

/** Options of {@link PathPolicy.resolve}. */
export interface ResolvePathOptions {
  /** What the caller will do with the path. */
  readonly access: PathAccess;
  /** Treat `null` and an empty or blank input like a missing one (`.`), for tools whose path argument is optional. Default false. */
  readonly optional?: boolean;
  /**
   * The name of the argument the input came from, so a refusal can say which one was wrong
   * (`The path given as "destination" is outside the project root`). Messages never echo the input.
   */
  readonly argument?: string;
}

/** A resolved path, or why it was refused. */
export type ResolvePathResult =
  | {
      ok: true;
      /** The real absolute path to open: no symbolic links; for a missing target, where it would be created. */
      path: string;
      /** What to show the model: relative to the project root (first root) with `/`, `.` for the root itself. */
      displayPath: string;
      /** Whether the target existed when it was resolved. */
      exists: boolean;
    }
  | { ok: false; error: PathPolicyError };

/** A configured path policy. Create it with {@link createPathPolicy}; it is immutable and synchronous. */
export interface PathPolicy {
  /** The configured mode. */
  readonly mode: PathPolicyMode;
  /** The real (realpath-ed) absolute roots, the base first; `[]` for `none`. */
  readonly roots: readonly string[];
  /** The write-protected patterns in effect (for re-binding them read-only in a shell sandbox). */
  readonly protectedPatterns: readonly string[];
  /** The secret patterns in effect (`!` entries are exceptions). */
  readonly secretPatterns: readonly string[];
  /** Whether names compare case-sensitively. */
  readonly caseSensitive: boolean;
  /**
   * Resolves a path argument to a real path and decides whether `access` is allowed (requirements
   * PP-IN, PP-MODE, PP-REAL, PP-PROT, PP-DISP, PP-MSG). Never throws.
   *
   * Error codes: `PATH_INVALID` (not a string, NUL byte, empty, too long, a symbolic-link loop, an
   * unusable Windows form, a missing `~` path), `PATH_OUTSIDE_ROOT` (outside every root, directly or
   * through a symbolic link; mode `none`; no roots), `PATH_PROTECTED` (protected for write, secret
   * for any access), `FS_ACCESS_DENIED` (a directory on the way cannot be searched).
   */
  resolve(input: string | undefined, options: ResolvePathOptions): ResolvePathResult;
  /** The display path of an already resolved real path (pure string work; no disk access). */
  displayPathOf(realPath: string): string;
  /** Whether a real absolute path is one of the roots or below one (pure; by whole names). */
  contains(realPath: string): boolean;
  /**
   * Whether `access` to a real absolute path is refused by a protected or secret pattern (pure).
   * When walking a tree, check an entry's own path and, for a symbolic link, its real path too.
   */
  isProtected(realPath: string, access: PathAccess): boolean;
  /** The whole decision of {@link PathPolicy.resolve} for an already resolved real path (pure): mode, containment, protection. */
  allows(realPath: string, access: PathAccess): boolean;
  /**
   * The writer's re-check, to call immediately before creating, opening or renaming onto a path that
   * {@link PathPolicy.resolve} returned (requirement PP-WRITE).
   *
   * Guarantees at the moment it returns `ok`: the path is absolute and normalised; it is allowed for
   * `write` (mode, containment, protection); its deepest existing directory realpath-s to itself, so
   * no directory on the way is (any longer) a symbolic link; the first missing name below that
   * directory, if any, does not exist even as a link; the final name is not a symbolic link (it is
   * missing or a file or directory). It cannot hold the file system still: the writer must still open
   * new files with `O_CREAT | O_EXCL` (and `O_NOFOLLOW` where it exists) and replace with `rename`,
   * which never follows the final name. A swap of a directory in the microseconds between this check
   * and the system call remains possible; Node has no `openat`/`renameat` to close it.
   *
   * Error codes: those of `resolve`, and `PATH_INVALID` with reason `changed_since_check` when the
   * tree changed (the writer should report it and write nothing) or `not_canonical` for a path that
   * did not come from `resolve`.
   */
  verifyWriteTarget(realPath: string): ResolvePathResult;
  /**
   * {@link PathPolicy.verifyWriteTarget} for any access: the same checks, immediately before a reader
   * opens or a lister opens a directory, to narrow the window in which a directory swapped for a link
   * could redirect it (requirement PP-WRITE-5). `verifyWriteTarget(p)` is `verifyTarget(p, 'write')`.
   */
  verifyTarget(realPath: string, access: PathAccess): ResolvePathResult;
  /**
   * Pins the directory of a real path that {@link PathPolicy.resolve} returned, so that a file
   * operation on it cannot be raced out of the roots (requirement PP-PIN). On Linux with /proc the
   * directory is opened from its root one name at a time with `O_DIRECTORY | O_NOFOLLOW` (creating
   * missing ones with `createParents`, each inside the directory above it) and held by descriptor;
   * the returned `path` reaches the target through `/proc/self/fd/<descriptor>/<name>`, so a
   * directory swapped for a symbolic link before or during the walk fails it (`PATH_INVALID`, reason
   * `changed_since_check`) and one swapped afterwards no longer matters. Open the final name with
   * `O_NOFOLLOW` (or replace it with `rename`, which never follows it), call `verify()` immediately
   * before committing a write and after a read, and `close()` at the end. Elsewhere (macOS,
   * Windows, Linux without /proc) the pin is the real path and `verify()` the path-based
   * {@link PathPolicy.verifyTarget}: the window between check and use is narrowed, not closed.
   *
   * Error codes: the policy's refusals for `access` (the path is decided again), `PATH_INVALID`
   * (`not_canonical`, `changed_since_check`), `FS_NOT_FOUND` (`missing_parent`,
   * `parent_not_a_directory`; without `createParents`), `FS_ACCESS_DENIED`.
   */
  pinTarget(realPath: string, options: PinTargetOptions): PinTargetResult;
}

/** A path split once, with the roots that hold it. */
interface Located {
  readonly split: SplitPath;
  readonly within: readonly SplitPath[];
}

/** The longest absolute path the host's system calls accept, in bytes (PATH_MAX less the NUL). */
const HOST_PATH_MAX = process.platform === 'linux' ? 4095 : process.platform === 'win32' ? 32_767 : 1023;

// `~`, `~/x`, `~user/x`: forms a shell would expand. A bare `~name` is an ordinary file name.
const TILDE_FORM = /^~(?:$|[\\/]|[A-Za-z0-9._-]+[\\/])/;

function realRoot(root: string, label: string): string {
  if (typeof root !== 'string' || root.trim() === '' || root.includes('\u0000')) {
    throw new TypeError(`path policy: ${label} must be a non-empty path string`);
  }
  let real: string;
  try {
    real = realpathSync.native(path.resolve(root));
  } catch (error) {
    throw new Error(`path policy: ${label} ${JSON.stringify(root)} cannot be resolved`, { cause: error });
  }
  if (!statSync(real).isDirectory()) {
    throw new Error(`path policy: ${label} ${JSON.stringify(root)} is not a directory`);
  }
  return real;
}

function configuredRoots(options: PathPolicyOptions): string[] {
  const extra = options.allowedRoots ?? [];
  if (!Array.isArray(extra)) throw new TypeError('path policy: allowedRoots must be an array of paths');
  const needsRoot = options.mode === 'current_project' || options.mode === 'danger_full_access';
  if (needsRoot && options.root === undefined) {
    throw new TypeError(`path policy: mode ${options.mode} needs a root`);
  }
  let roots: string[];
  switch (options.mode) {
    case 'none':
      return [];
    case 'current_project':
      roots = [realRoot(options.root!, 'root')];
      break;
    case 'danger_full_access':
      roots = [realRoot(options.root!, 'root'), ...extra.map((root) => realRoot(root, 'allowed root'))];
      break;
    case 'allowed_roots':
      roots = extra.map((root) => realRoot(root, 'allowed root'));
      break;
    default:
      throw new TypeError(`path policy: unknown mode ${JSON.stringify(options.mode)}`);
  }
  return [...new Set(roots)];
}

/** How many allowed decisions a policy remembers (then it starts again). */
const DECISION_CACHE_SIZE = 1024;

/**
 * Creates a path policy: path resolution and confinement on real paths.
 *
 * Roots are realpath-ed once, here. Defaults: protected {@link DEFAULT_PROTECTED_PATHS}, secrets
 * {@link DEFAULT_SECRET_PATHS}, case sensitivity probed on the first root's volume
 * ({@link detectCaseSensitivity}), a {@link DEFAULT_MAX_PATH_LENGTH}-byte input limit.
 * Throws (configuration errors, never for a path argument): a `TypeError` for a missing root, an
 * unknown mode or an invalid pattern; an `Error` when a root does not exist or is not a directory.
 */
export function createPathPolicy(options: PathPolicyOptions): PathPolicy {
  const mode = options.mode;
  const roots = Object.freeze(configuredRoots(options));
  const caseSensitive =
    options.caseSensitive ?? (roots[0] === undefined ? HOST_CASE_SENSITIVE : detectCaseSensitivity(roots[0]));
  const platform = HOST_PLATFORM;
  const protectedMatcher = createPathPatternMatcher(options.protectedPaths ?? DEFAULT_PROTECTED_PATHS, {
    caseSensitive,
  });
  const secretMatcher = createPathPatternMatcher(options.secretPaths ?? DEFAULT_SECRET_PATHS, {
    caseSensitive,
  });
  const maxPathLength = options.maxPathLength ?? DEFAULT_MAX_PATH_LENGTH;
  const splitRoots = roots.map((root) => splitAbsolutePath(root, platform));
  const base = splitRoots[0];
  const scope = mode === 'allowed_roots' ? 'the allowed roots' : 'the project root';
  const remedy =
    mode === 'allowed_roots'
      ? 'Use a path inside one of the allowed roots.'
      : 'Use a path relative to the project root.';

  /** Splits a path and finds the roots holding it, once per path and decision. */
  function locate(absolutePath: string): Located {
    const split = splitAbsolutePath(absolutePath, platform);
    return { split, within: splitRoots.filter((root) => isSplitInside(root, split, caseSensitive)) };
  }

  function displayOf(target: Located): string {
    if (base === undefined) return absoluteDisplayPath(target.split);
    if (mode === 'danger_full_access' && target.within.length === 0) return absoluteDisplayPath(target.split);
    // Relative to the base root, `../` for other roots: unambiguous, and it resolves back to the same path.
    return relativeSplitDisplay(base, target.split, caseSensitive) ?? absoluteDisplayPath(target.split);
  }

  /** What patterns are matched against: the names below each root holding the path, else all its names. */
  function subjectsOf(target: Located): Array<[readonly string[], boolean]> {
    const subjects: Array<[readonly string[], boolean]> = [];
    for (const root of target.within)
      subjects.push([target.split.segments.slice(root.segments.length), true]);
    if (subjects.length === 0) subjects.push([target.split.segments, false]);
    return subjects;
  }

  function protectionOf(
    targets: readonly Located[],
    access: PathAccess,
  ): { kind: 'secret' | 'protected'; pattern: string } | undefined {
    for (const target of targets) {
      for (const [subject, relative] of subjectsOf(target)) {
        // A matched directory covers everything beneath it (PP-PROT-6), as the shell sandbox
        // hides or re-binds it as a whole.
        const secret = secretMatcher.matchCovering(subject, relative);
        if (secret !== undefined) return { kind: 'secret', pattern: secret };
        if (access === 'write') {
          const guarded = protectedMatcher.matchCovering(subject, relative);
          if (guarded !== undefined) return { kind: 'protected', pattern: guarded };
        }
      }
    }
    return undefined;
  }

  function refuseNoAccess(subject: string): { ok: false; error: PathPolicyError } {
    if (mode === 'none') {
      return pathError(
        'PATH_OUTSIDE_ROOT',
        'no_access',
        `${subject} was refused: this tool has no file system access (path access "none").`,
      );
    }
    return pathError(
      'PATH_OUTSIDE_ROOT',
      'no_roots',
      `${subject} was refused: no allowed roots are configured, so no path is accessible.`,
    );
  }

  /**
   * The decision on a real path; `lexical` is the path as named before links were resolved.
   * `subject` names the path in messages; an existing path inside the roots is shown by its bounded
   * display path where that helps (a protected file), never an outside or a secret one (PP-MSG-1).
   */
  // The decision on a path is a pure function of the strings and this policy's fixed roots and
  // patterns (no file system access), so the display paths of allowed paths are remembered: a path
  // the session keeps using is located and matched once, not on every call (issue 25). Bounded; a
  // refused path is never remembered, so every refusal is decided (and worded) afresh.
  const allowedDisplay = new Map<string, string>();

  function decide(
    realPath: string,
    lexicalPath: string | undefined,
    access: PathAccess,
    subject: string,
    exists: boolean,
  ): ResolvePathResult {
    const key =
      lexicalPath === undefined || lexicalPath === realPath
        ? `${access}\u0000${realPath}`
        : `${access}\u0000${realPath}\u0000${lexicalPath}`;
    const known = allowedDisplay.get(key);
    if (known !== undefined) return { ok: true, path: realPath, displayPath: known, exists };
    const decision = decideAfresh(realPath, lexicalPath, access, subject, exists);
    if (decision.ok) {
      if (allowedDisplay.size >= DECISION_CACHE_SIZE) allowedDisplay.clear();
      allowedDisplay.set(key, decision.displayPath);
    }
    return decision;
  }

  function decideAfresh(
    realPath: string,
    lexicalPath: string | undefined,
    access: PathAccess,
    subject: string,
    exists: boolean,
  ): ResolvePathResult {
    const real = locate(realPath);
    // Usually the same string (no link on the way): then one location serves both.
    const lexical = lexicalPath === undefined || lexicalPath === realPath ? undefined : locate(lexicalPath);
    if (mode !== 'danger_full_access' && real.within.length === 0) {
      if (lexical !== undefined && lexical.within.length > 0) {
        return pathError(
          'PATH_OUTSIDE_ROOT',
          'symlink_outside_root',
          `${subject} resolves through a symbolic link to a location outside ${scope}, which file tools may not use. ${remedy}`,
        );
      }
      return pathError(
        'PATH_OUTSIDE_ROOT',
        'outside_root',
        `${subject} is outside ${scope}; file tools may only use paths inside it. ${remedy}`,
      );
    }
    // The name as given counts too: a link named `.env` is a secret whatever it points at.
    const protection = protectionOf(lexical === undefined ? [real] : [real, lexical], access);
    if (protection?.kind === 'secret') {
      return pathError(
        'PATH_PROTECTED',
        'secret',
        `${subject} is a secret file (it matches the secret pattern ${JSON.stringify(protection.pattern)}); secret files, and everything in a secret directory, cannot be read, listed or written. Choose another file.`,
      );
    }
    if (protection?.kind === 'protected') {
      return pathError(
        'PATH_PROTECTED',
        'protected',
        `${exists ? quoteDisplayPath(displayOf(real)) : subject} is protected (it matches ${JSON.stringify(protection.pattern)}); it can be read but not written. Choose another target.`,
      );
    }
    return { ok: true, path: realPath, displayPath: displayOf(real), exists };
  }

  function resolve(input: string | undefined, resolveOptions: ResolvePathOptions): ResolvePathResult {
    const access = resolveOptions.access;
    let given: unknown = input;
    // Providers' strict modes send `null` for an omitted optional argument.
    const blank = given === null || (typeof given === 'string' && given.trim() === '');
    if (given === undefined || (resolveOptions.optional === true && blank)) given = '.';
    const subject = subjectOf(resolveOptions.argument);
    if (base === undefined) return refuseNoAccess(subject);
    const lexical = resolveLexicalPath(given, {
      base: roots[0]!,
      platform,
      maxPathLength,
      ...(resolveOptions.argument === undefined ? {} : { argument: resolveOptions.argument }),
    });
    if (!lexical.ok) return lexical;
    const real = resolveRealPath(lexical.path);
    if (!real.ok) {
      switch (real.reason) {
        case 'symlink_loop':
          return pathError(
            'PATH_INVALID',
            'symlink_loop',
            `${subject} cannot be resolved: it runs into a loop of symbolic links (ELOOP). Use another path.`,
          );
        case 'too_long':
          return pathError(
            'PATH_INVALID',
            'too_long',
            `${subject} is too long for the file system once joined to its root (ENAMETOOLONG). Use a shorter path.`,
          );
        case 'access_denied':
          return pathError(
            'FS_ACCESS_DENIED',
            'access_denied',
            `${subject} cannot be resolved: the operating system denied access to a directory on the way. Choose a path this user can access.`,
          );
        default:
          return pathError(
            'PATH_INVALID',
            'unresolvable',
            `${subject} cannot be resolved (${real.errno}). Use another path.`,
          );
      }
    }
    const bytes = Buffer.byteLength(real.path, 'utf8');
    if (bytes > HOST_PATH_MAX) {
      // realpath walks missing names without checking PATH_MAX; the writer's mkdir/open would fail.
      return pathError(
        'PATH_INVALID',
        'too_long',
        `${subject} is ${bytes} bytes long once joined to its root; the file system limit is ${HOST_PATH_MAX} bytes. Use a shorter path.`,
      );
    }
    if (!real.exists && typeof given === 'string' && TILDE_FORM.test(given)) {
      return pathError(
        'PATH_INVALID',
        'tilde_not_expanded',
        `${subject} starts with "~" and does not exist: "~" is not expanded to a home directory here. Pass a path relative to the project root.`,
      );
    }
    return decide(real.path, lexical.path, access, subject, real.exists);
  }

  function isProtected(realPath: string, access: PathAccess): boolean {
    return protectionOf([locate(realPath)], access) !== undefined;
  }

  function allows(realPath: string, access: PathAccess): boolean {
    if (base === undefined) return false;
    const target = locate(realPath);
    if (mode !== 'danger_full_access' && target.within.length === 0) return false;
    return protectionOf([target], access) === undefined;
  }

  function verifyTarget(realPath: string, access: PathAccess): ResolvePathResult {
    const nothing = access === 'write' ? 'nothing was written' : 'nothing was opened';
    if (typeof realPath !== 'string' || !path.isAbsolute(realPath) || path.resolve(realPath) !== realPath) {
      return pathError(
        'PATH_INVALID',
        'not_canonical',
        `The target is not an absolute, normalised path returned by the path policy; ${nothing}.`,
      );
    }
    const target = locate(realPath);
    if (base === undefined) return refuseNoAccess('The target');
    const decision = decide(realPath, undefined, access, 'The target', false);
    if (!decision.ok) return decision;
    const changed = (what: string) =>
      pathError(
        'PATH_INVALID',
        'changed_since_check',
        `The target changed after it was checked (${what}); ${nothing}. Retry the call; if it keeps failing, something is rewriting that directory tree.`,
      );
    // Walk up to the deepest existing directory; it must be its own real path.
    let directory = path.dirname(realPath);
    let firstMissing: string | undefined;
    for (;;) {
      let real: string | undefined;
      try {
        real = realpathSync.native(directory);
      } catch (error) {
        const errno = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
        if (errno !== 'ENOENT' && errno !== 'ENOTDIR')
          return changed(`a directory on the way cannot be resolved: ${errno}`);
      }
      if (real !== undefined) {
        const same = caseSensitive ? real === directory : real.toLowerCase() === directory.toLowerCase();
        if (!same) return changed('a directory on the way is now a symbolic link');
        break;
      }
      const parent = path.dirname(directory);
      if (parent === directory) return changed('no directory on the way exists');
      firstMissing = directory;
      directory = parent;
    }
    if (firstMissing !== undefined) {
      let appeared: ReturnType<typeof lstatSync>;
      try {
        appeared = lstatSync(firstMissing, { throwIfNoEntry: false });
      } catch (error) {
        // ENOTDIR: the deepest existing "directory" is a file; the write will fail there, not escape.
        const errno = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
        if (errno !== 'ENOTDIR') return changed(`a directory on the way cannot be inspected: ${errno}`);
      }
      if (appeared?.isSymbolicLink()) return changed('a missing directory on the way is now a symbolic link');
      if (appeared !== undefined)
        return changed('a missing directory on the way appeared while it was checked');
    }
    let exists = false;
    try {
      const stats = lstatSync(realPath);
      if (stats.isSymbolicLink()) return changed('the final name is now a symbolic link');
      exists = true;
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
      if (errno !== 'ENOENT' && errno !== 'ENOTDIR')
        return changed(`the target cannot be inspected: ${errno}`);
    }
    return { ok: true, path: realPath, displayPath: displayOf(target), exists };
  }

  /** The deepest root holding a real path (by whole names), for the descriptor walk. */
  function rootOf(realPath: string): string | undefined {
    const target = locate(realPath);
    let deepest: SplitPath | undefined;
    for (const root of target.within)
      if (deepest === undefined || root.segments.length > deepest.segments.length) deepest = root;
    if (deepest === undefined) return undefined;
    return roots[splitRoots.indexOf(deepest)];
  }

  if (options.pinning !== undefined && options.pinning !== 'auto' && options.pinning !== 'path')
    throw new TypeError(`path policy: unknown pinning ${JSON.stringify(options.pinning)}`);
  const pinner = {
    caseSensitive,
    descriptors: options.pinning !== 'path',
    rootOf,
    displayPathOf: (realPath: string) => displayOf(locate(realPath)),
    decide: (realPath: string, access: PathAccess) => {
      if (base === undefined) return refuseNoAccess('value');
      const decision = decide(
        realPath,
        undefined,
        access,
        JSON.stringify(displayOf(locate(realPath))),
        false,
      );
      return decision.ok ? { ok: true as const } : decision;
    },
    verifyTarget: (realPath: string, access: PathAccess) => {
      const verified = verifyTarget(realPath, access);
      return verified.ok ? { ok: true as const } : verified;
    },
  };

  return Object.freeze({
    mode,
    roots,
    protectedPatterns: protectedMatcher.patterns,
    secretPatterns: secretMatcher.patterns,
    caseSensitive,
    resolve,
    displayPathOf: (realPath: string) => displayOf(locate(realPath)),
    contains: (realPath: string) => locate(realPath).within.length > 0,
    isProtected,
    allows,
    verifyWriteTarget: (realPath: string) => verifyTarget(realPath, 'write'),
    verifyTarget,
    pinTarget: (realPath: string, options: PinTargetOptions) => pinTarget(pinner, realPath, options),
  });
}
