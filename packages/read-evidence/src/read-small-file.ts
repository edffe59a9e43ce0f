import { type BigIntStats, closeSync, fstatSync, openSync, readSync, statfsSync, statSync } from 'node:fs';
import { type EvidenceResult, evidenceFailure, fsErrorToEvidence } from './errors.js';
import {
  changedWhileReadFailure,
  notRegularFileFailure,
  READ_OPEN_FLAGS,
  sameStatsMetadata,
} from './read-protocol.js';

/**
 * Regular files up to this size (256 KiB) on a local file system are read with synchronous calls by
 * default: see {@link readSmallFileSync}. `0` turns the fast path off.
 */
export const DEFAULT_SYNC_READ_LIMIT = 256 * 1024;

/** A small file read whole, with the stats of its open descriptor taken before the read. */
export interface SmallFile {
  /** Exactly `stats.size` bytes. */
  readonly bytes: Buffer;
  readonly stats: BigIntStats;
}

/** Options of {@link readSmallFileSync}. */
export interface ReadSmallFileOptions {
  /** How the file is named in messages. */
  readonly displayPath: string;
  /** Largest size read this way, in bytes; `0` (or less) never takes the fast path. */
  readonly limit: number;
  /** Checked once, after the descriptor's stat and before the read: an aborted call reads nothing. */
  readonly signal?: Pick<AbortSignal, 'aborted'> | undefined;
}

// f_type magic numbers (linux/magic.h) of file systems whose data lives on this machine, so a few
// synchronous calls cost microseconds. Anything else (NFS, SMB/CIFS, FUSE, 9p, Ceph, procfs, sysfs
// ...) keeps the asynchronous path, where a slow or hung server blocks a thread-pool thread rather
// than the event loop (timeouts and cancellation keep working).
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0xca451a4e, // bcachefs
  0x73717368, // squashfs
  0xe0f5e1e2, // erofs
]);

/** Devices found not to be local: asked once (statfs of a remote mount may be a network round trip). */
const remoteDevices = new Set<number>();
/** Block devices found local: asked once (see {@link isLocalFileSystem}). */
const localBlockDevices = new Set<number>();
/** Anonymous devices found local, and until when (`performance.now()`) that answer is trusted. */
const localDevices = new Map<number, number>();
const DEVICES_KEPT = 1024;
/**
 * How long a local answer for an anonymous device is trusted, in ms. A device number is reused only
 * after its file system was unmounted; within this window a remote mount that took it over would have
 * at most its reads of this window done on the event loop (correct, but blocking), never read wrongly.
 */
const LOCAL_ANSWER_MS = 1_000;

/**
 * Whether a `st_dev` is a block device's number (a major number other than 0). Linux gives every
 * file system without a block device (tmpfs, overlayfs, btrfs subvolumes, procfs, and every network
 * and FUSE mount) an anonymous device, major 0; the major number is bits 8-19 and 32-43 of `st_dev`.
 */
export function isBlockDeviceNumber(device: number): boolean {
  return ((device >>> 8) & 0xfff) !== 0 || (Math.floor(device / 2 ** 32) & 0xfff) !== 0;
}

/**
 * Whether the file at `path` (on device `device`) sits on a local file system where the fast path
 * may block the event loop for a few microseconds. Linux only: elsewhere there is no portable way to
 * tell a network mount from a local disk, so the answer is false. Remote answers are cached per
 * device. A local answer is cached for good only for a block device (ext4 or xfs on a disk, say):
 * only file systems on that block device can ever carry its number, never a network mount. For an
 * anonymous device (tmpfs, overlayfs, ...) a local answer is kept for {@link LOCAL_ANSWER_MS}, so a
 * device number reused by a later remote mount is taken for local at most that long (issue 25: one
 * `statfs` per read, a path walk of several microseconds under load, was a tenth of a small read).
 */
export function isLocalFileSystem(path: string, device: number): boolean {
  if (process.platform !== 'linux' || remoteDevices.has(device)) return false;
  if (localBlockDevices.has(device)) return true;
  const now = performance.now();
  const trustedUntil = localDevices.get(device);
  if (trustedUntil !== undefined && now < trustedUntil) return true;
  let type: number;
  try {
    type = statfsSync(path).type >>> 0;
  } catch {
    return false;
  }
  if (LOCAL_FILE_SYSTEMS.has(type)) {
    if (isBlockDeviceNumber(device)) {
      if (localBlockDevices.size >= DEVICES_KEPT) localBlockDevices.clear();
      localBlockDevices.add(device);
    } else {
      if (localDevices.size >= DEVICES_KEPT) localDevices.clear();
      localDevices.set(device, now + LOCAL_ANSWER_MS);
    }
    return true;
  }
  localDevices.delete(device);
  if (remoteDevices.size >= DEVICES_KEPT) remoteDevices.clear();
  remoteDevices.add(device);
  return false;
}

