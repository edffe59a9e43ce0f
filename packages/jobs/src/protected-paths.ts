import { ProtectedPathIndex } from './protected-path-index.js';

export { ALWAYS_PROTECTED_NAMES, isAbsoluteLiteral } from './protected-patterns.js';

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

/**
 * Works out which paths of the writable roots must be re-bound read-only, which missing ones need a
 * placeholder, which secrets must be covered, and which directories must be pinned: a one-off,
 * synchronous {@link ProtectedPathIndex} (the job manager keeps one per manager and refreshes it).
 *
 * Patterns follow the path-policy syntax (`@toolhost/path-policy`): relative globs match at any
 * depth, a leading `/` anchors at the root, `dir/` and `dir/**` cover `dir` itself, `!` makes an
 * exception (last match wins), dotfiles match `*`. An absolute path inside a root is taken
 * literally (see {@link isAbsoluteLiteral}). Existing matches are found by walking each root
 * (symbolic links are not followed; `node_modules` is not entered, nor `.git` below a root; the walk
 * stops after `maxEntries` entries and reports `truncated`). A matched directory is protected as a
 * whole and not entered.
 *
 * Placeholders are planned for `.git` and `.toolhost` under every root, for anchored literal
 * patterns (`/config/secrets.json`) and for absolute paths inside a root; a pattern that names no
 * single path (`**\/.env`) cannot be reserved before it exists (see README, "Limits").
 */
export function planProtectedPaths(options: PlanProtectedPathsOptions): ProtectedPathPlan {
  const index = new ProtectedPathIndex({
    writableRoots: options.roots,
    readOnlyRoots: [],
    protectedPaths: options.protectedPaths,
    secretPaths: options.secretPaths,
    ...(options.caseSensitive === undefined ? {} : { caseSensitive: options.caseSensitive }),
    ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
    ...(options.includeAlwaysProtected === undefined
      ? {}
      : { includeAlwaysProtected: options.includeAlwaysProtected }),
  });
  index.buildSync();
  return index.plan();
}
