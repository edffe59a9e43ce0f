import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '@toolhost/contracts';
import {
  compileGlobLines,
  GLOBSET_LIKE,
  type IgnoreLevel,
  ignoreLevelFromTexts,
  isValidGlobLine,
  loadAncestorIgnoreLevels,
} from '../discovery/discovery-ignore.js';
import { comparePaths, joinRealPath } from '../discovery/discovery-paths.js';
import type { GrepFile } from './grep-collector.js';
import {
  type DirectoryChunk,
  type DirectoryItem,
  type DirectoryTask,
  type FallbackWorkerConfig,
  type FallbackWorkerReply,
  type FileOutcome,
  fallbackWorkerSource,
  type LevelRequest,
} from './grep-fallback-worker.js';
import { GREP_FILE_TYPES } from './grep-file-types.js';
import { requiredLiterals } from './grep-literals.js';
import { compileGrepRegex } from './grep-regex.js';
import { compileLinearGlob, type GlobProgram } from '@toolhost/path-policy';
import {
  GREP_MAX_FILE_BYTES,
  type GrepSearch,
  type GrepSearchOutcome,
  hardExcludeGlobs,
} from './grep-search.js';
import { type WalkFilterSpec, type WireLevel, wireLevel, wireMatcher } from './grep-walk-filter.js';

// The JS engine of `grep`, used when ripgrep is not installed. It mirrors ripgrep's rules so that
// results do not depend on which engine ran (the tests run every behaviour with both):
// - which files: in ripgrep's order, the `--glob` overrides (a matching glob includes a file even
//   when it is hidden or ignored), then .rgignore/.ignore/.gitignore/.git/info/exclude files, then
//   the `type` globs, then the hidden rule (grep-walk-filter.ts); symbolic links are not followed;
//   only regular files are searched; the search root itself is never filtered;
// - binary files: a walked file with a NUL byte in its first 64 KiB is skipped, one with a later
//   NUL is searched up to that block; a file named explicitly is searched with NULs as line breaks;
// - encodings: a UTF-8 BOM is dropped, UTF-16 with a BOM is decoded, anything else is read as UTF-8;
// - lines: `\n` and `\r\n` end lines (ripgrep `--crlf`); without `multiline`, a match never spans
//   lines; with it, matches that share a line form one match event, as ripgrep reports them.
//
// Walking, reading and matching run in a pool of worker threads, one per core
// (grep-fallback-worker.ts), fed from one queue of directories kept here in walk order. This
// thread compiles ignore files, applies the path policy, and puts the per-directory results back
// into walk order (a depth-first walk, siblings by name) before feeding the collector, so the
// output and a cut by the limit are the same whichever worker found what. The path policy is
// applied to what the workers report, as for ripgrep: a worker may read a file the policy refuses
// (a secret file), but nothing of it is kept or shown, and a refused directory's results are
// dropped with it.
//
// Stopping: when the collector has enough (limit or output budget), a shared flag tells the
// workers to stop at their next file; a worker that does not answer within STOP_GRACE_MS (a
// runaway regex) is terminated. An abort (the call's signal: a cancel or the host's timeout)
// terminates every worker of the search at once. Either way no work outlives the call.

/** Workers of one search: one per core, as ripgrep sizes its thread pool. */
const POOL_SIZE = Math.max(1, Math.min(availableParallelism(), 8));
/** Jobs queued at a worker, so it never waits for this thread between two. */
const JOBS_PER_WORKER = 2;
/** Directories handed out in one job. */
const DIRECTORIES_PER_JOB = 16;
/** A job's work units (a directory, or a 64 KiB block of a file) when others may soon go hungry. */
const SMALL_BUDGET = 24;
/** ... and when the queue holds plenty for everyone. */
const LARGE_BUDGET = 384;
/** Walked directories held for the ordered merge; past this, no new job starts while one runs. */
const MAX_BUFFERED_DIRECTORIES = 8192;
/** How long stopped workers have to finish their current file before they are terminated. */
const STOP_GRACE_MS = 250;

class Aborted extends Error {}

let workerSource: string | undefined;
const idleWorkers: Worker[] = [];
const counts = { started: 0, exited: 0, inUse: 0 };

