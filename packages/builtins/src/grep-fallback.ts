import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import picomatch from 'picomatch';
import {
  compileGlobLines,
  GLOBSET_LIKE,
  type GitignoreMatcher,
  type IgnoreLevel,
  isValidGlobLine,
  loadAncestorIgnoreLevels,
  loadIgnoreLevel,
  matchIgnoreLevels,
} from './discovery-ignore.js';
import { compareNames, joinRealPath } from './discovery-paths.js';
import type { GrepFile } from './grep-collector.js';
import {
  type FallbackWorkerConfig,
  type FallbackWorkerReply,
  type FileOutcome,
  fallbackWorkerSource,
} from './grep-fallback-worker.js';
import { GREP_FILE_TYPES } from './grep-file-types.js';
import { compileGrepRegex } from './grep-regex.js';
import {
  GREP_MAX_FILE_BYTES,
  type GrepSearch,
  type GrepSearchOutcome,
  hardExcludeGlobs,
} from './grep-search.js';

// The JS engine of `grep`, used when ripgrep is not installed. It mirrors ripgrep's rules so that
// results do not depend on which engine ran (the tests run every behaviour with both):
// - which files: the walk applies, in ripgrep's order, the `--glob` overrides (a matching glob
//   includes a file even when it is hidden or ignored), then .rgignore/.ignore/.gitignore/
//   .git/info/exclude files, then the `type` globs, then the hidden rule; symbolic links are not
//   followed; only regular files are searched; the search root itself is never filtered;
// - binary files: a walked file with a NUL byte in its first 64 KiB is skipped, one with a later
//   NUL is searched up to that block; a file named explicitly is searched with NULs as line breaks;
// - encodings: a UTF-8 BOM is dropped, UTF-16 with a BOM is decoded, anything else is read as UTF-8;
// - lines: `\n` and `\r\n` end lines (ripgrep `--crlf`); without `multiline`, a match never spans
//   lines; with it, matches that share a line form one match event, as ripgrep reports them.
// The walk and the path policy run here; reading and matching run in a worker thread
// (grep-fallback-worker.ts) that an abort terminates. Results are fed to the collector in walk order
// (sorted by name), so a cut by the limit is deterministic.

/** Files per request to the worker. */
const BATCH_FILES = 32;
/** Requests in flight; the walk runs ahead of the worker by at most this many batches. */
const BATCHES_IN_FLIGHT = 4;
/** Idle workers kept for the next search. */
const MAX_IDLE_WORKERS = 2;

interface FileFilter {
  readonly overrides: GitignoreMatcher;
  readonly typeMatcher: ((name: string) => boolean) | undefined;
  readonly includeHidden: boolean;
  readonly noIgnore: boolean;
}

class Aborted extends Error {}

let workerSource: string | undefined;
const idleWorkers: Worker[] = [];

function startWorker(source: string): Worker {
  // `execArgv: []`: the worker runs plain JavaScript and needs none of the parent's loaders.
  const worker = new Worker(source, { eval: true, execArgv: [] });
  // An idle worker that fails or exits simply leaves the pool (sessions add their own listeners).
  const drop = () => {
    const index = idleWorkers.indexOf(worker);
    if (index >= 0) idleWorkers.splice(index, 1);
  };
  worker.on('error', drop);
  worker.on('exit', drop);
  return worker;
}

/**
 * One search's worker: taken from the idle pool (or started), referenced while in use so the
 * process waits for it, and returned unreferenced, or terminated when the search was aborted or the
 * worker failed (a terminated worker stops even inside a runaway regex).
 */
