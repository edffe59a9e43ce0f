import { randomBytes } from 'node:crypto';
import { type BigIntStats, constants } from 'node:fs';
import { type FileHandle, link, lstat, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  type EvidenceError,
  type EvidenceResult,
  evidenceFailure,
  fsErrorToEvidence,
  hasErrorCode,
} from './errors.js';

const TEMP_SUFFIX = '.toolhost-tmp';
const TEMP_PATTERN = /^\..*\.(\d+)\.[0-9a-f]{12}\.toolhost-tmp$/;
const MAX_TEMP_BASENAME = 180;

/** A check run immediately before a write becomes visible; returning an error abandons the write. */
export type BeforeCommit = () => Promise<EvidenceError | undefined> | EvidenceError | undefined;

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

async function sweepOnce(directory: string): Promise<void> {
  if (sweptDirectories.has(directory)) return;
  if (sweptDirectories.size >= MAX_SWEPT_DIRECTORIES) sweptDirectories.clear();
  sweptDirectories.add(directory);
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
 * Writes a file atomically (`data` is one buffer or parts written in sequence): the content goes to a temp file in the same directory, is fsync-ed, gets
 * the mode (and, when running as root, the owner) of the file it replaces, and is then renamed over
 * the target, so readers and crashes see either the whole old file or the whole new one. The rename
 * replaces a symlink at the final component rather than following it. With `exclusive` the temp
 * file is hard-linked to the target instead, which fails if anything exists there, so two concurrent
 * creators cannot both win (where the file system has no hard links, an `O_EXCL | O_NOFOLLOW` create
 * is used). `beforeCommit` runs immediately before publishing. The temp file is removed on every
 * failure, and temp files that dead processes of ours left in the directory are removed once per
 * directory per process.
 *
 * Errors: `FS_ALREADY_EXISTS` (exclusive), `NOT_A_FILE` (the target is a directory), `FS_NOT_FOUND`
 * (missing parent without `createParents`), `FS_ACCESS_DENIED`, `PATH_INVALID`, errors returned by
 * `beforeCommit`, `EXECUTION_ERROR`.
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
  await sweepOnce(directory);

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
  }
  const replacedFile = existing?.isFile() ? existing : undefined;

  const temp = tempPathFor(path);
  let handle: FileHandle | undefined;
  let tempIno: bigint | undefined;
  let tempExists = false;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
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
      const created = await linkExclusive(temp, path, data, displayPath);
      if (!created.ok) return created;
      if (!created.value) tempIno = undefined; // written directly, not through the temp inode
    } else {
      await rename(temp, path);
      tempExists = false;
    }
    await fsyncDirectory(directory);
    const stats = await stat(path, { bigint: true }).catch(() => null);
    const same = stats !== null && (tempIno === undefined || stats.ino === tempIno);
    return { ok: true, value: { stats: same ? stats : null } };
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  } finally {
    await handle?.close().catch(() => undefined);
    if (tempExists) await unlink(temp).catch(() => undefined);
  }
}

/**
 * Publishes `temp` at `path` only if nothing exists there. Returns true when the temp inode was
 * linked, false when the file system has no hard links and the data was written with O_EXCL instead.
 */
async function linkExclusive(
  temp: string,
  path: string,
  data: FileContent,
  displayPath: string,
): Promise<EvidenceResult<boolean>> {
  try {
    await link(temp, path);
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
  try {
    await writeAll(handle, data);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return { ok: true, value: false };
}