function startWorker(): Worker {
  workerSource ??= fallbackWorkerSource();
  // `execArgv: []`: the worker runs plain JavaScript and needs none of the parent's loaders.
  const worker = new Worker(workerSource, { eval: true, execArgv: [] });
  counts.started += 1;
  // An idle worker that fails or exits simply leaves the pool (searches add their own listeners).
  const drop = () => {
    const index = idleWorkers.indexOf(worker);
    if (index >= 0) idleWorkers.splice(index, 1);
  };
  worker.on('error', drop);
  worker.on('exit', () => {
    counts.exited += 1;
    drop();
  });
  return worker;
}

/**
 * The JS engine's worker threads right now (for tests and diagnostics): `started` and `exited`
 * count since the process began, `idle` are kept unreferenced for the next search, `inUse` belong
 * to a running search. Live threads are `started - exited`.
 */
export function grepFallbackWorkerCounts(): {
  readonly started: number;
  readonly exited: number;
  readonly idle: number;
  readonly inUse: number;
} {
  return { started: counts.started, exited: counts.exited, idle: idleWorkers.length, inUse: counts.inUse };
}

/** Options of {@link runGrepFallback} beyond the search (for tests). */
export interface GrepFallbackOptions {
  /** Test raw bytes for a required literal before decoding (default true); false decodes and matches every file. */
  readonly prefilter?: boolean;
  /**
   * Work units per job instead of the adaptive sizes; 1 makes every job walk one directory and
   * hand its subdirectories back to the queue (the most shuffling between workers).
   */
  readonly jobBudget?: number;
}

/** Runs one search with the JS engine. Never throws for a search problem; see {@link GrepSearchOutcome}. */
export async function runGrepFallback(
  search: GrepSearch,
  options: GrepFallbackOptions = {},
): Promise<GrepSearchOutcome> {
  const compiled = compileGrepRegex(search);
  if (!compiled.ok) return { ok: false, reason: 'pattern', problem: compiled.problem };
  let typeGlobs: WalkFilterSpec['typeGlobs'] = null;
  if (search.type !== undefined) {
    const globs = Object.hasOwn(GREP_FILE_TYPES, search.type) ? GREP_FILE_TYPES[search.type] : undefined;
    if (globs === undefined) return { ok: false, reason: 'type', problem: 'unknown file type' };
    // As picomatch's matcher: a name equal to the glob, or one the glob matches.
    const compiledTypes: Array<{ glob: string; program: GlobProgram }> = [];
    for (const glob of globs) {
      const compiled = compileLinearGlob(glob, { dot: GLOBSET_LIKE.dot, extglob: false });
      if (compiled.ok) compiledTypes.push({ glob, program: compiled.value.program });
    }
    typeGlobs = compiledTypes;
  }
  if (search.glob !== undefined && !isValidGlobLine(search.glob)) {
    return { ok: false, reason: 'glob', problem: 'the glob is not a valid glob pattern' };
  }
  if (search.signal.aborted) return { ok: false, reason: 'aborted', problem: 'the search was stopped' };
  const overrides = compileGlobLines([
    ...(search.glob === undefined ? [] : [search.glob]),
    ...hardExcludeGlobs(search.noIgnore),
  ]);
  const prefilter =
    options.prefilter === false ? undefined : requiredLiterals(compiled.regex.source, compiled.regex.flags);
  const config: FallbackWorkerConfig = {
    type: 'configure',
    source: compiled.regex.source,
    flags: compiled.regex.flags,
    multiline: search.multiline,
    mode: search.mode,
    context: search.context,
    // No file needs more events than the whole search may show.
    perFileCap: search.collector.options.limit + 1,
    maxFileBytes: GREP_MAX_FILE_BYTES,
    prefilter: prefilter ?? null,
    filter: {
      root: search.root,
      overrides: wireMatcher(overrides) ?? [],
      typeGlobs,
      includeHidden: search.includeHidden,
      noIgnore: search.noIgnore,
    },
    stop: new SharedArrayBuffer(4),
  };
  return new FallbackSearch(search, config, options.jobBudget).run();
}

interface SessionWorker {
  readonly worker: Worker;
  /** Jobs sent and not yet answered with their final reply. */
  outstanding: number;
  /** How many of the search's levels it has been sent. */
  levelsSent: number;
  readonly onMessage: (reply: FallbackWorkerReply) => void;
  readonly onError: (error: Error) => void;
  readonly onExit: () => void;
}

/** A walked directory's entries received so far. */
interface DirectoryState {
  readonly items: DirectoryItem[];
  /** Its last chunk arrived. */
  done: boolean;
  unreadable: boolean;
}

