import type { BigIntStats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { type EvidenceResult, evidenceFailure, fsErrorToEvidence } from './errors.js';
import {
  DEFAULT_HASH_LIMIT,
  type FileVersion,
  fileMetadataOf,
  fileVersionOf,
  sameFileMetadata,
  sha256Of,
} from './file-version.js';
import { changedWhileReadFailure, notRegularFileFailure, READ_OPEN_FLAGS } from './read-protocol.js';
import { DEFAULT_SYNC_READ_LIMIT, readSmallFileSync } from './read-small-file.js';

/** The whole content of a file with the version it had while being read. */
export interface FileSnapshot {
  /** The real path that was read. */
  readonly path: string;
  readonly bytes: Buffer;
  /** Metadata from the open handle before reading; `sha256` set when the size is within the hash limit. */
  readonly version: FileVersion;
}

/** Options of {@link readFileSnapshot}. */
export interface ReadFileSnapshotOptions {
  /** Files larger than this are refused with `FILE_TOO_LARGE`. Default: no limit. */
  readonly maxBytes?: number;
  /** Hash the content when the file is at most this large. Default 16 MiB. */
  readonly hashLimit?: number;
  /** How the file is named in messages (a display path). Default: the path. */
  readonly displayPath?: string;
  /**
   * Regular files up to this size on a local file system are read with a few synchronous calls
   * instead of thread-pool round trips, with the same guarantees. Default 256 KiB; `0` turns it off.
   */
  readonly syncReadLimit?: number;
}

/**
 * Opens a regular file for reading and returns the handle with its stats taken before any byte is
 * read. Directories are `NOT_A_FILE` (with the hint to use ls); FIFOs, sockets and devices are
 * `NOT_A_FILE`; a symlink as the final component is refused (`PATH_INVALID`).
 */
export async function openRegularFile(
  path: string,
  displayPath: string,
): Promise<EvidenceResult<{ handle: FileHandle; stats: BigIntStats }>> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_OPEN_FLAGS);
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  }
  try {
    const stats = await handle.stat({ bigint: true });
    const notFile = notRegularFileFailure(stats, displayPath);
    if (notFile) {
      await handle.close();
      return notFile;
    }
    return { ok: true, value: { handle, stats } };
  } catch (error) {
    await handle.close().catch(() => undefined);
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  }
}

/**
 * Checks that a file did not change while it was read: the open handle's stats and the path's stats
 * after reading must both equal the stats taken before. Returns `FS_STALE_VERSION` otherwise.
 */
export async function confirmUnchangedWhileRead(
  handle: FileHandle,
  path: string,
  before: BigIntStats,
  displayPath: string,
): Promise<EvidenceResult<void>> {
  try {
    const expected = fileMetadataOf(before);
    const afterHandle = fileMetadataOf(await handle.stat({ bigint: true }));
    const afterPath = fileMetadataOf(await stat(path, { bigint: true }));
    if (sameFileMetadata(expected, afterHandle) && sameFileMetadata(expected, afterPath))
      return { ok: true, value: undefined };
  } catch {
    // The path vanished or became unreadable while it was read: that is a change too.
  }
  return changedWhileReadFailure(displayPath);
}

/**
 * Reads a whole regular file together with its version. The version's metadata comes from the open
 * handle before reading, and after reading both the handle and the path are stat-ed again: a file
 * that changed meanwhile is `FS_STALE_VERSION`. The bytes are read until end of file, whatever the
 * size said. Small regular files on a local file system (`syncReadLimit`, default 256 KiB) are read
 * with synchronous calls under the same protocol (see `readSmallFileSync`); others are streamed.
 *
 * Errors: `FS_NOT_FOUND`, `NOT_A_FILE`, `FS_ACCESS_DENIED`, `PATH_INVALID`, `FILE_TOO_LARGE`,
 * `FS_STALE_VERSION`, `EXECUTION_ERROR`.
 */
export async function readFileSnapshot(
  path: string,
  options: ReadFileSnapshotOptions = {},
): Promise<EvidenceResult<FileSnapshot>> {
  const displayPath = options.displayPath ?? path;
  const hashLimit = options.hashLimit ?? DEFAULT_HASH_LIMIT;
  // A file over maxBytes takes the streaming path, which reports FILE_TOO_LARGE.
  const small = readSmallFileSync(path, {
    displayPath,
    limit: Math.min(
      options.syncReadLimit ?? DEFAULT_SYNC_READ_LIMIT,
      options.maxBytes ?? Number.POSITIVE_INFINITY,
    ),
  });
  if (small !== undefined) {
    if (!small.ok) return small;
    const { bytes, stats } = small.value;
    const version = fileVersionOf(stats, bytes.length <= hashLimit ? sha256Of(bytes) : null);
    return { ok: true, value: { path, bytes, version } };
  }
  const opened = await openRegularFile(path, displayPath);
  if (!opened.ok) return opened;
  const { handle, stats } = opened.value;
  try {
    const size = Number(stats.size);
    if (options.maxBytes !== undefined && size > options.maxBytes)
      return evidenceFailure(
        'FILE_TOO_LARGE',
        `${displayPath} is ${size} bytes, more than the ${options.maxBytes}-byte limit of this operation`,
        { recovery: 'edit it with a command that streams it' },
      );
    const bytes = await readAll(handle, size, options.maxBytes);
    if (bytes === undefined)
      return evidenceFailure('FS_STALE_VERSION', `${displayPath} grew while it was being read`, {
        recovery: 'read it again',
      });
    const unchanged = await confirmUnchangedWhileRead(handle, path, stats, displayPath);
    if (!unchanged.ok) return unchanged;
    const version = fileVersionOf(stats, bytes.length <= hashLimit ? sha256Of(bytes) : null);
    return { ok: true, value: { path, bytes, version } };
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function readAll(
  handle: FileHandle,
  expectedSize: number,
  maxBytes?: number,
): Promise<Buffer | undefined> {
  let buffer = Buffer.allocUnsafe(Math.max(expectedSize, 0) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (maxBytes !== undefined && length > maxBytes) return undefined;
      const grown = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}
