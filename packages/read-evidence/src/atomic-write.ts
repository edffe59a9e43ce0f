import { createHash, randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  type EvidenceError,
  type EvidenceResult,
  evidenceFailure,
  fsErrorToEvidence,
  hasErrorCode,
} from './errors.js';
import type { FileVersion } from './file-version.js';
import { READ_OPEN_FLAGS, sameStatsMetadata } from './read-protocol.js';

const TEMP_SUFFIX = '.toolhost-tmp';
const TEMP_PATTERN = /^\..*\.(\d+)\.[0-9a-f]{12}\.toolhost-tmp$/;
const MAX_TEMP_BASENAME = 180;

/** A check run immediately before a write becomes visible; returning an error abandons the write. */
export type BeforeCommit = () => Promise<EvidenceError | undefined> | EvidenceError | undefined;

/**
 * A synchronous check run with no `await` between it and the system call that publishes a write
 * (and once more right after it): for re-checks that must be as close to the commit as possible,
 * such as a pinned directory's `verify()`.
 */
export type CommitCheck = () => EvidenceError | undefined;

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /**
   * Create only: never replace an existing target (or a symlink there, dangling or not); a target
   * that exists at commit time is `FS_ALREADY_EXISTS`. Default false (replace).
   */
  readonly exclusive?: boolean;
  /** Create missing parent directories. Default false. */
  readonly createParents?: boolean;
  /**
   * Permission bits of the result. Default: the replaced file's bits; for a new file 0o666 minus the
   * process umask.
   */
  readonly mode?: number;
  /**
   * Runs after the new content is durable in the temp file and immediately before the rename (or
   * link) that publishes it, under the caller's locks: re-check the target's version and path policy
   * here. An error abandons the write and removes the temp file.
   */
  readonly beforeCommit?: BeforeCommit;
  /**
   * Replace only while the target is still this version (a compare-and-swap against writers that do
   * not take our locks). Immediately before the rename the target is opened and its descriptor's
   * metadata compared with the version (when only metadata differs and the version has a hash, the
   * content decides); `commitCheck`, a last `fstat` of that descriptor and the rename then follow one
   * another in synchronous calls, so another writer's change can be lost only in the microseconds
   * between that last `fstat` and the rename. A change is `FS_STALE_VERSION`; a file that is gone is
   * `FS_STALE_VERSION` too. After the rename the replaced file's descriptor is stat-ed once more,
   * and a write that landed in the gap (its size or modification time moved) is reported as
   * `concurrentChange`.
   */
  readonly expectedVersion?: FileVersion;
  /**
   * Runs synchronously immediately before the rename or link (after `beforeCommit`; before the last
   * `fstat` of `expectedVersion`); an error abandons the write. It runs again right after the rename or
   * link: an error then removes a file this call created exclusively (it is ours: the same inode)
   * and is returned; a replace cannot be undone, so its error is returned with the new content in
   * place.
   */
  readonly commitCheck?: CommitCheck;
  /**
   * The real path of the target's directory when `path` reaches it some other way (a descriptor-
   * relative path): keys the once-per-directory sweep of stale temp files. Default: the directory
   * of `path`.
   */
  readonly directoryRealPath?: string;
  /** How the file is named in messages. Default: the path. */
  readonly displayPath?: string;
}

/** What {@link writeFileAtomic} and {@link moveFileNoReplace} report after committing. */
export interface CommittedFile {
  /**
   * The committed file's stats, taken after the commit and checked to be the same inode that was
   * written; `null` when another process replaced it in between (the caller should forget it).
   */
  readonly stats: BigIntStats | null;
  /**
   * With `expectedVersion`: another program wrote to the replaced file between the final check and
   * the rename, so that write went with the old file. Always false for creates and moves.
   */
  readonly concurrentChange: boolean;
}