interface CursorFrame {
  readonly path: string;
  readonly state: DirectoryState;
  index: number;
}

type Ending =
  | { readonly kind: 'complete' }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'failed'; readonly problem: string };

/** One search: the workers it holds, the queue of directories, and the ordered merge. */
class FallbackSearch {
  private readonly workers: SessionWorker[] = [];
  private readonly queue = new DirectoryQueue();
  /** Walked directories not yet merged through, by path. */
  private readonly results = new Map<string, DirectoryState>();
  private readonly cursor: CursorFrame[] = [];
  private rootMerged = false;
  /** The path of the directory the merge waits for, once the policy allowed it. */
  private allowedDirectory: string | undefined;
  /** Every ignore level of the search as data (index = id) and as objects. */
  private readonly levels: WireLevel[] = [];
  private readonly levelObjects: Array<IgnoreLevel> = [];
  private readonly stopFlag: Int32Array;
  private unreadable = 0;
  private nextJobId = 0;
  private outstanding = 0;
  private ending: Ending | undefined;
  private finish: (() => void) | undefined;
  private drained: (() => void) | undefined;

  constructor(
    private readonly search: GrepSearch,
    private readonly config: FallbackWorkerConfig,
    private readonly jobBudget: number | undefined,
  ) {
    this.stopFlag = new Int32Array(config.stop);
  }