/**
 * Reads a small regular file whole with synchronous calls, keeping every guarantee of the streaming
 * reads (see {@link readWholeFileSync}), when the fast path applies: the file opened (with the
 * streaming path's flags) is a regular file within `limit` on a local file system
 * ({@link isLocalFileSystem}), by the stat of its descriptor.
 *
 * Why synchronous: for a file of a few KiB each `fs.promises` call is a round trip through the libuv
 * thread pool that costs far more than the system call itself; open, fstat, read, fstat, stat and
 * close done in place take a few microseconds in all, which is also all the event loop is held. The
 * file is opened first and judged by its descriptor (no stat of the path before), so the decision
 * and the read are about the same file.
 *
 * Returns `undefined` when the fast path does not apply, and the caller reads with the streaming
 * path instead (which also produces the errors of a path that is missing, not a file, or on another
 * file system). A path that cannot be opened for another reason (a symbolic link at the final
 * component, access denied) gets its error here, as the streaming open would give it.
 *
 * Errors: those of {@link readWholeFileSync}.
 */
export function readSmallFileSync(
  path: string,
  options: ReadSmallFileOptions,
): EvidenceResult<SmallFile> | undefined {
  if (!(options.limit > 0)) return undefined;
  let descriptor: number;
  try {
    descriptor = openSync(path, READ_OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { ok: false, error: fsErrorToEvidence(error, options.displayPath) };
  }
  try {
    const stats = fstatSync(descriptor, { bigint: true });
    if (!stats.isFile() || stats.size > BigInt(options.limit) || !isLocalFileSystem(path, Number(stats.dev)))
      return undefined;
    return readOpenFileSync(descriptor, stats, path, options);
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, options.displayPath) };
  } finally {
    closeQuietly(descriptor);
  }
}

/**
 * The synchronous read protocol: open with the streaming path's flags (`O_NOFOLLOW`: a symlink at the
 * final component is `PATH_INVALID`; `O_NONBLOCK`: a FIFO never blocks and is `NOT_A_FILE`), take
 * the version from the open descriptor's stat before reading, read the bytes in one call, then stat
 * the descriptor and the path again: any change in between is `FS_STALE_VERSION`.
 *
 * Returns `undefined` (read it with the streaming path) when the descriptor's size is over `limit`
 * (the file grew since it was chosen), or when the read returned another number of bytes than the
 * size while the metadata stayed the same (a file system whose sizes are not byte counts).
 *
 * Errors: `FS_NOT_FOUND`, `NOT_A_FILE`, `FS_ACCESS_DENIED`, `PATH_INVALID`, `FS_STALE_VERSION`,
 * `ABORTED`, `EXECUTION_ERROR`.
 */
export function readWholeFileSync(
  path: string,
  options: ReadSmallFileOptions,
): EvidenceResult<SmallFile> | undefined {
  const { displayPath } = options;
  let descriptor: number;
  try {
    descriptor = openSync(path, READ_OPEN_FLAGS);
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  }
  try {
    const stats = fstatSync(descriptor, { bigint: true });
    const notFile = notRegularFileFailure(stats, displayPath);
    if (notFile) return notFile;
    return readOpenFileSync(descriptor, stats, path, options);
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  } finally {
    closeQuietly(descriptor);
  }
}

/** The rest of the protocol on an open regular file whose descriptor's stat is `stats`. */
function readOpenFileSync(
  descriptor: number,
  stats: BigIntStats,
  path: string,
  options: ReadSmallFileOptions,
): EvidenceResult<SmallFile> | undefined {
  const { displayPath, limit } = options;
  const size = Number(stats.size);
  if (size > limit) return undefined;
  if (options.signal?.aborted)
    return evidenceFailure('ABORTED', `reading ${displayPath} was cancelled`, {
      recovery: 'retry if still needed',
    });
  // One byte of room beyond the size: a file that grew since the stat fills it. A regular file
  // reads whole in one call; only a short read before the size is reached loops.
  const buffer = Buffer.allocUnsafe(size + 1);
  let length = 0;
  do {
    const bytesRead = readSync(descriptor, buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  } while (length < size);
  if (!unchangedSince(stats, descriptor, path)) return changedWhileReadFailure(displayPath);
  if (length !== size) return undefined;
  return { ok: true, value: { bytes: buffer.subarray(0, size), stats } };
}

function closeQuietly(descriptor: number): void {
  try {
    closeSync(descriptor);
  } catch {
    // Closing a read-only descriptor cannot lose data; the streaming path ignores it too.
  }
}

/** The descriptor and the path still show `stats`; a path that vanished or cannot be stat-ed is a change. */
function unchangedSince(stats: BigIntStats, descriptor: number, path: string): boolean {
  try {
    if (!sameStatsMetadata(stats, fstatSync(descriptor, { bigint: true }))) return false;
    const afterPath = statSync(path, { bigint: true, throwIfNoEntry: false });
    return afterPath !== undefined && sameStatsMetadata(stats, afterPath);
  } catch {
    return false;
  }
}