/** The name of a temp file of ours for `target`: hidden, in the same directory, naming our pid. */
export function tempPathFor(target: string): string {
  const name = basename(target).slice(0, MAX_TEMP_BASENAME);
  return join(dirname(target), `.${name}.${process.pid}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !hasErrorCode(error, 'ESRCH');
  }
}

/**
 * Removes temp files that a writer of ours left in `directory` when its process died mid-write
 * (recognised by name: `.<name>.<pid>.<12 hex>.toolhost-tmp`, whose pid is no longer running).
 * Temp files of live processes, including this one, are left alone. Returns how many were removed;
 * never throws.
 */
export async function removeStaleTempFiles(directory: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const match = TEMP_PATTERN.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || processIsAlive(pid)) continue;
    try {
      await unlink(join(directory, name));
      removed++;
    } catch {
      // Someone else removed it first, or we may not: either way it is not ours to fight over.
    }
  }
  return removed;
}

const sweptDirectories = new Set<string>();
const MAX_SWEPT_DIRECTORIES = 4096;

async function sweepOnce(key: string, directory: string): Promise<void> {
  if (sweptDirectories.has(key)) return;
  if (sweptDirectories.size >= MAX_SWEPT_DIRECTORIES) sweptDirectories.clear();
  sweptDirectories.add(key);
  await removeStaleTempFiles(directory);
}

/** Flushes a directory entry change to disk; best effort (some platforms cannot fsync a directory). */
export async function fsyncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // EISDIR/EINVAL/EPERM on platforms or file systems without directory fsync.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** File content: one buffer, or parts written one after another (no copy to join them). */
export type FileContent = Uint8Array | readonly Uint8Array[];

/** The total byte length of {@link FileContent}. */
export function contentLength(data: FileContent): number {
  if (data instanceof Uint8Array) return data.length;
  let length = 0;
  for (const part of data) length += part.length;
  return length;
}

async function writeAll(handle: FileHandle, data: FileContent): Promise<void> {
  let position = 0;
  for (const part of data instanceof Uint8Array ? [data] : data) {
    let offset = 0;
    while (offset < part.length) {
      const { bytesWritten } = await handle.write(part, offset, part.length - offset, position);
      offset += bytesWritten;
      position += bytesWritten;
    }
  }
}

/**
 * Writes a file atomically (`data` is one buffer or parts written in sequence): the content goes to
 * a temp file in the same directory, is fsync-ed, gets the mode (and, when running as root, the
 * owner) of the file it replaces, and is then renamed over the target, so readers and crashes see
 * either the whole old file or the whole new one. The rename replaces a symlink at the final
 * component rather than following it. With `exclusive` the temp file is hard-linked to the target
 * instead, which fails if anything exists there, so two concurrent creators cannot both win (where
 * the file system has no hard links, an `O_EXCL | O_NOFOLLOW` create is used). `beforeCommit` runs
 * before publishing; `expectedVersion` and `commitCheck` run in the same synchronous stretch as the
 * rename or link (see their options). `path` may be a descriptor-relative path of a pinned
 * directory (`/proc/self/fd/<n>/<name>`): the temp file, the rename and the directory fsync then all
 * happen in that directory. The temp file is removed on every failure, and temp files that dead
 * processes of ours left in the directory are removed once per directory per process.
 *
 * Errors: `FS_ALREADY_EXISTS` (exclusive), `NOT_A_FILE` (the target is a directory), `FS_NOT_FOUND`
 * (missing parent without `createParents`), `FS_STALE_VERSION` (`expectedVersion`),
 * `FS_ACCESS_DENIED`, `PATH_INVALID`, errors returned by `beforeCommit` or `commitCheck`,
 * `EXECUTION_ERROR`.
 */
export async function writeFileAtomic(
  path: string,
  data: FileContent,
  options: WriteFileAtomicOptions = {},
): Promise<EvidenceResult<CommittedFile>> {
  const displayPath = options.displayPath ?? path;
  const directory = dirname(path);
  if (options.createParents) {
    try {
      await mkdir(directory, { recursive: true });
    } catch (error) {
      return { ok: false, error: fsErrorToEvidence(error, `the parent directory of ${displayPath}`) };
    }
  }
  await sweepOnce(options.directoryRealPath ?? directory, directory);

  let existing: BigIntStats | undefined;
  try {
    existing = await lstat(path, { bigint: true });
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  }
  if (existing) {
    if (options.exclusive)
      return evidenceFailure('FS_ALREADY_EXISTS', `${displayPath} already exists`, {
        recovery: 'read it before deciding whether to replace it',
      });
    if (existing.isDirectory())
      return evidenceFailure('NOT_A_FILE', `${displayPath} is a directory, not a file`, {
        recovery: 'choose a file path',
      });
  } else if (options.expectedVersion && !options.exclusive) return removedFailure(displayPath);
  const replacedFile = existing?.isFile() ? existing : undefined;

  const temp = tempPathFor(path);
  let handle: FileHandle | undefined;
  let tempIno: bigint | undefined;
  let tempExists = false;
  let guard: ExpectedTarget | undefined;
  try {
    handle = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      0o666,
    );
    tempExists = true;
    await writeAll(handle, data);
    const mode = options.mode ?? (replacedFile ? Number(replacedFile.mode) & 0o7777 : undefined);
    if (mode !== undefined) await handle.chmod(mode);
    if (replacedFile && process.getuid?.() === 0) {
      await handle.chown(Number(replacedFile.uid), Number(replacedFile.gid)).catch(() => undefined);
    }
    await handle.sync();
    tempIno = (await handle.stat({ bigint: true })).ino;
    await handle.close();
    handle = undefined;

    const refusal = await options.beforeCommit?.();
    if (refusal) return { ok: false, error: refusal };

    if (options.exclusive) {
      const created = await linkExclusive(temp, path, data, displayPath, options.commitCheck);
      if (!created.ok) return created;
      if (!created.value) tempIno = undefined; // written directly, not through the temp inode
      const after = options.commitCheck?.();
      if (after) {
        removeIfOurs(path, created.value ? tempIno : created.directIno);
        return { ok: false, error: after };
      }
    } else {
      if (options.expectedVersion) {
        const opened = await openExpectedTarget(path, options.expectedVersion, displayPath);
        if (!opened.ok) return opened;
        guard = opened.value;
      }
      // From here to the rename: synchronous calls only, so nothing else runs in between; the
      // version's fstat is the last call before rename(2), so another writer's gap is those two.
      const check = options.commitCheck?.();
      if (check) return { ok: false, error: check };
      if (guard) {
        const now = fstatSync(guard.descriptor, { bigint: true });
        if (!sameStatsMetadata(now, guard.stats)) return changedFailure(displayPath);
      }
      renameSync(temp, path);
      tempExists = false;
      const after = options.commitCheck?.();
      // Any write to the replaced file since its last fstat went with it: tell the caller.
      const concurrent = guard
        ? contentMoved(guard.stats, fstatSync(guard.descriptor, { bigint: true }))
        : false;
      if (after) return { ok: false, error: after };
      await fsyncDirectory(directory);
      return {
        ok: true,
        value: { stats: await committedStats(path, tempIno), concurrentChange: concurrent },
      };
    }
    await fsyncDirectory(directory);
    return { ok: true, value: { stats: await committedStats(path, tempIno), concurrentChange: false } };
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  } finally {
    await handle?.close().catch(() => undefined);
    if (guard) closeQuietly(guard.descriptor);
    if (tempExists) await unlink(temp).catch(() => undefined);
  }
}

/** The stats of the committed file when it is still the inode written (`tempIno`, when known). */
async function committedStats(path: string, tempIno: bigint | undefined): Promise<BigIntStats | null> {
  const stats = await stat(path, { bigint: true }).catch(() => null);
  return stats !== null && (tempIno === undefined || stats.ino === tempIno) ? stats : null;
}

function closeQuietly(descriptor: number): void {
  try {
    closeSync(descriptor);
  } catch {
    // A read-only descriptor: nothing can be lost by a failed close.
  }
}

/** Removes `path` when it is still the inode `ino` (a file this call created); best effort. */
function removeIfOurs(path: string, ino: bigint | undefined): void {
  if (ino === undefined) return;
  try {
    if (lstatSync(path, { bigint: true }).ino === ino) unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** Whether the content of a file moved between two stats of it: its size or modification time. */
function contentMoved(before: BigIntStats, after: BigIntStats): boolean {
  return before.size !== after.size || before.mtimeNs !== after.mtimeNs;
}

function removedFailure(displayPath: string): { readonly ok: false; readonly error: EvidenceError } {
  return evidenceFailure('FS_STALE_VERSION', `${displayPath} was removed after it was read`, {
    recovery: 'check the path again (ls or read_file) before deciding what to write',
  });
}

function changedFailure(displayPath: string): { readonly ok: false; readonly error: EvidenceError } {
  return evidenceFailure(
    'FS_STALE_VERSION',
    `${displayPath} was changed by another program while the edit was being committed; nothing was written`,
    { recovery: 'read it again, then retry' },
  );
}

/** The file a replace expects to find, held open so its identity and metadata can be compared. */
interface ExpectedTarget {
  readonly descriptor: number;
  /** The descriptor's stats, accepted as the expected version. */
  readonly stats: BigIntStats;
}

/**
 * Opens the target and confirms it is still `expected`: equal metadata, or (metadata moved, for
 * example a touch) equal size and content hash. Returns the open descriptor with its stats.
 */
async function openExpectedTarget(
  path: string,
  expected: FileVersion,
  displayPath: string,
): Promise<EvidenceResult<ExpectedTarget>> {
  let descriptor: number;
  try {
    descriptor = openSync(path, READ_OPEN_FLAGS);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return removedFailure(displayPath);
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  }
  try {
    const stats = fstatSync(descriptor, { bigint: true });
    const same =
      stats.isFile() &&
      (sameVersionMetadata(stats, expected) ||
        (expected.sha256 !== null &&
          stats.ino.toString() === expected.ino &&
          Number(stats.size) === expected.size &&
          (await hashDescriptor(descriptor, Number(stats.size))) === expected.sha256));
    if (!same) {
      closeQuietly(descriptor);
      return changedFailure(displayPath);
    }
    return { ok: true, value: { descriptor, stats } };
  } catch (error) {
    closeQuietly(descriptor);
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  }
}

function sameVersionMetadata(stats: BigIntStats, version: FileVersion): boolean {
  return (
    Number(stats.size) === version.size &&
    stats.mtimeNs.toString() === version.mtimeNs &&
    stats.ctimeNs.toString() === version.ctimeNs &&
    Number(stats.mode) === version.mode &&
    stats.ino.toString() === version.ino &&
    stats.dev.toString() === version.dev
  );
}

/** SHA-256 of the first `size` bytes of an open file (yields between 1 MiB chunks). */
async function hashDescriptor(descriptor: number, size: number): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 1), 1024 * 1024));
  let position = 0;
  while (position < size) {
    const read = readSync(descriptor, buffer, 0, Math.min(buffer.length, size - position), position);
    if (read === 0) break;
    hash.update(buffer.subarray(0, read));
    position += read;
    if (position < size) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return hash.digest('hex');
}

/**
 * Publishes `temp` at `path` only if nothing exists there, running `commitCheck` synchronously right
 * before. Returns true when the temp inode was linked, false when the file system has no hard links
 * and the data was written with O_EXCL instead (`directIno` is then the new file's inode).
 */
async function linkExclusive(
  temp: string,
  path: string,
  data: FileContent,
  displayPath: string,
  commitCheck: CommitCheck | undefined,
): Promise<EvidenceResult<boolean> & { directIno?: bigint }> {
  try {
    const check = commitCheck?.();
    if (check) return { ok: false, error: check };
    linkSync(temp, path);
    return { ok: true, value: true };
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST'))
      return evidenceFailure('FS_ALREADY_EXISTS', `${displayPath} was created concurrently`, {
        recovery: 'read it before deciding whether to replace it',
      });
    if (
      !['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV'].some((code) =>
        hasErrorCode(error, code),
      )
    )
      throw error;
  }
  // No hard links here: create with O_EXCL and O_NOFOLLOW (still never replaces anything).
  let handle: FileHandle | undefined;
  try {
    const check = commitCheck?.();
    if (check) return { ok: false, error: check };
    handle = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      0o666,
    );
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST'))
      return evidenceFailure('FS_ALREADY_EXISTS', `${displayPath} was created concurrently`, {
        recovery: 'read it before deciding whether to replace it',
      });
    throw error;
  }
  let directIno: bigint;
  try {
    await writeAll(handle, data);
    await handle.sync();
    directIno = (await handle.stat({ bigint: true })).ino;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return { ok: true, value: false, directIno };
}
