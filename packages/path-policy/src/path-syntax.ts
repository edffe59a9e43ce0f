import path from 'node:path';

/** Which path grammar to apply: POSIX (`/`) or Windows (drive letters, UNC, `\`). */
export type PathPlatform = 'posix' | 'win32';

/** The grammar of the machine this process runs on. */
export const HOST_PLATFORM: PathPlatform = process.platform === 'win32' ? 'win32' : 'posix';

/** Options shared by the pure path functions. */
export interface PathSyntaxOptions {
  /** Path grammar. Default: the host's. */
  readonly platform?: PathPlatform;
  /** Compare names case-sensitively. Default: false on Windows and macOS, true elsewhere. */
  readonly caseSensitive?: boolean;
}

/** The default of `caseSensitive`: Windows and macOS file systems are case-insensitive by default. */
export const HOST_CASE_SENSITIVE = !(process.platform === 'win32' || process.platform === 'darwin');

/**
 * An absolute path split into its root (`/`, `C:`, `//server/share`) and its names.
 * The root is written with `/` and an upper-case drive letter so equal roots compare equal.
 */
export interface SplitPath {
  readonly prefix: string;
  readonly segments: readonly string[];
}

/**
 * Splits an absolute, normalised path into its root and names (pure; no file system access).
 * On win32 the root of `C:\a` is `C:` and the root of `\\server\share\a` is `//server/share`.
 */
export function splitAbsolutePath(absolutePath: string, platform: PathPlatform = HOST_PLATFORM): SplitPath {
  if (platform === 'posix') {
    return { prefix: '/', segments: absolutePath.split('/').filter((segment) => segment !== '') };
  }
  const root = path.win32.parse(absolutePath).root;
  let prefix = root.replace(/\\/g, '/').replace(/\/+$/, '');
  if (/^[a-z]:$/.test(prefix)) prefix = prefix.toUpperCase();
  const segments = absolutePath
    .slice(root.length)
    .split(/[\\/]/)
    .filter((segment) => segment !== '');
  return { prefix, segments };
}

/**
 * Folds a name for comparison. Case-insensitive comparison lower-cases; Windows and APFS fold case
 * with their own tables, which agree with `toLowerCase` for everything but a few exotic letters.
 */
function fold(name: string, caseSensitive: boolean): string {
  return caseSensitive ? name : name.toLowerCase();
}

function samePrefix(left: SplitPath, right: SplitPath): boolean {
  // Drive letters and UNC server/share names are case-insensitive on Windows whatever the volume says.
  return left.prefix === right.prefix || left.prefix.toLowerCase() === right.prefix.toLowerCase();
}

/** The number of leading names two split paths share, or -1 when their roots differ. */
function commonSegmentCount(left: SplitPath, right: SplitPath, caseSensitive: boolean): number {
  if (!samePrefix(left, right)) return -1;
  const limit = Math.min(left.segments.length, right.segments.length);
  let index = 0;
  while (
    index < limit &&
    fold(left.segments[index]!, caseSensitive) === fold(right.segments[index]!, caseSensitive)
  ) {
    index += 1;
  }
  return index;
}

/**
 * Whether `target` is `root` or lies below it, compared by whole names (pure).
 *
 * Guarantees: `/proj/..foo/x` is inside `/proj` (a name that starts with two dots is a name);
 * `/proj-evil/x` is outside `/proj`; on win32 drive letters and UNC roots compare
 * case-insensitively, and names do too unless `caseSensitive` is true. Both paths must be absolute
 * and normalised (no `.` or `..` names); this function does not touch the disk, so pass real paths
 * to decide confinement.
 */
export function isPathInside(root: string, target: string, options: PathSyntaxOptions = {}): boolean {
  const platform = options.platform ?? HOST_PLATFORM;
  const caseSensitive = options.caseSensitive ?? HOST_CASE_SENSITIVE;
  return isSplitInside(splitAbsolutePath(root, platform), splitAbsolutePath(target, platform), caseSensitive);
}

/** {@link isPathInside} on already split paths (the policy splits its roots once). */
export function isSplitInside(root: SplitPath, target: SplitPath, caseSensitive: boolean): boolean {
  if (target.segments.length < root.segments.length) return false;
  return commonSegmentCount(root, target, caseSensitive) === root.segments.length;
}

/**
 * The display form of `target` seen from `base` (pure): the names below `base` joined by `/`, `.` for
 * `base` itself, `../`-prefixed when `target` is elsewhere on the same root, and `undefined` when no
 * relative form exists (another drive or UNC share).
 */
export function relativeDisplayPath(
  base: string,
  target: string,
  options: PathSyntaxOptions = {},
): string | undefined {
  const platform = options.platform ?? HOST_PLATFORM;
  const caseSensitive = options.caseSensitive ?? HOST_CASE_SENSITIVE;
  return relativeSplitDisplay(
    splitAbsolutePath(base, platform),
    splitAbsolutePath(target, platform),
    caseSensitive,
  );
}

/** {@link relativeDisplayPath} on already split paths. */
export function relativeSplitDisplay(
  base: SplitPath,
  target: SplitPath,
  caseSensitive: boolean,
): string | undefined {
  const common = commonSegmentCount(base, target, caseSensitive);
  if (common < 0) return undefined;
  const parts: string[] = [];
  for (let index = common; index < base.segments.length; index += 1) parts.push('..');
  for (let index = common; index < target.segments.length; index += 1) parts.push(target.segments[index]!);
  return parts.length === 0 ? '.' : parts.join('/');
}

/** An absolute path written with `/` separators (`C:/x`, `//server/share/x`, `/x`) for display. */
export function absoluteDisplayPath(target: SplitPath): string {
  if (target.prefix === '/') return `/${target.segments.join('/')}`;
  return target.segments.length === 0 ? `${target.prefix}/` : `${target.prefix}/${target.segments.join('/')}`;
}
