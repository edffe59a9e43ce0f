import { type BigIntStats, constants, linkSync, lstatSync, unlinkSync } from 'node:fs';
import { copyFile, lstat, mkdir, open, rename, stat, unlink, utimes } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type BeforeCommit,
  type CommitCheck,
  type CommittedFile,
  fsyncDirectory,
  tempPathFor,
} from './atomic-write.js';
import { type EvidenceResult, evidenceFailure, fsErrorToEvidence, hasErrorCode } from './errors.js';

/** Options of {@link moveFileNoReplace}. */
export interface MoveFileOptions {
  /** Create missing parent directories of the destination. Default false. */
  readonly createParents?: boolean;
  /** Runs immediately before the destination appears (re-check versions and path policy here). */
  readonly beforeCommit?: BeforeCommit;
  /**
   * Runs synchronously right before the link that makes the destination appear and right after it;
   * an error after the link removes the destination again (it is the source's inode, so nothing
   * else is lost) and is returned. For a pinned directory's `verify()`.
   */
  readonly commitCheck?: CommitCheck;
  /** How the source is named in messages. */
  readonly sourceDisplayPath?: string;
  /** How the destination is named in messages. */
  readonly destinationDisplayPath?: string;
}

/** What {@link moveFileNoReplace} reports. */
export interface MovedFile extends CommittedFile {
  /** True when source and destination were on different devices, so the file was copied. */
  readonly crossDevice: boolean;
}

const LINK_UNSUPPORTED = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK'];

/**
 * Moves a regular file without ever replacing the destination. On one device the source is
 * hard-linked at the destination (which fails if anything exists there) and then unlinked, so the
 * file keeps its identity. Across devices the content is copied to a temp file beside the
 * destination (mode and times kept), fsync-ed, linked into place the same way, and only then is the
 * source removed. Where the file system has no hard links, the destination is checked to be absent
 * immediately before a plain rename (a narrow race documented in the README). Both paths may be
 * descriptor-relative paths of pinned directories (`/proc/self/fd/<n>/<name>`).
 *
 * Errors: `FS_NOT_FOUND` (source), `NOT_A_FILE` (source is not a regular file), `FS_ALREADY_EXISTS`
 * (destination), `FS_ACCESS_DENIED`, `PATH_INVALID`, errors from `beforeCommit`, `EXECUTION_ERROR`.
 */
export async function moveFileNoReplace(
  source: string,
  destination: string,
  options: MoveFileOptions = {},
): Promise<EvidenceResult<MovedFile>> {
  const sourceName = options.sourceDisplayPath ?? source;
  const destinationName = options.destinationDisplayPath ?? destination;
  let sourceStats: BigIntStats;
  try {
    sourceStats = await lstat(source, { bigint: true });
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, sourceName) };
  }
  if (!sourceStats.isFile())
    return evidenceFailure('NOT_A_FILE', `${sourceName} is not a regular file`, {
      recovery: 'move_file moves regular files only; use a command for directories',
    });
  const exists = await lstat(destination).then(
    () => true,
    () => false,
  );
  if (exists) return alreadyExists(destinationName);
  if (options.createParents) {
    try {
      await mkdir(dirname(destination), { recursive: true });
    } catch (error) {
      return { ok: false, error: fsErrorToEvidence(error, `the parent directory of ${destinationName}`) };
    }
  }

  const refusal = await options.beforeCommit?.();
  if (refusal) return { ok: false, error: refusal };

  try {
    const check = options.commitCheck?.();
    if (check) return { ok: false, error: check };
    linkSync(source, destination);
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return alreadyExists(destinationName);
    if (hasErrorCode(error, 'EXDEV'))
      return moveAcrossDevices(
        source,
        destination,
        sourceStats,
        sourceName,
        destinationName,
        options.commitCheck,
      );
    if (LINK_UNSUPPORTED.some((code) => hasErrorCode(error, code)))
      return renameIfAbsent(source, destination, destinationName, options.commitCheck);
    return { ok: false, error: fsErrorToEvidence(error, destinationName) };
  }
  const after = options.commitCheck?.();
  if (after) {
    removeLinkOf(destination, sourceStats.ino);
    return { ok: false, error: after };
  }
  try {
    await unlink(source);
  } catch (error) {
    // Roll back so the file does not end up in two places.
    await unlink(destination).catch(() => undefined);
    return { ok: false, error: fsErrorToEvidence(error, sourceName) };
  }
  await fsyncDirectory(dirname(destination));
  if (dirname(source) !== dirname(destination)) await fsyncDirectory(dirname(source));
  const stats = await stat(destination, { bigint: true }).catch(() => null);
  return {
    ok: true,
    value: {
      stats: stats && stats.ino === sourceStats.ino ? stats : null,
      crossDevice: false,
      concurrentChange: false,
    },
  };
}