class WorkerSession {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (outcomes: readonly FileOutcome[]) => void; reject: (error: Error) => void }
  >();
  private broken = false;

  constructor(config: FallbackWorkerConfig) {
    workerSource ??= fallbackWorkerSource();
    this.worker = idleWorkers.pop() ?? startWorker(workerSource);
    this.worker.ref();
    this.worker.on('message', this.onMessage);
    this.worker.on('error', this.onError);
    this.worker.on('exit', this.onExit);
    this.worker.postMessage(config);
  }

  search(files: ReadonlyArray<{ path: string; explicit: boolean }>): Promise<readonly FileOutcome[]> {
    if (this.broken) return Promise.reject(new Aborted());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'search', id, files });
    });
  }

  /** Stops the worker now; every waiting request fails. */
  abort(): void {
    this.fail(new Aborted());
    void this.worker.terminate();
  }

  /** Returns the worker to the pool when it is healthy and idle, else terminates it. */
  async close(): Promise<void> {
    this.worker.off('message', this.onMessage);
    this.worker.off('error', this.onError);
    this.worker.off('exit', this.onExit);
    if (!this.broken && this.waiting.size === 0 && idleWorkers.length < MAX_IDLE_WORKERS) {
      this.worker.unref();
      idleWorkers.push(this.worker);
      return;
    }
    this.fail(new Aborted());
    await this.worker.terminate();
  }

  private readonly onMessage = (reply: FallbackWorkerReply) => {
    const waiter = this.waiting.get(reply.id);
    if (waiter === undefined) return;
    this.waiting.delete(reply.id);
    waiter.resolve(reply.outcomes);
  };

  private readonly onError = (error: Error) => this.fail(error);

  private readonly onExit = () => this.fail(new Error('the search worker stopped'));

  private fail(error: Error): void {
    this.broken = true;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

/** Runs one search with the JS engine. Never throws for a search problem; see {@link GrepSearchOutcome}. */
export async function runGrepFallback(search: GrepSearch): Promise<GrepSearchOutcome> {
  const compiled = compileGrepRegex(search);
  if (!compiled.ok) return { ok: false, reason: 'pattern', problem: compiled.problem };
  let typeMatcher: ((name: string) => boolean) | undefined;
  if (search.type !== undefined) {
    const globs = Object.hasOwn(GREP_FILE_TYPES, search.type) ? GREP_FILE_TYPES[search.type] : undefined;
    if (globs === undefined) return { ok: false, reason: 'type', problem: 'unknown file type' };
    typeMatcher = picomatch([...globs], GLOBSET_LIKE);
  }
  if (search.glob !== undefined && !isValidGlobLine(search.glob)) {
    return { ok: false, reason: 'glob', problem: 'the glob is not a valid glob pattern' };
  }
  if (search.signal.aborted) return { ok: false, reason: 'aborted', problem: 'the search was stopped' };
  const filter: FileFilter = {
    overrides: compileGlobLines([
      ...(search.glob === undefined ? [] : [search.glob]),
      ...hardExcludeGlobs(search.noIgnore),
    ]),
    typeMatcher,
    includeHidden: search.includeHidden,
    noIgnore: search.noIgnore,
  };
  const session = new WorkerSession({
    type: 'configure',
    source: compiled.regex.source,
    flags: compiled.regex.flags,
    multiline: search.multiline,
    mode: search.mode,
    context: search.context,
    // No file needs more events than the whole search may show.
    perFileCap: search.collector.options.limit + 1,
    maxFileBytes: GREP_MAX_FILE_BYTES,
  });
  const onAbort = () => session.abort();
  search.signal.addEventListener('abort', onAbort, { once: true });
  let unreadable = 0;
  const pending: Array<Promise<readonly FileOutcome[]>> = [];
  let stopped = false;
  // Feeds the oldest batch's outcomes, in walk order.
  const settle = async (): Promise<void> => {
    const outcomes = await pending.shift()!;
    if (search.signal.aborted) throw new Aborted();
    for (const outcome of outcomes) {
      if (outcome.kind === 'unreadable') unreadable += 1;
      else if (outcome.kind === 'searched' && !feed(search, outcome)) {
        stopped = true;
        return;
      }
    }
  };
  try {
    if (search.rootIsFile) {
      pending.push(session.search([{ path: search.root, explicit: true }]));
      await settle();
      return { ok: true, unreadable };
    }
    const walk = walkFiles(search, filter);
    let batch: Array<{ path: string; explicit: boolean }> = [];
    for await (const file of walk) {
      batch.push({ path: file, explicit: false });
      if (batch.length < BATCH_FILES) continue;
      pending.push(session.search(batch));
      batch = [];
      if (pending.length >= BATCHES_IN_FLIGHT) await settle();
      if (stopped) break;
    }
    if (!stopped && batch.length > 0) pending.push(session.search(batch));
    while (pending.length > 0 && !stopped) await settle();
    unreadable += walk.unreadableDirectories();
    return { ok: true, unreadable };
  } catch (error) {
    if (error instanceof Aborted || search.signal.aborted) {
      return { ok: false, reason: 'aborted', problem: 'the search was stopped' };
    }
    return { ok: false, reason: 'failed', problem: error instanceof Error ? error.message : String(error) };
  } finally {
    search.signal.removeEventListener('abort', onAbort);
    // Requests still in flight after a stop finish (or fail, after an abort) before the worker is
    // returned, so no work outlives the call.
    await Promise.allSettled(pending);
    await session.close();
  }
}

/** Feeds one file's results to the collector; false when the collector wants no more. */
function feed(search: GrepSearch, outcome: Extract<FileOutcome, { kind: 'searched' }>): boolean {
  const { collector, policy } = search;
  const file: GrepFile = collector.openFile(policy.displayPathOf(outcome.path));
  if (search.mode !== 'content') return collector.fileResult(file, outcome.count);
  for (const event of outcome.events) {
    const more =
      event.kind === 'match'
        ? collector.match(file, event.line, event.texts)
        : collector.contextLine(file, event.line, event.text);
    if (!more) return false;
  }
  return true;
}

interface FileWalk extends AsyncIterable<string> {
  unreadableDirectories(): number;
}

interface WalkFrame {
  readonly directory: string;
  readonly entries: Dirent[];
  readonly level: IgnoreLevel | undefined;
  index: number;
}

/** Walks the regular files below the search root depth-first, siblings in name order. */
function walkFiles(search: GrepSearch, filter: FileFilter): FileWalk & AsyncIterator<string> {
  let unreadable = 0;
  const root = search.root;
  const stack: WalkFrame[] = [];
  let started = false;

  const openDirectory = async (directory: string, parent: IgnoreLevel | undefined): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      unreadable += 1;
      return;
    }
    const level = filter.noIgnore
      ? undefined
      : await loadIgnoreLevel(directory, parent, new Set(entries.map((entry) => entry.name)));
    entries.sort((left, right) => compareNames(left.name, right.name));
    stack.push({ directory, entries, level, index: 0 });
  };

  const iterator = {
    unreadableDirectories: () => unreadable,
    [Symbol.asyncIterator]() {
      return iterator;
    },
    async next(): Promise<IteratorResult<string>> {
      if (!started) {
        started = true;
        const ancestors = filter.noIgnore ? undefined : await loadAncestorIgnoreLevels(root);
        await openDirectory(root, ancestors);
      }
      for (;;) {
        if (search.signal.aborted) throw new Aborted();
        const frame = stack[stack.length - 1];
        if (frame === undefined) return { done: true, value: undefined };
        const entry = frame.entries[frame.index++];
        if (entry === undefined) {
          stack.pop();
          continue;
        }
        const isDirectory = entry.isDirectory();
        if (!isDirectory && !entry.isFile()) continue; // symbolic links, sockets, devices
        const absolute = joinRealPath(frame.directory, entry.name);
        const relative = absolute.slice(root.length + 1);
        if (!includes(filter, frame.level, absolute, relative, entry.name, isDirectory)) continue;
        if (!search.policy.allows(absolute, isDirectory ? 'list' : 'read')) continue;
        if (isDirectory) {
          await openDirectory(absolute, frame.level);
          continue;
        }
        return { done: false, value: absolute };
      }
    },
    async return(): Promise<IteratorResult<string>> {
      stack.length = 0;
      return { done: true, value: undefined };
    },
  };
  return iterator;
}

/** ripgrep's decision for one walked entry (the `ignore` crate's `Ignore::matched`, in order). */
function includes(
  filter: FileFilter,
  level: IgnoreLevel | undefined,
  absolute: string,
  relative: string,
  name: string,
  isDirectory: boolean,
): boolean {
  // Overrides (`--glob`) first: a glob is an ignore-file line whose meaning is inverted.
  const override = filter.overrides.match(relative, isDirectory);
  if (override === 'ignore') return true;
  if (override === 'whitelist') return false;
  if (filter.overrides.ignoreRuleCount > 0 && !isDirectory) return false;
  let whitelisted = false;
  if (!filter.noIgnore) {
    const ignored = matchIgnoreLevels(level, absolute, isDirectory);
    if (ignored === 'ignore') return false;
    if (ignored === 'whitelist') whitelisted = true;
  }
  if (filter.typeMatcher !== undefined && !isDirectory) {
    if (!filter.typeMatcher(name)) return false;
    whitelisted = true;
  }
  if (!whitelisted && !filter.includeHidden && name.startsWith('.')) return false;
  return true;
}