  async run(): Promise<GrepSearchOutcome> {
    const { search } = this;
    const ended = new Promise<void>((resolve) => {
      this.finish = resolve;
    });
    const onAbort = () => this.end({ kind: 'aborted' });
    search.signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (search.rootIsFile) {
        this.searchOneFile();
      } else {
        const ancestors = search.noIgnore ? undefined : await loadAncestorIgnoreLevels(search.root);
        if (search.signal.aborted) throw new Aborted();
        this.queue.push({ path: search.root, level: this.levelIdOf(ancestors), resolved: false });
        this.pump();
      }
      await ended;
    } catch (error) {
      this.end(
        error instanceof Aborted ? { kind: 'aborted' } : { kind: 'failed', problem: errorMessage(error) },
      );
    } finally {
      search.signal.removeEventListener('abort', onAbort);
      await this.release();
    }
    const ending = this.ending!;
    if (ending.kind === 'aborted' || search.signal.aborted) {
      return { ok: false, reason: 'aborted', problem: 'the search was stopped' };
    }
    if (ending.kind === 'failed') return { ok: false, reason: 'failed', problem: ending.problem };
    return { ok: true, unreadable: this.unreadable };
  }

  /** Ends the search (the first ending wins); an abort or a failure terminates the workers now. */
  private end(ending: Ending): void {
    if (this.ending !== undefined) return;
    this.ending = ending;
    Atomics.store(this.stopFlag, 0, 1);
    if (ending.kind === 'aborted' || ending.kind === 'failed') {
      for (const member of this.workers) void member.worker.terminate();
    }
    this.finish?.();
  }

  private searchOneFile(): void {
    const member = this.addWorker();
    member.outstanding += 1;
    this.outstanding += 1;
    member.worker.postMessage({ type: 'file', id: this.nextJobId++, path: this.search.root });
  }

  // --- workers ---------------------------------------------------------------------------------

  /** Takes an idle worker (or starts one), configured for this search. */
  private addWorker(): SessionWorker {
    const worker = idleWorkers.pop() ?? startWorker();
    counts.inUse += 1;
    worker.ref();
    const member: SessionWorker = {
      worker,
      outstanding: 0,
      levelsSent: 0,
      onMessage: (reply) => this.onReply(member, reply),
      onError: (error) => this.end({ kind: 'failed', problem: error.message }),
      onExit: () => this.end({ kind: 'failed', problem: 'a search worker stopped' }),
    };
    worker.on('message', member.onMessage);
    worker.on('error', member.onError);
    worker.on('exit', member.onExit);
    worker.postMessage(this.config);
    this.workers.push(member);
    return member;
  }

  /**
   * Returns the workers: after a stop, those still busy get STOP_GRACE_MS to see the stop flag
   * and answer; the healthy idle ones go back to the pool, every other one is terminated (and
   * has exited when this returns).
   */
  private async release(): Promise<void> {
    const ending = this.ending!;
    const terminateAll = ending.kind === 'aborted' || ending.kind === 'failed';
    if (!terminateAll && this.outstanding > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          this.drained = resolve;
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, STOP_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    const exits: Array<Promise<unknown>> = [];
    for (const member of this.workers) {
      const { worker } = member;
      worker.off('message', member.onMessage);
      worker.off('error', member.onError);
      worker.off('exit', member.onExit);
      counts.inUse -= 1;
      if (!terminateAll && member.outstanding === 0 && idleWorkers.length < POOL_SIZE) {
        worker.unref();
        idleWorkers.push(worker);
      } else {
        exits.push(worker.terminate());
      }
    }
    this.workers.length = 0;
    await Promise.allSettled(exits);
  }

  /** Sends jobs while there are directories queued and workers with room, adding workers up to the pool size. */
  private pump(): void {
    while (this.ending === undefined && this.queue.size > 0) {
      if (this.results.size > MAX_BUFFERED_DIRECTORIES && this.outstanding > 0) return;
      let target: SessionWorker | undefined;
      for (const member of this.workers) {
        if (member.outstanding < JOBS_PER_WORKER && (!target || member.outstanding < target.outstanding))
          target = member;
      }
      // Another worker when none of this search's is free: a pooled one costs nothing, a new thread
      // takes tens of milliseconds to start, so only for a backlog (or the first).
      const noneFree = target === undefined || target.outstanding > 0;
      const worthIt = this.workers.length === 0 || idleWorkers.length > 0 || this.queue.size > 1;
      if (noneFree && worthIt && this.workers.length < POOL_SIZE) target = this.addWorker();
      if (target === undefined) return;
      // Spread what is queued over the free job slots; small jobs when the queue runs short, so
      // that the directories a job does not reach come back soon for the others.
      const freeSlots = this.freeSlots();
      const directories = this.queue.take(
        Math.min(DIRECTORIES_PER_JOB, Math.ceil(this.queue.size / freeSlots)),
      );
      const budget = this.jobBudget ?? (this.queue.size >= freeSlots ? LARGE_BUDGET : SMALL_BUDGET);
      const levels = this.levels.slice(target.levelsSent);
      target.levelsSent = this.levels.length;
      target.outstanding += 1;
      this.outstanding += 1;
      target.worker.postMessage({ type: 'walk', id: this.nextJobId++, levels, directories, budget });
    }
  }

  private freeSlots(): number {
    let free = (POOL_SIZE - this.workers.length) * JOBS_PER_WORKER;
    for (const member of this.workers) free += JOBS_PER_WORKER - member.outstanding;
    return Math.max(1, free);
  }

  private onReply(member: SessionWorker, reply: FallbackWorkerReply): void {
    if (reply.kind !== 'partial') {
      member.outstanding -= 1;
      this.outstanding -= 1;
      if (this.outstanding === 0) this.drained?.();
    }
    if (this.ending !== undefined) return;
    if (reply.kind === 'file') {
      this.mergeFile(reply.outcome);
      return;
    }
    for (const chunk of reply.chunks) this.addChunk(chunk);
    if (reply.kind === 'done') {
      const { policy } = this.search;
      for (const task of reply.pending) if (policy.allows(task.path, 'list')) this.queue.push(task);
      for (const request of reply.levelRequests) this.compileLevel(request);
    }
    this.merge();
    this.pump();
  }

  // --- ignore levels ---------------------------------------------------------------------------

  /** The id of a level chain's deepest level (registering the chain), -1 for none. */
  private levelIdOf(level: IgnoreLevel | undefined): number {
    if (level === undefined) return -1;
    const known = this.levelObjects.indexOf(level);
    if (known >= 0) return known;
    const parent = this.levelIdOf(level.parent);
    const id = this.levels.length;
    this.levels.push(wireLevel(level, id, parent));
    this.levelObjects.push(level);
    return id;
  }

  /** Compiles a directory's ignore files (as loadIgnoreLevel would) and queues it again with its level. */
  private compileLevel(request: LevelRequest): void {
    const root = request.path === this.search.root;
    if (!root && !this.search.policy.allows(request.path, 'list')) return;
    const parent = request.parent < 0 ? undefined : this.levelObjects[request.parent];
    const level = ignoreLevelFromTexts(request.path, parent, {
      rgignore: request.rgignore ?? undefined,
      ignore: request.ignore ?? undefined,
      gitignore: request.gitignore ?? undefined,
      exclude: request.exclude ?? undefined,
      hasGit: request.hasGit,
    });
    this.queue.push({ path: request.path, level: this.levelIdOf(level), resolved: true });
  }

  // --- the ordered merge -----------------------------------------------------------------------

  private addChunk(chunk: DirectoryChunk): void {
    let state = this.results.get(chunk.path);
    if (state === undefined) {
      state = { items: [], done: false, unreadable: false };
      this.results.set(chunk.path, state);
    }
    for (const item of chunk.items) state.items.push(item);
    state.done ||= chunk.done;
    state.unreadable ||= chunk.unreadable;
  }

  /** Merges results in walk order as far as they reach, feeding the collector. */
  private merge(): void {
    const { policy, root } = this.search;
    for (;;) {
      const frame = this.cursor[this.cursor.length - 1];
      if (frame === undefined) {
        if (this.rootMerged) {
          this.end({ kind: 'complete' });
          return;
        }
        const state = this.results.get(root);
        if (state === undefined) return;
        this.rootMerged = true;
        this.cursor.push({ path: root, state, index: 0 });
        continue;
      }
      const item = frame.state.items[frame.index];
      if (item === undefined) {
        // The rest of this directory is still to come.
        if (!frame.state.done) return;
        if (frame.state.unreadable) this.unreadable += 1;
        this.results.delete(frame.path);
        this.cursor.pop();
        continue;
      }
      const absolute = joinRealPath(frame.path, item.name);
      if (item.directory) {
        if (this.allowedDirectory !== absolute) {
          if (!policy.allows(absolute, 'list')) {
            frame.index += 1;
            continue;
          }
          this.allowedDirectory = absolute;
        }
        const state = this.results.get(absolute);
        if (state === undefined) return;
        frame.index += 1;
        this.cursor.push({ path: absolute, state, index: 0 });
        continue;
      }
      frame.index += 1;
      if (!policy.allows(absolute, 'read')) continue;
      if (!this.mergeOutcome(absolute, item.outcome)) return;
    }
  }

  private mergeFile(outcome: FileOutcome): void {
    if (this.mergeOutcome(this.search.root, outcome)) this.end({ kind: 'complete' });
  }

  /** Feeds one file's results; false when the search has ended (the collector wants no more). */
  private mergeOutcome(path: string, outcome: FileOutcome): boolean {
    if (outcome.kind === 'unreadable') {
      this.unreadable += 1;
      return true;
    }
    if (outcome.kind !== 'searched') return true;
    const { collector, policy, mode } = this.search;
    const file: GrepFile = collector.openFile(policy.displayPathOf(path));
    let more = true;
    if (mode !== 'content') {
      more = collector.fileResult(file, outcome.count);
    } else {
      for (const event of outcome.events) {
        more =
          event.kind === 'match'
            ? collector.match(file, event.line, event.texts)
            : collector.contextLine(file, event.line, event.text);
        if (!more) break;
      }
    }
    if (!more) this.end({ kind: 'stopped' });
    return more;
  }
}