/** Removes `path` when it is still the inode `ino` (the link this move made); best effort. */
function removeLinkOf(path: string, ino: bigint): void {
  try {
    if (lstatSync(path, { bigint: true }).ino === ino) unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function alreadyExists(destinationName: string) {
  return evidenceFailure(
    'FS_ALREADY_EXISTS',
    `${destinationName} already exists; move_file never replaces a file`,
    {
      recovery: 'choose another destination, or remove the existing file first if it really must go',
    },
  );
}

async function renameIfAbsent(
  source: string,
  destination: string,
  destinationName: string,
  commitCheck: CommitCheck | undefined,
): Promise<EvidenceResult<MovedFile>> {
  try {
    const exists = await lstat(destination).then(
      () => true,
      () => false,
    );
    if (exists) return alreadyExists(destinationName);
    const check = commitCheck?.();
    if (check) return { ok: false, error: check };
    await rename(source, destination);
    const stats = await stat(destination, { bigint: true }).catch(() => null);
    return { ok: true, value: { stats, crossDevice: false, concurrentChange: false } };
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, destinationName) };
  }
}

async function moveAcrossDevices(
  source: string,
  destination: string,
  sourceStats: BigIntStats,
  sourceName: string,
  destinationName: string,
  commitCheck: CommitCheck | undefined,
): Promise<EvidenceResult<MovedFile>> {
  const temp = tempPathFor(destination);
  let tempExists = false;
  try {
    await copyFile(source, temp, constants.COPYFILE_EXCL);
    tempExists = true;
    const handle = await open(temp, constants.O_RDWR);
    try {
      await handle.chmod(Number(sourceStats.mode) & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await utimes(temp, sourceStats.atime, sourceStats.mtime);
    const copied = await stat(temp, { bigint: true });
    // The source must not have changed while it was copied.
    const after = await stat(source, { bigint: true });
    if (
      after.ino !== sourceStats.ino ||
      after.size !== sourceStats.size ||
      after.mtimeNs !== sourceStats.mtimeNs ||
      copied.size !== sourceStats.size
    )
      return evidenceFailure('FS_STALE_VERSION', `${sourceName} changed while it was being moved`, {
        recovery: 'read it again, then retry',
      });
    try {
      const check = commitCheck?.();
      if (check) return { ok: false, error: check };
      linkSync(temp, destination);
    } catch (error) {
      if (hasErrorCode(error, 'EEXIST')) return alreadyExists(destinationName);
      throw error;
    }
    const refused = commitCheck?.();
    if (refused) {
      removeLinkOf(destination, copied.ino);
      return { ok: false, error: refused };
    }
    await fsyncDirectory(dirname(destination));
    try {
      await unlink(source);
    } catch (error) {
      await unlink(destination).catch(() => undefined);
      return { ok: false, error: fsErrorToEvidence(error, sourceName) };
    }
    await fsyncDirectory(dirname(source));
    const stats = await stat(destination, { bigint: true }).catch(() => null);
    return {
      ok: true,
      value: {
        stats: stats && stats.ino === copied.ino ? stats : null,
        crossDevice: true,
        concurrentChange: false,
      },
    };
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, destinationName) };
  } finally {
    if (tempExists) await unlink(temp).catch(() => undefined);
  }
}
