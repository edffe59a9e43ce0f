import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processStartTime } from '@toolhost/internal';
import { type EvidenceResult, evidenceFailure, hasErrorCode } from './errors.js';

// Why a lock file and not flock(2): Node has no flock, and a native addon is not an option for a
// package that must install without building anything. An O_EXCL-style lock file (published with
// link(2), so it always has its full content) is honoured by every toolhost process of this user,
// whatever its working directory or project root, because it is keyed by the file's device and
// inode, not by a path.

/** How long a writer waits for another live process's lock by default (10 s). */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** Options of {@link createFileLocks}. */
export interface FileLocksOptions {
  /**
   * Where the lock files live. Processes exclude each other only when they use the same directory;
   * the default, {@link defaultLockDirectory}, is the same for every process of one user that sees
   * the same system temp directory.
   */
  readonly directory?: string;
  /** How long `acquire` waits for a lock held by another live process. Default 10 s. */
  readonly timeoutMs?: number;
}

/** A held cross-process lock. */
export interface FileLock {
  /** `<dev>-<ino>` of the locked file, or `null` when there was nothing to lock (no regular file there). */
  readonly key: string | null;
  /** Releases the lock (idempotent, synchronous, never throws). */
  release(): void;
}

/** Options of {@link FileLocks.acquire}. */
export interface AcquireFileLockOptions {
  /** How the file is named in messages. Default: `the file`. */
  readonly displayPath?: string;
}

/** Cross-process mutation locks keyed by file identity. */
export interface FileLocks {
  /** The lock directory. */
  readonly directory: string;
  /**
   * Takes the lock of the regular file at `path` (a real or descriptor-relative path), keyed by its
   * device and inode, so every toolhost process of this user that modifies the same file waits for
   * the others. After taking it the file is looked up again: if another writer replaced it (a new
   * inode, as every atomic replace makes), the lock is dropped and the new inode's is taken, so the
   * holder always holds the lock of the file it will read. A missing path, or anything but a regular
   * file, gets a no-op lock (`key: null`): creation is exclusive by itself.
   *
   * A lock whose holder is dead (its pid is gone, or on Linux runs a process with another start
   * time) is broken. A live holder is waited for, polling with a growing pause, up to the timeout.
   *
   * Errors: `FS_LOCKED` (timeout), `EXECUTION_ERROR` (the lock directory is unusable or not private).
   */
  acquire(path: string, options?: AcquireFileLockOptions): Promise<EvidenceResult<FileLock>>;
}

/**
 * The default lock directory: `toolhost-locks-<uid>` in the system temp directory (created 0700,
 * and refused unless it is a real directory owned by this user and closed to others).
 */
export function defaultLockDirectory(): string {
  const user = process.getuid?.();
  return join(tmpdir(), user === undefined ? 'toolhost-locks' : `toolhost-locks-${user}`);
}

/** What a lock file holds. */
interface Holder {
  readonly pid: number;
  /** The process's start time in clock ticks since boot (Linux), else null. */
  readonly start: string | null;
}

const LOCK_SUFFIX = '.lock';
const TEMP_PATTERN = /^.+\.(\d+)\.[0-9a-f]{12}\.tmp$/;
const BROKEN_PATTERN = /\.broken\.(\d+)\.[0-9a-f]{12}$/;
const MAX_PAUSE_MS = 25;

let ownStart: string | null | undefined;

function ownHolder(): Holder {
  ownStart ??= processStartTime('self');
  return { pid: process.pid, start: ownStart };
}

/** Whether the holder of a lock is still running (the same process, not a reused pid). */
function holderIsAlive(holder: Holder): boolean {
  if (holder.pid === process.pid) return holder.start === ownHolder().start;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if (hasErrorCode(error, 'ESRCH')) return false;
  }
  if (holder.start === null) return true;
  const start = processStartTime(holder.pid);
  return start === null || start === holder.start;
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as { pid?: unknown; start?: unknown };
    if (typeof value.pid !== 'number' || !Number.isSafeInteger(value.pid) || value.pid <= 0) return undefined;
    return { pid: value.pid, start: typeof value.start === 'string' ? value.start : null };
  } catch {
    return undefined;
  }
}

