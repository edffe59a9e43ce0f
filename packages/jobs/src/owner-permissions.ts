import { closeSync, chmodSync, constants, fstatSync, openSync } from 'node:fs';

/**
 * Linux's `O_PATH` (not in `fs.constants`): an open that reads nothing, so it needs no permission on
 * the directory itself. Its value is 010000000 on the architectures listed below; elsewhere (alpha,
 * parisc, sparc use others) this changes nothing.
 */
const O_PATH = 0o10000000;
const GENERIC_O_PATH_ARCHITECTURES = new Set([
  'x64',
  'ia32',
  'arm',
  'arm64',
  'riscv64',
  'ppc64',
  's390x',
  'loong64',
]);

/**
 * Gives a directory's owner read, write and search permission on it (its other mode bits kept), on
 * the directory that `target` names when this is called, never on what a link there points to: the
 * directory is opened with `O_PATH | O_NOFOLLOW | O_DIRECTORY` and changed through
 * `/proc/self/fd/<n>`, so a command that swaps a link in while this runs changes nothing else (a
 * check-then-`chmod` by path would follow it). Returns the directory's device and inode, or
 * `undefined` when nothing was changed (not a directory, not ours, not Linux).
 */
export function giveOwnerPermissions(
  target: string,
): { readonly dev: number; readonly ino: number } | undefined {
  if (process.platform !== 'linux' || !GENERIC_O_PATH_ARCHITECTURES.has(process.arch)) return undefined;
  let fd: number;
  try {
    fd = openSync(target, O_PATH | constants.O_NOFOLLOW | constants.O_DIRECTORY);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isDirectory()) return undefined;
    chmodSync(`/proc/self/fd/${fd}`, (stats.mode & 0o7777) | 0o700);
    return { dev: stats.dev, ino: stats.ino };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
