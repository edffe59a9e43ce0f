import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** What {@link DirectoryWatcher.collect} saw since the previous collect. */
export interface DirectoryChanges {
  /** Watched directories in which something happened (an entry made, removed, renamed, changed). */
  readonly changed: ReadonlySet<string>;
  /** Directories whose watch started since the previous collect: later events in them are reported. */
  readonly started: readonly string[];
  /** Directories that could not be watched, or whose watch stopped: nothing is reported for them. */
  readonly failed: readonly string[];
  /**
   * Directories whose watch ended or may have: the directory itself was moved, removed or changed (an
   * inotify watch follows its inode, and dies with it even when a new directory takes the inode's
   * number), or it was not the directory expected when the watch was to be set up (replaced
   * meanwhile). Nothing more is reported for them until they are added again.
   */
  readonly lapsed: readonly string[];
}

/** A directory to watch: its path and the identity it had when it was read (the watch is set up on it or not at all). */
export interface WatchTarget {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

/** How long a collect waits for the watching thread before the caller looks at everything itself. */
const COLLECT_TIMEOUT_MS = 2000;

/**
 * Watchers alive in this process at most. Each holds a thread and an inotify instance, and Linux
 * allows a user 128 instances by default (shared with every other program of the user): past this
 * many, indexes look at every directory themselves, as they do without a watcher.
 */
const MAX_LIVE_WATCHERS = 8;
let live = 0;

/**
 * The watching thread, as CommonJS source (run with `eval`, so it needs no file next to the built
 * bundle). Its event loop owns an inotify instance of its own, so every event in that queue belongs to
 * one of its watches. libuv reads that queue until it is empty and runs every callback of what it
 * read before the loop turns, so the events delivered between two turns (a burst) are at least what
 * was queued when the burst began: the kernel drops events (its overflow event names no watch, and
 * libuv drops it silently) only when the queue holds its limit, so while no burst comes near that
 * limit nothing was dropped. A burst of a quarter of the limit (the margin covers events of watches
 * removed meanwhile, which libuv drops uncounted) makes the collect say `lost`. A watch is set up on
 * the directory that was read, never on whatever its path names a moment later: the thread opens the
 * path (not following a link), checks the device and inode it was given, and watches the open
 * directory through `/proc/self/fd/<n>/.`. Events that name the directory itself (libuv gives them the
 * watched path's last component, here `.`, which no entry can be called) mean it was moved, removed or
 * changed: the watch is ended and reported `lapsed`, so the caller looks at it and adds it again.
 * The barrier is a file in a private directory that
 * the collecting thread touches: inotify queues events in order, so once the thread has seen the
 * barrier's event it has seen every event queued before the touch.
 */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
let queueLimit = 16384;
if (workerData.queueLimit) queueLimit = workerData.queueLimit;
else try {
  const value = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
  if (Number.isFinite(value) && value > 0) queueLimit = value;
} catch {}
const watchers = new Map();
let changed = new Set();
let started = [];
let failed = [];
let lapsed = [];
let burst = 0;
let largestBurst = 0;
let turnPending = false;
let broken = false;
function counted() {
  burst += 1;
  if (!turnPending) {
    turnPending = true;
    setImmediate(() => {
      if (burst > largestBurst) largestBurst = burst;
      burst = 0;
      turnPending = false;
    });
  }
}
let barriers = 0;
const waiting = [];
function reply(id) {
  parentPort.postMessage({
    id,
    changed: [...changed],
    started,
    failed,
    lapsed,
    lost: broken || Math.max(largestBurst, burst) * 4 >= queueLimit,
  });
  changed = new Set();
  started = [];
  failed = [];
  lapsed = [];
  largestBurst = 0;
  broken = false;
}
function answerWaiting() {
  while (waiting.length > 0 && waiting[0].count <= barriers) reply(waiting.shift().id);
}
let barrier;
try {
  barrier = fs.watch(workerData.barrier, () => {
    // One event per collect, not counted in bursts (the margin covers it).
    barriers += 1;
    answerWaiting();
  });
  barrier.on('error', () => parentPort.postMessage({ fatal: 'the barrier watch failed' }));
} catch (error) {
  parentPort.postMessage({ fatal: 'the barrier directory cannot be watched: ' + (error && error.code) });
}
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;
function lapse(directory, watcher) {
  if (watchers.get(directory)?.watcher !== watcher) return;
  watcher.close();
  watchers.delete(directory);
  lapsed.push(directory);
}
function watch(target) {
  const directory = target.path;
  const existing = watchers.get(directory);
  if (existing) {
    // Still watched: the same directory is reported again; another one at that path is watched afresh.
    if (existing.dev === target.dev && existing.ino === target.ino) {
      started.push(directory);
      return;
    }
    existing.watcher.close();
    watchers.delete(directory);
  }
  let fd;
  try {
    fd = fs.openSync(directory, OPEN_FLAGS);
  } catch (error) {
    const code = error && error.code;
    // Gone, or a link or a file now: the caller's own look finds out; it adds it again if it returns.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') lapsed.push(directory);
    else failed.push(directory);
    return;
  }
  try {
    const stats = fs.fstatSync(fd);
    if (stats.dev !== target.dev || stats.ino !== target.ino) {
      lapsed.push(directory);
      return;
    }
    const watcher = fs.watch('/proc/self/fd/' + fd + '/.', (type, name) => {
      counted();
      changed.add(directory);
      if (name === '.') lapse(directory, watcher);
    });
    watcher.on('error', () => {
      watcher.close();
      if (watchers.get(directory)?.watcher === watcher) watchers.delete(directory);
      failed.push(directory);
      broken = true;
    });
    watchers.set(directory, { watcher, dev: target.dev, ino: target.ino });
    started.push(directory);
  } catch {
    failed.push(directory);
  } finally {
    fs.closeSync(fd);
  }
}
// Setting a watch up costs an open, an fstat and the watch itself: a project's first hundred
// thousand take seconds, so they go in slices between turns of the loop and a collect meanwhile is
// answered (with the watches set up so far; the caller keeps looking at the others itself).
const ADD_SLICE = 1024;
let pending = [];
let pendingAt = 0;
let pumping = false;
function pump() {
  pumping = false;
  const end = Math.min(pending.length, pendingAt + ADD_SLICE);
  while (pendingAt < end) watch(pending[pendingAt++]);
  if (pendingAt < pending.length) {
    pumping = true;
    setImmediate(pump);
  } else {
    pending = [];
    pendingAt = 0;
  }
}
parentPort.on('message', (message) => {
  if (message.add) {
    for (const target of message.add) pending.push(target);
    if (!pumping) pump();
  }
  if (message.remove) {
    for (const directory of message.remove) {
      const watched = watchers.get(directory);
      if (watched) {
        watched.watcher.close();
        watchers.delete(directory);
      }
    }
  }
  if (message.collect) {
    waiting.push({ id: message.id, count: message.count });
    answerWaiting();
  }
});
parentPort.postMessage({ ready: true });
`;

interface Reply {
  readonly id: number;
  readonly changed: string[];
  readonly started: string[];
  readonly failed: string[];
  readonly lapsed: string[];
  readonly lost: boolean;
}

/**
 * Tells which directories changed, so a refresh of the protected-path index looks at those instead of
 * every directory of the project (issue 25: a 100,000-file project costs no more per call than an
 * empty one). Linux inotify, through `fs.watch` in a thread of its own; a hint that is either complete
 * or says it is not:
 * - `collect` answers `undefined` whenever it cannot vouch for completeness (the thread is not ready
 *   yet, it failed, it did not answer in time, or a burst of events came near the kernel's queue
 *   limit, so an overflow may have dropped some); the caller then looks at every directory itself. A watcher
 *   that could not vouch once is closed: barrier counts after a possible overflow are not trusted.
 * - A directory is reported in `started` only once its watch exists; the caller keeps checking it by
 *   its change time until a check made after that.
 * Only for Linux (`fs.watch` elsewhere is not inotify and is not used here).
 */
export class DirectoryWatcher {
  readonly #barrierDirectory: string;
  readonly #barrierFiles: readonly [string, string];
  readonly #worker: Worker;
  #ready = false;
  #closed = false;
  #barriers = 0;
  #sequence = 0;
  readonly #pending = new Map<number, (reply: Reply | undefined) => void>();

  /** A watcher, or `undefined` when this process already runs its share of them or one cannot start. */
  static start(directoryPrefix: string, queueLimit?: number): DirectoryWatcher | undefined {
    if (process.platform !== 'linux' || live >= MAX_LIVE_WATCHERS) return undefined;
    try {
      return new DirectoryWatcher(directoryPrefix, queueLimit);
    } catch {
      return undefined;
    }
  }

  /** `directoryPrefix`: the private barrier directory is `<directoryPrefix>XXXXXX` (made, and removed on close). */
  private constructor(directoryPrefix: string, queueLimit: number | undefined) {
    mkdirSync(path.dirname(directoryPrefix), { recursive: true, mode: 0o700 });
    this.#barrierDirectory = mkdtempSync(directoryPrefix);
    this.#barrierFiles = [path.join(this.#barrierDirectory, '0'), path.join(this.#barrierDirectory, '1')];
    for (const file of this.#barrierFiles) writeFileSync(file, '', { mode: 0o600 });
    try {
      this.#worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { barrier: this.#barrierDirectory, queueLimit },
        // The thread needs none of the loaders or flags of the host's command line (a test runner's or
        // a TypeScript loader's `--import` would run in it too). Its heap holds one watcher per
        // directory: 64 MiB ran out near 80,000 directories (the thread died, so every refresh looked
        // at everything); 256 MiB is a ceiling, not a reservation.
        resourceLimits: { maxOldGenerationSizeMb: 256 },
        execArgv: [],
      });
    } catch (error) {
      rmSync(this.#barrierDirectory, { recursive: true, force: true });
      throw error;
    }
    live += 1;
    this.#worker.unref();
    this.#worker.on('message', (message: { ready?: boolean; fatal?: string } & Partial<Reply>) => {
      if (message.ready) {
        this.#ready = true;
        return;
      }
      if (message.fatal) {
        this.close();
        return;
      }
      const resolve = this.#pending.get(message.id!);
      if (!resolve) return;
      this.#pending.delete(message.id!);
      resolve(message as Reply);
    });
    this.#worker.on('error', () => this.close());
    this.#worker.on('exit', () => this.close());
  }

  /** Whether the watcher is still usable (not closed after a failure or by its owner). */
  get open(): boolean {
    return !this.#closed;
  }

  /** Whether the thread has started (collects before that answer `undefined` and change nothing). */
  get ready(): boolean {
    return this.#ready && !this.#closed;
  }

  /**
   * Starts watching directories (reported in `started` by a later collect), each only if its path
   * still names the directory of that device and inode (else it is reported in `lapsed`).
   */
  add(directories: readonly WatchTarget[]): void {
    if (!this.#closed && directories.length > 0) this.#worker.postMessage({ add: directories });
  }

  /** Stops watching directories. */
  remove(directories: readonly string[]): void {
    if (!this.#closed && directories.length > 0) this.#worker.postMessage({ remove: directories });
  }

  /**
   * Every change in a watched directory up to now (events queued before this call), or `undefined`
   * when the watcher cannot vouch for that (the caller must then look at every directory itself).
   */
  async collect(): Promise<DirectoryChanges | undefined> {
    if (this.#closed || !this.#ready) return undefined;
    this.#barriers += 1;
    try {
      const now = new Date();
      utimesSync(this.#barrierFiles[this.#barriers % 2]!, now, now);
    } catch {
      this.close();
      return undefined;
    }
    const id = ++this.#sequence;
    const answer = new Promise<Reply | undefined>((resolve) => {
      this.#pending.set(id, resolve);
    });
    // Referenced while an answer is awaited, so the process does not exit under a pending collect.
    this.#worker.ref();
    const timer = setTimeout(() => this.close(), COLLECT_TIMEOUT_MS);
    this.#worker.postMessage({ collect: true, id, count: this.#barriers });
    const reply = await answer;
    clearTimeout(timer);
    if (this.#pending.size === 0 && !this.#closed) this.#worker.unref();
    if (!reply || reply.lost) {
      this.close();
      return undefined;
    }
    return {
      changed: new Set(reply.changed),
      started: reply.started,
      failed: reply.failed,
      lapsed: reply.lapsed,
    };
  }

  /** Ends the thread and removes the barrier directory. Pending collects answer `undefined`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    live -= 1;
    for (const resolve of this.#pending.values()) resolve(undefined);
    this.#pending.clear();
    void this.#worker.terminate().catch(() => {});
    rmSync(this.#barrierDirectory, { recursive: true, force: true });
  }
}
