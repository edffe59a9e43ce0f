import { statfsSync } from 'node:fs';

/** Free space of the file system holding `target`, as this process may use it; undefined when unknown. */
export function freeDiskBytes(target: string): number | undefined {
  try {
    const stats = statfsSync(target);
    // Root may write into the blocks reserved for it; everyone else gets `bavail`.
    const blocks = process.getuid?.() === 0 ? stats.bfree : stats.bavail;
    return blocks * stats.bsize;
  } catch {
    return undefined;
  }
}

/** Total size of the file system holding `target`; undefined when unknown. */
export function totalDiskBytes(target: string): number | undefined {
  try {
    const stats = statfsSync(target);
    return stats.blocks * stats.bsize;
  } catch {
    return undefined;
  }
}

/** Less free space than this counts as full: a log could not take a line of output. */
const FULL_BELOW_BYTES = 64 * 1024;

/**
 * Whether the file system holding `target` is full: less than 64 KiB this process may use, or no free
 * inode (requirement JOB-DISK-1). A quota (`EDQUOT`) does not show here; it shows as the error of a
 * write, see {@link isDiskFullError}.
 */
export function diskIsFull(target: string): boolean {
  try {
    const stats = statfsSync(target);
    const blocks = process.getuid?.() === 0 ? stats.bfree : stats.bavail;
    // File systems without inode accounting (btrfs) report 0 files and 0 free inodes.
    return blocks * stats.bsize < FULL_BELOW_BYTES || (stats.files > 0 && stats.ffree === 0);
  } catch {
    return false;
  }
}

/** Whether an error is a full disk or an exhausted quota (`ENOSPC`, `EDQUOT`). */
export function isDiskFullError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