/** Directories waiting for a worker, handed out in walk order (a binary heap on the path order). */
class DirectoryQueue {
  private readonly heap: DirectoryTask[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(task: DirectoryTask): void {
    const { heap } = this;
    heap.push(task);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (comparePaths(heap[parent]!.path, heap[index]!.path) <= 0) break;
      [heap[parent], heap[index]] = [heap[index]!, heap[parent]!];
      index = parent;
    }
  }

  /** Removes and returns up to `count` of the earliest directories, in walk order. */
  take(count: number): DirectoryTask[] {
    const taken: DirectoryTask[] = [];
    while (taken.length < count && this.heap.length > 0) taken.push(this.pop());
    return taken;
  }

  private pop(): DirectoryTask {
    const { heap } = this;
    const first = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let index = 0;
      for (;;) {
        const left = index * 2 + 1;
        const right = left + 1;
        let smallest = index;
        if (left < heap.length && comparePaths(heap[left]!.path, heap[smallest]!.path) < 0) smallest = left;
        if (right < heap.length && comparePaths(heap[right]!.path, heap[smallest]!.path) < 0)
          smallest = right;
        if (smallest === index) break;
        [heap[smallest], heap[index]] = [heap[index]!, heap[smallest]!];
        index = smallest;
      }
    }
    return first;
  }
}