/** Reads a lock file: its holder (undefined: unreadable content) and inode, or undefined when gone. */
function inspect(lockPath: string): { holder: Holder | undefined; ino: bigint } | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(lockPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const ino = fstatSync(descriptor, { bigint: true }).ino;
    const buffer = Buffer.alloc(512);
    const length = readSync(descriptor, buffer, 0, buffer.length, 0);
    return { holder: parseHolder(buffer.subarray(0, length).toString('utf8')), ino };
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return hasErrorCode(error, 'ESRCH');
  }
}

/**
 * Creates a set of cross-process file locks over one lock directory (see {@link FileLocks}).
 * Defaults: {@link defaultLockDirectory}, a {@link DEFAULT_LOCK_TIMEOUT_MS} wait.
 */
export function createFileLocks(options: FileLocksOptions = {}): FileLocks {
  const directory = options.directory ?? defaultLockDirectory();
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  let ready: EvidenceResult<void> | undefined;

  /** Creates the directory once, refuses one that is not private, and sweeps what dead processes left. */
  function prepare(): EvidenceResult<void> {
    if (ready?.ok) return ready;
    try {
      mkdirSync(directory, { mode: 0o700 });
    } catch (error) {
      if (!hasErrorCode(error, 'EEXIST')) {
        ready = unusable('it cannot be created');
        return ready;
      }
    }
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(directory);
    } catch {
      ready = unusable('it cannot be inspected');
      return ready;
    }
    const user = process.getuid?.();
    if (!stats.isDirectory()) ready = unusable('it is not a directory');
    else if (user !== undefined && (stats.uid !== user || (stats.mode & 0o077) !== 0))
      ready = unusable('it is owned by another user or open to others');
    else ready = { ok: true, value: undefined };
    if (ready.ok) sweep();
    return ready;
  }

  function sweep(): void {
    let names: string[];
    try {
      names = readdirSync(directory);
    } catch {
      return;
    }
    for (const name of names) {
      const match = TEMP_PATTERN.exec(name) ?? BROKEN_PATTERN.exec(name);
      if (match && processIsGone(Number(match[1]))) {
        try {
          unlinkSync(join(directory, name));
        } catch {
          // Someone else swept it first.
        }
      }
    }
  }

  /**
   * Removes a dead holder's lock file without ever removing a live one: it is renamed to a name of
   * ours first, and only removed when that is the very inode judged dead; otherwise it is put back.
   */
  function breakStale(lockPath: string, judgedIno: bigint): void {
    const aside = `${lockPath}.broken.${process.pid}.${randomBytes(6).toString('hex')}`;
    try {
      renameSync(lockPath, aside);
    } catch {
      return; // Gone already: another waiter broke it.
    }
    let movedIno: bigint | undefined;
    try {
      movedIno = lstatSync(aside, { bigint: true }).ino;
    } catch {
      // Cannot happen for a name of ours; treat it as not the judged one.
    }
    if (movedIno !== judgedIno) {
      // A live lock taken between our look and the rename: put it back.
      try {
        linkSync(aside, lockPath);
      } catch {
        // Someone took the lock meanwhile; the moved one's holder will find its lock gone on release.
      }
    }
    try {
      unlinkSync(aside);
    } catch {
      // Already removed.
    }
  }

  // One holder file per instance, written once with this process's identity; taking a lock is one
  // link(2) of it to the lock's name (so a lock file always has its full content), releasing is one
  // unlink. Left behind when the process dies, and swept by the next process to prepare.
  let holderFile: { path: string; ino: bigint } | undefined;

  function holder(): { path: string; ino: bigint } | undefined {
    if (holderFile !== undefined) {
      try {
        if (lstatSync(holderFile.path, { bigint: true }).ino === holderFile.ino) return holderFile;
      } catch {
        // Swept by mistake or removed by hand: write a new one.
      }
    }
    const file = join(directory, `holder.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const descriptor = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        writeSync(descriptor, JSON.stringify(ownHolder()));
        holderFile = { path: file, ino: fstatSync(descriptor, { bigint: true }).ino };
      } finally {
        closeSync(descriptor);
      }
      return holderFile;
    } catch {
      return undefined;
    }
  }

  async function acquire(
    path: string,
    acquireOptions: AcquireFileLockOptions = {},
  ): Promise<EvidenceResult<FileLock>> {
    const displayPath = acquireOptions.displayPath ?? 'the file';
    const prepared = prepare();
    if (!prepared.ok) return prepared;
    const deadline = Date.now() + timeoutMs;
    let pause = 1;
    for (;;) {
      let target: BigIntStats | undefined;
      try {
        target = lstatSync(path, { bigint: true });
      } catch {
        target = undefined;
      }
      if (target === undefined || !target.isFile())
        return { ok: true, value: { key: null, release: () => undefined } };
      const ours = holder();
      if (ours === undefined) return unusable('a lock file cannot be written there');
      const key = `${target.dev}-${target.ino}`;
      const lockPath = join(directory, `${key}${LOCK_SUFFIX}`);
      let taken: boolean;
      try {
        linkSync(ours.path, lockPath);
        taken = true;
      } catch (error) {
        if (hasErrorCode(error, 'ENOENT')) continue; // The holder file was swept just now.
        if (!hasErrorCode(error, 'EEXIST')) return unusable('a lock file cannot be written there');
        taken = false;
      }
      if (taken) {
        const lock = heldLock(key, lockPath, ours.ino);
        let now: BigIntStats | undefined;
        try {
          now = lstatSync(path, { bigint: true });
        } catch {
          now = undefined;
        }
        // Replaced while we waited: lock the file that is there now instead.
        if (now === undefined || now.ino !== target.ino || now.dev !== target.dev) {
          lock.release();
          continue;
        }
        return { ok: true, value: lock };
      }
      const found = inspect(lockPath);
      if (found === undefined) continue; // Released just now.
      if (found.holder === undefined || !holderIsAlive(found.holder)) {
        breakStale(lockPath, found.ino);
        continue;
      }
      if (Date.now() >= deadline) {
        const who =
          found.holder.pid === process.pid ? ' (another agent of this one)' : ` (pid ${found.holder.pid})`;
        return evidenceFailure(
          'FS_LOCKED',
          `${displayPath} is being modified by another toolhost process${who}, which did not finish within ${timeoutMs} ms`,
          { recovery: 'retry shortly; if it keeps failing, look for a stuck toolhost process' },
        );
      }
      await sleep(pause);
      pause = Math.min(pause * 2, MAX_PAUSE_MS);
    }
  }

  return { directory, acquire };
}

function heldLock(key: string, lockPath: string, ino: bigint): FileLock {
  let held = true;
  return {
    key,
    release() {
      if (!held) return;
      held = false;
      try {
        // Only our own lock file: a lock broken and retaken by someone else is theirs now.
        if (lstatSync(lockPath, { bigint: true }).ino === ino) unlinkSync(lockPath);
      } catch {
        // Already gone.
      }
    },
  };
}

function unusable(why: string): {
  readonly ok: false;
  readonly error: { code: 'EXECUTION_ERROR'; message: string; recovery: string };
} {
  return {
    ok: false,
    error: {
      code: 'EXECUTION_ERROR',
      message: `the per-user lock directory for file edits cannot be used (${why}), so the edit was not made`,
      recovery: 'fix or remove the toolhost-locks directory in the system temp directory, then retry',
    },
  };
}

let shared: FileLocks | undefined;

/** The process-wide file locks over {@link defaultLockDirectory} (what the builtins use by default). */
export function sharedFileLocks(): FileLocks {
  shared ??= createFileLocks();
  return shared;
}
