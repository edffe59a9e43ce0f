import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { ToolhostError } from '@toolhost/contracts';
import { processStartTime, writeFileAtomicSync } from '@toolhost/internal';

/** A session id: `ses_` + random characters for new sessions; a chosen id is 1-80 of `[A-Za-z0-9_-]`. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/;
/** Default retention of session directories: 7 days since their last activity. */
export const DEFAULT_SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Default disk budget of all session directories together: 2 GiB. */
export const DEFAULT_SESSIONS_MAX_BYTES = 2 * 1024 * 1024 * 1024;

const SNAPSHOT_FILE = 'snapshot.json';
const OWNER_FILE = 'owner.json';

/** A new session id: `ses_` + 20 lowercase base-32 characters (100 random bits). */
export function newSessionId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(20);
  let id = 'ses_';
  for (const byte of bytes) id += alphabet[byte & 31];
  return id;
}

/** `SESSION_INVALID` for an id that is not a session id (a path, empty, too long ...). */
export function checkSessionId(id: unknown): string {
  if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) {
    throw new ToolhostError({
      code: 'CONFIG_INVALID',
      message: 'options: session id: expected 1 to 80 letters, digits, "_" or "-" (such as ses_ab12...)',
      details: { source: 'options', field: 'sessionId' },
    });
  }
  return id;
}

/**
 * Creates the host's state directory (mode 0700) with a `.gitignore` holding `*`, so nothing the
 * host keeps (job logs, stored results, snapshots, caches) ever shows up in `git status`.
 */
export function ensureStateDir(stateDir: string): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const ignore = join(stateDir, '.gitignore');
  if (!existsSync(ignore)) {
    try {
      writeFileSync(ignore, '*\n', { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** The directory of one session under the host's state directory. */
export function sessionDir(stateDir: string, id: string): string {
  return join(stateDir, 'sessions', id);
}

/** Writes a session's snapshot atomically (temporary file, fsync, rename; mode 0600). */
export function writeSessionSnapshot(dir: string, snapshot: unknown): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, SNAPSHOT_FILE);
  writeFileAtomicSync(target, JSON.stringify(snapshot));
}

/** Reads a session's snapshot, or `undefined` when the session has none (never persisted, or gone). */
export function readSessionSnapshot(dir: string): unknown {
  let text: string;
  try {
    text = readFileSync(join(dir, SNAPSHOT_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as unknown;
}

interface OwnerRecord {
  readonly pid: number;
  readonly startTime: string | null;
}

function ownerAlive(owner: OwnerRecord): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // A reused pid has another start time.
  return owner.startTime === null || processStartTime(owner.pid) === owner.startTime;
}

/** Sessions open in this process, by directory: a second open of one of them is refused. */
const openInProcess = new Set<string>();

/**
 * Refuses with `SESSION_IN_USE` when a session directory is open in this process or claimed by
 * another live one. For a session that has no snapshot yet (a new session writes its first one at its
 * first state change): it exists, and is open, rather than not found.
 */
export function refuseIfSessionDirOpen(dir: string, id: string): void {
  if (openInProcess.has(dir)) throw sessionInUse(id);
  const owner = readOwner(join(dir, OWNER_FILE));
  if (owner && owner.pid !== process.pid && ownerAlive(owner)) throw sessionInUse(id);
}

/**
 * Marks a session directory as owned by this process (an `owner.json` with pid and start time).
 * Refuses with `SESSION_IN_USE` when this process or another live one has it open; the claim of a
 * process that is gone is taken over. Returns the release function.
 */
export function claimSessionDir(dir: string, id: string): () => void {
  if (openInProcess.has(dir)) throw sessionInUse(id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, OWNER_FILE);
  const owner = readOwner(file);
  if (owner && owner.pid !== process.pid && ownerAlive(owner)) throw sessionInUse(id);
  const mine: OwnerRecord = { pid: process.pid, startTime: processStartTime(process.pid) };
  writeFileSync(file, JSON.stringify(mine), { mode: 0o600 });
  openInProcess.add(dir);
  return () => {
    openInProcess.delete(dir);
    const current = readOwner(file);
    if (current?.pid === process.pid) rmSync(file, { force: true });
  };
}

function readOwner(file: string): OwnerRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<OwnerRecord>;
    return typeof parsed.pid === 'number'
      ? { pid: parsed.pid, startTime: typeof parsed.startTime === 'string' ? parsed.startTime : null }
      : undefined;
  } catch {
    return undefined;
  }
}

function sessionInUse(id: string): ToolhostError {
  return new ToolhostError({
    code: 'SESSION_IN_USE',
    message: `session ${id} is open in a running toolhost process`,
    recovery: 'close that process first, or start a new session',
    details: { sessionId: id },
  });
}

/** What {@link pruneSessions} removed. */
export interface PruneReport {
  readonly removed: readonly string[];
  readonly keptBytes: number;
}

/**
 * Removes session directories that no live process owns and that are older than `maxAgeMs`
 * (by their last activity) and then, oldest first, until all of them fit in `maxBytes`. A session
 * in use is never removed. Failures to remove one are skipped (reported by omission).
 */
export function pruneSessions(
  stateDir: string,
  options: { readonly maxAgeMs: number; readonly maxBytes: number; readonly now?: number },
): PruneReport {
  const root = join(stateDir, 'sessions');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return { removed: [], keptBytes: 0 };
  }
  const now = options.now ?? Date.now();
  const entries: { id: string; dir: string; lastActive: number; bytes: number; busy: boolean }[] = [];
  for (const id of names) {
    if (!SESSION_ID_PATTERN.test(id)) continue;
    const dir = join(root, id);
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (!stat.isDirectory()) continue;
    const owner = readOwner(join(dir, OWNER_FILE));
    const busy = openInProcess.has(dir) || (owner !== undefined && ownerAlive(owner));
    const usage = directoryUsage(dir);
    entries.push({ id, dir, lastActive: Math.max(stat.mtimeMs, usage.newest), bytes: usage.bytes, busy });
  }
  const removed: string[] = [];
  const remove = (entry: (typeof entries)[number]): boolean => {
    try {
      rmSync(entry.dir, { recursive: true, force: true });
      removed.push(entry.id);
      return true;
    } catch {
      return false;
    }
  };
  const survivors = entries.filter(
    (entry) => entry.busy || now - entry.lastActive <= options.maxAgeMs || !remove(entry),
  );
  let total = survivors.reduce((sum, entry) => sum + entry.bytes, 0);
  for (const entry of [...survivors].sort((a, b) => a.lastActive - b.lastActive)) {
    if (total <= options.maxBytes) break;
    if (entry.busy) continue;
    if (remove(entry)) total -= entry.bytes;
  }
  return { removed, keptBytes: total };
}

/** Bytes and the newest modification time under a directory (bounded: at most 100,000 entries). */
function directoryUsage(dir: string): { bytes: number; newest: number } {
  let bytes = 0;
  let newest = 0;
  let budget = 100_000;
  const walk = (current: string) => {
    let children: import('node:fs').Dirent[];
    try {
      children = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const child of children) {
      if (--budget < 0) return;
      const path = join(current, child.name);
      if (child.isDirectory()) walk(path);
      else {
        try {
          const stat = statSync(path);
          bytes += stat.size;
          newest = Math.max(newest, stat.mtimeMs);
        } catch {
          // gone meanwhile
        }
      }
    }
  };
  walk(dir);
  return { bytes, newest };
}
