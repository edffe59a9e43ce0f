import { type BigIntStats, constants } from 'node:fs';
import { evidenceFailure } from './errors.js';

/** Flags for opening a file to read: never follow a symlink at the final component, never block on a FIFO. */
export const READ_OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * The failure for an open descriptor that is not a regular file, or `undefined` for a regular file.
 * Directories are `NOT_A_FILE` with the hint to use ls; FIFOs, sockets and devices are `NOT_A_FILE`.
 */
export function notRegularFileFailure(
  stats: BigIntStats,
  displayPath: string,
): ReturnType<typeof evidenceFailure> | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory())
    return evidenceFailure('NOT_A_FILE', `${displayPath} is a directory, not a file`, {
      recovery: 'list it with ls instead',
    });
  return evidenceFailure('NOT_A_FILE', `${displayPath} is not a regular file`, {
    recovery: 'the file tools read and write regular files only',
  });
}

/** The `FS_STALE_VERSION` failure of a read that saw the file change under it. */
export function changedWhileReadFailure(displayPath: string): ReturnType<typeof evidenceFailure> {
  return evidenceFailure('FS_STALE_VERSION', `${displayPath} changed while it was being read`, {
    recovery: 'read it again',
  });
}

/**
 * Whether two stats of one file show the same version metadata: size, modification and change times
 * in nanoseconds, mode, inode and device (the fields of `FileMetadata`), compared as bigints without
 * building strings.
 */
export function sameStatsMetadata(left: BigIntStats, right: BigIntStats): boolean {
  return (
    left.size === right.size &&
    left.mtimeNs === right.mtimeNs &&
    left.ctimeNs === right.ctimeNs &&
    left.mode === right.mode &&
    left.ino === right.ino &&
    left.dev === right.dev
  );
}
