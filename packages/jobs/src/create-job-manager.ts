import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { incompleteUtf8Tail, leadingContinuationBytes } from '@toolhost/internal';
import { onExit } from 'signal-exit';
import { diskIsFull, freeDiskBytes, isDiskFullError, totalDiskBytes } from './disk-space.js';
import { createJobEnvironment, type JobEnvironmentOptions } from './job-environment.js';
import { type JobError, type JobResult, jobError } from './job-error.js';
import { type LineFilter, logSize, readLogBytes, scanLogLines } from './job-log.js';
import { JobRegistry, killJobProcessesNow, type ReapedOrphan } from './job-registry.js';
import { readProcessStartTime } from './process-table.js';
import { JOB_MARKER_VARIABLE, type JobProcessSelector, terminateJobProcesses } from './process-tree.js';
import {
  createSandbox,
  type JobGuard,
  normalizeSandboxOptions,
  type QuarantinedEntry,
  removePlaceholder,
  type Sandbox,
  type SandboxMode,
  type SandboxOptions,
} from './sandbox.js';
import { buildShellInvocation, type JobShell, type ShellExecutables } from './shell-invocation.js';
import { type SpawnedJob, spawnJob } from './spawn-job.js';

/**
 * A job's state. `killed`: stopped on request (a kill, a timeout, an abort, the output limit);
 * `interrupted`: stopped because its manager closed; `failed`: a non-zero exit or a signal nobody here
 * sent; `done`: exit code 0.
 */
export type JobState = 'running' | 'done' | 'failed' | 'killed' | 'interrupted';

/** Why a job ended. */
export type JobEndReason = 'exit' | 'signal' | 'killed' | 'timeout' | 'aborted' | 'output_limit' | 'closed';

/** A point-in-time copy of a job's facts. */
export interface JobSnapshot {
  /** `<shell>-<n>`, one counter across shells. */
  readonly id: string;
  readonly shell: JobShell;
  readonly command: string;
  /** A short human label: the given one, else the command's first line (at most 80 characters). */
  readonly label: string;
  /** The real working directory. */
  readonly cwd: string;
  readonly background: boolean;
  readonly state: JobState;
  readonly endReason?: JobEndReason;
  /** The free-text reason given to {@link JobManager.kill}. */
  readonly killReason?: string;
  /** The exit code, when the process exited (inside bubblewrap a signal death shows as 128 + n). */
  readonly exitCode?: number;
  /** The terminating signal, when the process was killed by one. */
  readonly signal?: string;
  readonly pid?: number;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly durationMs?: number;
  /** Bytes written to the log so far (stdout and stderr, merged in arrival order). */
  readonly outputBytes: number;
  /** The full log (mode 0600). */
  readonly logPath: string;
  /** The log was deleted to keep finished logs within `maxRetainedLogBytes`; reads return nothing. */
  readonly logRemoved?: boolean;
  readonly sandbox: SandboxMode;
  /**
   * Whether a pid namespace held the job's processes (SB-6, JOB-TREE-5): then nothing it started can
   * outlive it. False without a working bubblewrap (and on macOS and Windows), where processes that
   * leave the job's group are found by the job's marker only.
   */
  readonly contained: boolean;
  /** Why the job is not contained, when it is not (value-free). */
  readonly containment?: string;
  /**
   * The job failed while the file system holding its log was full (its output could not be
   * written): report `DISK_FULL` rather than a failed command with no output (JOB-DISK-1).
   */
  readonly diskFull?: boolean;
  /**
   * Facts the model should be told about the run, for example a protected path the command created
   * that was moved to the quarantine (SB-13), or that the job's log reached the disk budget.
   */
  readonly notes: readonly string[];
}

/** Options of {@link JobManager.start}. */
export interface StartJobOptions {
  readonly shell: JobShell;
  readonly command: string;
  /** The working directory (an existing directory; real path or not). */
  readonly cwd: string;
  readonly label?: string;
  /** A background job is announced by {@link JobManager.drainCompletionNotes} when it ends unseen. */
  readonly background?: boolean;
  /** Kill the job after this long (state `killed`, reason `timeout`). Default: no timeout. */
  readonly timeoutMs?: number;
  /** Kill the job when this fires (state `killed`, reason `aborted`). */
  readonly signal?: AbortSignal;
}

/** New output since the previous read, from {@link JobManager.readNew}. */
export interface JobOutputChunk {
  readonly text: string;
  /** Log offsets the read covered: `[fromOffset, toOffset)`. */
  readonly fromOffset: number;
  readonly toOffset: number;
  /** New bytes not returned because they exceeded `maxBytes` (the oldest are skipped). */
  readonly skippedBytes: number;
  /** With a filter: how many new lines matched, and how many matches were dropped to fit `maxBytes`. */
  readonly matchedLines?: number;
  readonly droppedLines?: number;
  /** The job as it was before the read (so a terminal state means the output read is complete). */
  readonly snapshot: JobSnapshot;
}

/** A bounded view of a whole log, from {@link JobManager.output}. */
export interface JobOutputExcerpt {
  /** The head and tail, joined; the whole output when it fits. */
  readonly head: string;
  readonly tail: string;
  readonly totalBytes: number;
  /** Bytes left out between head and tail (0 when the whole output fits). */
  readonly omittedBytes: number;
  /** Where the omitted bytes start in the log. */
  readonly omittedOffset: number;
  readonly snapshot: JobSnapshot;
}

/** Bytes `[offset, offset + length)` of a log, from {@link JobManager.readLog}. */
export interface JobLogRange {
  readonly bytes: Buffer<ArrayBufferLike>;
  readonly offset: number;
  readonly nextOffset: number;
  readonly totalBytes: number;
  /** Whether the range reached the end of a log that will not grow any more. */
  readonly complete: boolean;
}

/** Options of {@link createJobManager}. */
export interface JobManagerOptions {
  /** The OS sandbox (mode, roots, protected paths, network). */
  readonly sandbox: SandboxOptions;
  /**
   * Where logs and the live-job registry go (created with mode 0700). Pass a stable directory such as
   * `<root>/.toolhost/jobs` so the next start reaps the orphans of a crashed host. Default: a private
   * temporary directory, removed by {@link JobManager.close}.
   */
  readonly stateDir?: string;
  /** Jobs running at once, at most. Default 64. */
  readonly maxLiveJobs?: number;
  /** The default window of {@link JobManager.readNew} and {@link JobManager.output}. Default 64 KiB. */
  readonly tailBytes?: number;
  /** Time between SIGTERM and SIGKILL when a job is stopped. Default 2000 ms. */
  readonly killGraceMs?: number;
  /** Stop a job whose log grows past this many bytes (reason `output_limit`); `null` never. Default 2 GiB. */
  readonly maxLogBytes?: number | null;
  /**
   * Disk budget for all job logs of this manager, running and finished (JOB-DISK-2): when they
   * exceed it, finished logs are deleted oldest first, then running jobs whose log exceeds their share
   * (the budget divided among the running jobs) are stopped (reason `output_limit`, with a note); what
   * they wrote so far stays readable. Checked every 250 ms while jobs run. Default 4 GiB.
   */
  readonly maxTotalLogBytes?: number;
  /**
   * Stop the job whose log grew most once the file system of the state directory has less than this
   * many bytes free (JOB-DISK-2), so a job's output never fills the disk. Default 256 MiB (or 1% of
   * the file system, whichever is smaller); 0 turns it off.
   */
  readonly minFreeDiskBytes?: number;
  /** Finished jobs remembered (with their logs); the oldest are forgotten first. Default 256. */
  readonly maxRetainedJobs?: number;
  /**
   * Disk budget for the logs of finished jobs: past it, the oldest finished jobs' logs are deleted
   * (the jobs stay known, with `logRemoved`). Default 4 GiB.
   */
  readonly maxRetainedLogBytes?: number;
  /** Which host variables jobs see besides the allowlist, and which to set. */
  readonly environment?: JobEnvironmentOptions;
  /** Shell executables. */
  readonly shells?: ShellExecutables;
  /** Keep the log files when the manager closes. Default false. */
  readonly retainLogs?: boolean;
  /** The environment jobs are derived from. Default `process.env`. */
  readonly hostEnvironment?: NodeJS.ProcessEnv;
}

/** Runs shell commands as jobs; see {@link createJobManager}. */
export interface JobManager {
  /** The effective sandbox mode. */
  readonly sandboxMode: SandboxMode;
  /** The state directory (logs, registry). */
  readonly stateDir: string;
  /** Orphans of crashed hosts killed when this manager started. */
  readonly reapedOrphans: readonly ReapedOrphan[];
  /** Whether {@link JobManager.close} was called. */
  readonly closed: boolean;
  /**
   * Starts a command. Resolves once the process is running (or could not be started).
   * Errors: `SANDBOX_UNAVAILABLE` (nothing spawned), `JOB_LIMIT_REACHED`, `FS_NOT_FOUND`,
   * `NOT_A_DIRECTORY` (working directory), `EXECUTION_ERROR` (closed manager, empty command, the
   * shell could not be started).
   */
  start(options: StartJobOptions): Promise<JobResult<JobSnapshot>>;
  get(id: string): JobSnapshot | undefined;
  /** Every remembered job, oldest first. */
  list(): JobSnapshot[];
  /**
   * Waits until the job has ended and its processes are gone, or until `timeoutMs` / `signal`;
   * waiting never kills. Errors: `JOB_NOT_FOUND`.
   */
  wait(
    id: string,
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<JobResult<{ snapshot: JobSnapshot; timedOut: boolean }>>;
  /**
   * Returns the output written since the previous `readNew` of this job and advances its cursor (one
   * cursor per job). At most `maxBytes` (default `tailBytes`) are returned: the newest; the skipped
   * count says how many were left out. With `filter`, the whole new range is scanned line by line
   * and only matching lines are kept (the newest `maxBytes` of them). Errors: `JOB_NOT_FOUND`.
   */
  readNew(
    id: string,
    options?: { maxBytes?: number; filter?: LineFilter },
  ): Promise<JobResult<JobOutputChunk>>;
  /**
   * A bounded excerpt of the whole log: the first `headBytes` and the last `tailBytes` (defaults: a
   * quarter and three quarters of `tailBytes`). With `consume`, the read cursor moves to the end.
   */
  output(
    id: string,
    options?: { headBytes?: number; tailBytes?: number; consume?: boolean },
  ): JobResult<JobOutputExcerpt>;
  /** Reads any byte range of a job's log. Errors: `JOB_NOT_FOUND`. */
  readLog(id: string, options: { offset: number; length: number }): JobResult<JobLogRange>;
  /**
   * Stops a running job: its state becomes `killed` at once, and its process tree is torn down in the
   * background (SIGTERM, the grace period, SIGKILL). A job that is not running is left as it is
   * (`wasRunning: false`). Errors: `JOB_NOT_FOUND`.
   */
  kill(id: string, options?: { reason?: string }): JobResult<{ wasRunning: boolean; snapshot: JobSnapshot }>;
  /**
   * The background jobs that ended since the last drain and whose final state nobody has read yet,
   * as one note for the next turn ("Background job updates since your last message: ..."), or
   * `undefined` when there is nothing to say. Each job is announced at most once.
   */
  drainCompletionNotes(): string | undefined;
  /**
   * Stops every running job (state `interrupted`), waits until their processes are gone, removes the
   * placeholders it created and, unless `retainLogs`, the logs (and a default state directory).
   */
  close(): Promise<void>;
}

interface JobRecord {
  readonly id: string;
  readonly shell: JobShell;
  readonly command: string;
  readonly label: string;
  readonly cwd: string;
  readonly background: boolean;
  readonly logPath: string;
  readonly startedAt: number;
  readonly selector: JobProcessSelector;
  readonly helperNames: readonly string[];
  readonly notes: string[];
  readonly release: () => void;
  readonly contained: boolean;
  readonly containment: string | undefined;
  readonly guard: JobGuard | undefined;
  /** Where bubblewrap writes its info (the namespace's init), removed once read. */
  readonly infoFile: string | undefined;
  /** Whether the registry holds an entry for it (uncontained jobs only). */
  readonly registered: boolean;
  diskFull?: boolean;
  /** Log size at the previous watcher tick (for the free-space floor). */
  watchedBytes: number;
  state: JobState;
  endReason?: JobEndReason;
  killReason?: string;
  exitCode?: number;
  signal?: string;
  endedAt?: number;
  finalBytes?: number;
  cursor: number;
  /** The log was deleted to keep finished logs within their disk budget. */
  logRemoved?: boolean;
  /** Whether someone has read the final state (then no completion note is due). */
  reported: boolean;
  terminating?: Promise<unknown>;
  settled: Promise<void>;
  cleanup: () => void;
}

const DEFAULTS = {
  maxLiveJobs: 64,
  tailBytes: 64 * 1024,
  killGraceMs: 2000,
  maxLogBytes: 2 * 1024 ** 3,
  maxTotalLogBytes: 4 * 1024 ** 3,
  minFreeDiskBytes: 256 * 1024 ** 2,
  maxRetainedJobs: 256,
  maxRetainedLogBytes: 4 * 1024 ** 3,
};

/** Managers with running jobs, killed synchronously if the host process exits without closing them. */
const openManagers = new Set<() => void>();
let removeExitHook: (() => void) | undefined;

function trackManager(killAll: () => void): () => void {
  openManagers.add(killAll);
  removeExitHook ??= onExit(() => {
    for (const kill of openManagers) kill();
  });
  return () => {
    openManagers.delete(killAll);
    if (openManagers.size === 0) {
      removeExitHook?.();
      removeExitHook = undefined;
    }
  };
}

/**
 * The note that tells the model what the check after its command did (SB-13). Paths are shown
 * relative to the root they lie in (never the root's absolute path); the quarantine place is named
 * for the person, since the state directory is out of the model's reach.
 */
function describeQuarantine(entry: QuarantinedEntry, roots: readonly string[]): string {
  const shown = displayOf(entry.path, roots);
  if (entry.movedTo) {
    return `the command created or changed ${shown}, a protected path (a repository, a hook, the host's configuration) that commands may not write; it was moved into the host's quarantine (${displayOf(entry.movedTo, roots)}) so that nothing outside the sandbox (git, the next toolhost run) acts on it; a person may move it back after checking it`;
  }
  return `the command created or changed ${shown}, a protected path that commands may not write, and it could not be moved away (${entry.reason ?? 'error'}); ask the user to delete it before running git or toolhost outside the sandbox`;
}

/** A path relative to the root that holds it (`./` for a root itself), else as it is. */
function displayOf(target: string, roots: readonly string[]): string {
  for (const root of roots) {
    const rel = path.relative(root, target);
    if (rel === '') return '.';
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  }
  return target;
}

function diskFull(): { ok: false; error: JobError } {
  return jobError(
    'DISK_FULL',
    'the file system holding the job logs (the state directory) is full, so no command output can be recorded; the command was not run',
  );
}

function labelOf(command: string, label: string | undefined): string {
  const text = (label?.trim() || command.trim().split('\n')[0] || '').replace(/\s+/g, ' ');
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * Creates a job manager: runs shell commands (bash, PowerShell) in their OS sandbox as jobs that
 * cannot hang the host, leak processes or escape the run's sandbox mode (requirements JOB-* and SB-* in REQUIREMENTS.md).
 *
 * Guarantees:
 * - each command gets stdin from `/dev/null` and its own process group and session; its stdout and
 *   stderr go straight into one append-only log file (mode 0600) in arrival order, so the host holds
 *   no pipe (a grandchild keeping stdout open cannot delay completion) and its memory does not grow
 *   with the output;
 * - stopping a job (kill, timeout, abort, close) kills its whole tree: descendants, group, session and
 *   every process carrying the job's random environment marker (so `setsid` escapees too), SIGTERM
 *   first and SIGKILL after `killGraceMs`; when the main process exits, what it left behind is
 *   stopped the same way (inside bubblewrap the kernel does it: the sandbox has its own pid namespace);
 * - live jobs are recorded in `<stateDir>/live`; creating a manager reaps the jobs of hosts that
 *   died, checking pid, start time and command line so a reused pid is never touched;
 * - the environment is an allowlist (see `createJobEnvironment`);
 * - `read_only` and `workspace_write` run inside bubblewrap (Linux) or Seatbelt (macOS), probed once;
 *   when no sandbox works, `start` fails with `SANDBOX_UNAVAILABLE` and spawns nothing.
 *
 * Throws a `TypeError` for invalid options (unknown sandbox mode, a missing root).
 */
export function createJobManager(options: JobManagerOptions): JobManager {
  const settings = {
    maxLiveJobs: options.maxLiveJobs ?? DEFAULTS.maxLiveJobs,
    tailBytes: options.tailBytes ?? DEFAULTS.tailBytes,
    killGraceMs: options.killGraceMs ?? DEFAULTS.killGraceMs,
    maxLogBytes: options.maxLogBytes === undefined ? DEFAULTS.maxLogBytes : options.maxLogBytes,
    maxTotalLogBytes: options.maxTotalLogBytes ?? DEFAULTS.maxTotalLogBytes,
    minFreeDiskBytes: options.minFreeDiskBytes ?? DEFAULTS.minFreeDiskBytes,
    maxRetainedJobs: options.maxRetainedJobs ?? DEFAULTS.maxRetainedJobs,
    maxRetainedLogBytes: options.maxRetainedLogBytes ?? DEFAULTS.maxRetainedLogBytes,
  };
  for (const [name, value] of Object.entries(settings)) {
    const minimum = name === 'killGraceMs' || name === 'minFreeDiskBytes' ? 0 : 1;
    if (value !== null && (!Number.isInteger(value) || value < minimum)) {
      throw new TypeError(`jobs: ${name} must be a positive integer`);
    }
  }
  // Validate the sandbox before anything is created on disk.
  normalizeSandboxOptions(options.sandbox);
  const ownsStateDir = options.stateDir === undefined;
  const stateDir = ownsStateDir
    ? mkdtempSync(path.join(os.tmpdir(), 'toolhost-jobs-'))
    : path.resolve(options.stateDir!);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const realStateDir = realpathSync.native(stateDir);
  const logsDir = path.join(realStateDir, 'logs');
  mkdirSync(logsDir, { recursive: true, mode: 0o700 });
  const registry = new JobRegistry(realStateDir);
  let sandbox: Sandbox;
  try {
    sandbox = createSandbox(options.sandbox, realStateDir, registry.logPrefix);
  } catch (error) {
    if (ownsStateDir) rmSync(realStateDir, { recursive: true, force: true });
    throw error;
  }
  const reapedOrphans = registry.reapOrphans(removePlaceholder);
  const hostEnvironment = options.hostEnvironment ?? process.env;

  const jobs = new Map<string, JobRecord>();
  const completions: JobRecord[] = [];
  let counter = 0;
  let pendingStarts = 0;
  let closed = false;
  let placeholderCount = 0;
  let watcher: NodeJS.Timeout | undefined;

  // The process is exiting without close(): kill synchronously, check what the killed jobs left in
  // the roots, and drop a private state directory.
  const killAllNow = () => {
    const endedAt = Date.now();
    for (const job of jobs.values()) {
      if (job.endedAt !== undefined) continue;
      killJobProcessesNow(job.selector);
      if (job.infoFile) rmSync(job.infoFile, { force: true });
    }
    for (const job of jobs.values()) {
      if (job.endedAt !== undefined || !job.guard) continue;
      try {
        sandbox.checkAfterJobSync({ id: job.id, guard: job.guard, startedAt: job.startedAt, endedAt });
      } catch {
        // Exiting: nothing more can be done.
      }
    }
    sandbox.dispose(registry.placeholdersInUseByOthers());
    registry.recordPlaceholders([]);
    registry.removeHost();
    if (ownsStateDir && !options.retainLogs) rmSync(realStateDir, { recursive: true, force: true });
  };
  const untrack = trackManager(killAllNow);

  const liveCount = () => {
    let count = pendingStarts;
    for (const job of jobs.values()) if (job.endedAt === undefined) count += 1;
    return count;
  };

  const snapshot = (job: JobRecord): JobSnapshot => {
    const outputBytes = job.finalBytes ?? logSize(job.logPath);
    return {
      id: job.id,
      shell: job.shell,
      command: job.command,
      label: job.label,
      cwd: job.cwd,
      background: job.background,
      state: job.state,
      ...(job.endReason ? { endReason: job.endReason } : {}),
      ...(job.killReason ? { killReason: job.killReason } : {}),
      ...(job.exitCode !== undefined ? { exitCode: job.exitCode } : {}),
      ...(job.signal ? { signal: job.signal } : {}),
      pid: job.selector.rootPid,
      startedAt: job.startedAt,
      ...(job.endedAt !== undefined ? { endedAt: job.endedAt, durationMs: job.endedAt - job.startedAt } : {}),
      outputBytes,
      logPath: job.logPath,
      ...(job.logRemoved ? { logRemoved: true } : {}),
      sandbox: sandbox.mode,
      contained: job.contained,
      ...(job.containment ? { containment: job.containment } : {}),
      ...(job.diskFull ? { diskFull: true } : {}),
      notes: [...job.notes],
    };
  };

  const stop = (
    job: JobRecord,
    state: 'killed' | 'interrupted',
    reason: JobEndReason,
    killReason?: string,
  ) => {
    if (job.state !== 'running') return false;
    job.state = state;
    job.endReason = reason;
    if (killReason) job.killReason = killReason;
    job.terminating = terminateJobProcesses(job.selector, {
      graceMs: settings.killGraceMs,
      spareOnTerm: job.helperNames,
    });
    return true;
  };

  /**
   * The log watcher (JOB-OUT-4, JOB-DISK-2): output goes straight to disk, so the only way to cap it
   * is to look at the logs' sizes. Every tick it stops a job past `maxLogBytes`, keeps all logs within
   * `maxTotalLogBytes` (finished logs go first, then the running jobs past their share) and stops the
   * job that grew most when the file system is nearly full. It also lets the sandbox look for outside
   * changes while jobs run.
   */
  const watchLogs = () => {
    const running = [...jobs.values()].filter((job) => job.state === 'running');
    if (running.length === 0) {
      if (watcher) clearInterval(watcher);
      watcher = undefined;
      return;
    }
    sandbox.refreshSoon();
    const sizes = new Map(running.map((job) => [job, logSize(job.logPath)] as const));
    for (const [job, size] of sizes) {
      if (settings.maxLogBytes !== null && size > settings.maxLogBytes) {
        stop(job, 'killed', 'output_limit');
        sizes.delete(job);
      }
    }
    let live = 0;
    for (const size of sizes.values()) live += size;
    if (live + retainedLogBytes() > settings.maxTotalLogBytes) {
      pruneFinished(settings.maxTotalLogBytes - live);
      if (live > settings.maxTotalLogBytes) {
        const share = Math.floor(settings.maxTotalLogBytes / sizes.size);
        for (const [job, size] of sizes) {
          if (size <= share) continue;
          const note = `the job was stopped because the logs of this session reached their disk budget (${settings.maxTotalLogBytes} bytes; its share was ${share}); the ${size} bytes it wrote so far stay readable`;
          job.notes.push(note);
          stop(job, 'killed', 'output_limit', note);
        }
      }
    }
    if (settings.minFreeDiskBytes > 0) {
      const free = freeDiskBytes(logsDir);
      const floor = Math.min(settings.minFreeDiskBytes, Math.floor((totalDiskBytes(logsDir) ?? 0) / 100));
      if (free !== undefined && free < floor) {
        let grower: JobRecord | undefined;
        let growth = 0;
        for (const [job, size] of sizes) {
          if (job.state !== 'running') continue;
          if (size - job.watchedBytes > growth) {
            growth = size - job.watchedBytes;
            grower = job;
          }
        }
        if (grower) {
          const note = `the job was stopped because the file system holding the job logs has less than ${floor} bytes free; the ${sizes.get(grower)} bytes it wrote so far stay readable`;
          grower.notes.push(note);
          stop(grower, 'killed', 'output_limit', note);
        }
      }
    }
    for (const [job, size] of sizes) job.watchedBytes = size;
  };

  const ensureWatcher = () => {
    if (watcher) return;
    watcher = setInterval(watchLogs, 250);
    watcher.unref();
  };

  const retainedLogBytes = () => {
    let retained = 0;
    for (const job of jobs.values())
      if (job.finalBytes !== undefined && !job.logRemoved) retained += job.finalBytes;
    return retained;
  };

  const forget = (job: JobRecord) => {
    jobs.delete(job.id);
    rmSync(job.logPath, { force: true });
  };

  /** Forgets the oldest finished jobs past the count, then deletes finished logs past `logBudget`. */
  const pruneFinished = (logBudget = settings.maxRetainedLogBytes) => {
    // The common case, after every job: nothing to forget or delete. One pass without allocations
    // (a session keeps up to maxRetainedJobs finished jobs, and this runs at the end of each).
    const budgetNow = Math.max(0, Math.min(logBudget, settings.maxRetainedLogBytes));
    let finishedCount = 0;
    let retainedNow = 0;
    for (const job of jobs.values()) {
      if (job.finalBytes === undefined) continue;
      finishedCount += 1;
      if (!job.logRemoved) retainedNow += job.finalBytes;
    }
    if (finishedCount <= settings.maxRetainedJobs && retainedNow <= budgetNow) return;
    const finished = [...jobs.values()].filter((job) => job.finalBytes !== undefined);
    const excess = finished.length - settings.maxRetainedJobs;
    // Jobs whose final state was read go first; the rest only when the count demands it.
    const order = [...finished.filter((job) => job.reported), ...finished.filter((job) => !job.reported)];
    for (const job of order.slice(0, Math.max(0, excess))) forget(job);
    const budget = Math.max(0, Math.min(logBudget, settings.maxRetainedLogBytes));
    let retained = 0;
    for (const job of finished) if (!job.logRemoved && jobs.has(job.id)) retained += job.finalBytes!;
    for (const job of order) {
      if (retained <= budget) break;
      if (job.logRemoved || !jobs.has(job.id)) continue;
      rmSync(job.logPath, { force: true });
      job.logRemoved = true;
      retained -= job.finalBytes!;
    }
  };

  const lookup = (id: string): JobRecord | undefined =>
    typeof id === 'string' ? jobs.get(id.trim()) : undefined;
  const notFound = (): { ok: false; error: JobError } => {
    const known = [...jobs.keys()].slice(-10);
    return jobError(
      'JOB_NOT_FOUND',
      known.length > 0
        ? `no background job has that id (known jobs: ${known.join(', ')})`
        : 'no background job has that id (no jobs were started in this session)',
    );
  };

  const manager: JobManager = {
    get sandboxMode() {
      return sandbox.mode;
    },
    stateDir: realStateDir,
    reapedOrphans,
    get closed() {
      return closed;
    },

    async start(start) {
      if (closed)
        return jobError('EXECUTION_ERROR', 'background jobs are not available: the job manager is closed');
      if (start.shell !== 'bash' && start.shell !== 'pwsh')
        return jobError('EXECUTION_ERROR', 'unknown shell');
      if (typeof start.command !== 'string' || start.command.trim() === '') {
        return jobError('EXECUTION_ERROR', 'the command is empty');
      }
      if (closed)
        return jobError('EXECUTION_ERROR', 'background jobs are not available: the job manager is closed');
      if (start.signal?.aborted)
        return jobError('EXECUTION_ERROR', 'the call was cancelled before the command started');
      let cwd: string;
      try {
        cwd = realpathSync.native(start.cwd);
        if (!statSync(cwd).isDirectory())
          return jobError('NOT_A_DIRECTORY', 'the working directory is not a directory');
      } catch {
        return jobError('FS_NOT_FOUND', 'the working directory does not exist');
      }
      if (liveCount() >= settings.maxLiveJobs) {
        return jobError(
          'JOB_LIMIT_REACHED',
          `${settings.maxLiveJobs} jobs are already running, the most this session allows; wait for one to finish or kill one first`,
        );
      }
      if (diskIsFull(logsDir)) return diskFull();
      pendingStarts += 1;
      let launchResult: Awaited<ReturnType<Sandbox['wrap']>>;
      const invocation = buildShellInvocation(start.shell, start.command, options.shells);
      try {
        launchResult = await sandbox.wrap(invocation, cwd, hostEnvironment.PATH);
      } catch (error) {
        pendingStarts -= 1;
        return jobError(
          'SANDBOX_UNAVAILABLE',
          `the sandbox could not be prepared: ${(error as Error).message}`,
        );
      }
      if (!launchResult.ok) {
        pendingStarts -= 1;
        return launchResult;
      }
      const launch = launchResult.value;
      if (closed) {
        pendingStarts -= 1;
        launch.release();
        return jobError('EXECUTION_ERROR', 'background jobs are not available: the job manager is closed');
      }
      try {
        const placeholders = sandbox.placeholders();
        if (placeholders.length !== placeholderCount) {
          placeholderCount = placeholders.length;
          registry.recordPlaceholders(placeholders);
        }
        registry.recordHost(logsDir);
      } catch (error) {
        pendingStarts -= 1;
        launch.release();
        if (isDiskFullError(error)) return diskFull();
        throw error;
      }
      counter += 1;
      const id = `${start.shell}-${counter}`;
      // One draw for both: the log name's random part (4 bytes) and the marker (16 bytes).
      const random = randomBytes(20).toString('hex');
      const logPath = path.join(logsDir, `${registry.logPrefix}.${id}.${random.slice(0, 8)}.log`);
      const marker = random.slice(8);
      const environment = {
        ...createJobEnvironment(hostEnvironment, options.environment),
        ...invocation.env,
        ...launch.env,
        [JOB_MARKER_VARIABLE]: marker,
      };
      let fd: number;
      try {
        // O_EXCL: never append to (or through a link into) a file that was already there.
        fd = openSync(
          logPath,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND,
          0o600,
        );
      } catch (error) {
        pendingStarts -= 1;
        launch.release();
        if (isDiskFullError(error)) return diskFull();
        return jobError(
          'EXECUTION_ERROR',
          `the job log could not be created: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
        );
      }
      const startedAt = Date.now();
      const infoFile = launch.infoFd ? `${logPath}.info` : undefined;
      let spawned: SpawnedJob;
      try {
        spawned = spawnJob({
          file: launch.file,
          args: launch.args,
          cwd,
          env: environment,
          output: fd,
          infoFile,
        });
      } finally {
        // The child holds its own copy of the descriptor; the host keeps none open.
        closeSync(fd);
        pendingStarts -= 1;
      }
      const pid = spawned.pid;
      if (pid === undefined) {
        const reason = (await spawned.spawnError) ?? 'spawn failure';
        launch.release();
        rmSync(logPath, { force: true });
        return jobError('EXECUTION_ERROR', `the shell could not be started (${reason})`);
      }
      const selector: JobProcessSelector = { rootPid: pid, rootStartTime: readProcessStartTime(pid), marker };
      // A contained job dies with this host (bubblewrap's --die-with-parent, the pid namespace): only
      // the others need an entry for the next manager to reap (JOB-REG-1).
      let registered = false;
      if (!launch.contained) {
        try {
          registry.recordJob({ jobId: id, pid, marker, logPath });
          registered = true;
        } catch {
          // A full disk: the job runs anyway; the exit hook still kills it with this host.
        }
      }
      let resolveSettled!: () => void;
      const job: JobRecord = {
        id,
        shell: start.shell,
        command: start.command,
        label: labelOf(start.command, start.label),
        cwd,
        background: start.background === true,
        logPath,
        startedAt,
        selector,
        helperNames: launch.helperNames,
        notes: [...launch.notes],
        release: launch.release,
        contained: launch.contained,
        containment: launch.containment,
        guard: launch.guard,
        infoFile,
        registered,
        watchedBytes: 0,
        state: 'running',
        cursor: 0,
        reported: false,
        settled: new Promise<void>((resolve) => {
          resolveSettled = resolve;
        }),
        cleanup: () => {},
      };
      jobs.set(id, job);
      const timer =
        start.timeoutMs !== undefined && start.timeoutMs > 0
          ? setTimeout(() => stop(job, 'killed', 'timeout'), start.timeoutMs)
          : undefined;
      const onAbort = () => stop(job, 'killed', 'aborted');
      start.signal?.addEventListener('abort', onAbort, { once: true });
      job.cleanup = () => {
        if (timer) clearTimeout(timer);
        start.signal?.removeEventListener('abort', onAbort);
      };
      ensureWatcher();
      void spawned.exited.then(async (result) => {
        job.cleanup();
        job.endedAt = Date.now();
        if (typeof result.exitCode === 'number') job.exitCode = result.exitCode;
        if (result.signal) job.signal = result.signal;
        if (job.state === 'running') {
          job.state = result.exitCode === 0 ? 'done' : 'failed';
          job.endReason = result.signal ? 'signal' : 'exit';
        }
        // Looked at once the command has failed, before anything here frees or takes space.
        if (job.state === 'failed' && diskIsFull(logsDir)) job.diskFull = true;
        // Whatever the main process left behind (a daemon, a `setsid` child) ends with the job. In a
        // pid namespace the kernel has done it already: when the sandbox's init exited it killed
        // everything left and waited for it, before bubblewrap (the main process) could exit. Only an
        // uncontained job needs the scan of the process table (JOB-TREE-3).
        await job.terminating;
        // bubblewrap exits as soon as its init reports the command's exit, a moment before the init
        // has killed the rest of the namespace: wait for the init to be gone (JOB-TREE-3).
        const initPid = job.contained ? spawned.namespaceInit() : undefined;
        // Gone already (no start time to read) means the namespace is empty; a pid reused since would
        // only make this wait for a stranger, up to the deadline, and then scan.
        const initStart = initPid === undefined ? undefined : liveStartTime(initPid);
        const emptied =
          initPid !== undefined &&
          (initStart === undefined || (await processGone(initPid, initStart, 10_000)));
        if (!emptied) {
          await terminateJobProcesses(selector, {
            graceMs: settings.killGraceMs,
            spareOnTerm: job.helperNames,
          });
        }
        if (job.guard) {
          try {
            const moved = await sandbox.checkAfterJob({
              id,
              guard: job.guard,
              startedAt: job.startedAt,
              endedAt: job.endedAt,
            });
            job.notes.push(...moved.map((entry) => describeQuarantine(entry, options.sandbox.roots)));
          } catch (error) {
            job.notes.push(
              `the check for protected paths this command may have created failed (${(error as NodeJS.ErrnoException).code ?? 'error'}); look for new .git directories before running git outside the sandbox`,
            );
          }
        } else {
          sandbox.refreshSoon();
        }
        job.finalBytes = logSize(logPath);
        job.release();
        if (job.registered) registry.removeJob(id);
        if (job.background && !job.reported && !closed) completions.push(job);
        resolveSettled();
        pruneFinished();
      });
      return { ok: true, value: snapshot(job) };
    },

    get(id) {
      const job = lookup(id);
      return job ? snapshot(job) : undefined;
    },

    list() {
      return [...jobs.values()].map(snapshot);
    },

    async wait(id, waitOptions = {}) {
      const job = lookup(id);
      if (!job) return notFound();
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const stopped = new Promise<boolean>((resolve) => {
        if (waitOptions.timeoutMs !== undefined)
          timer = setTimeout(() => resolve(true), waitOptions.timeoutMs);
        if (waitOptions.signal) {
          onAbort = () => resolve(true);
          if (waitOptions.signal.aborted) resolve(true);
          else waitOptions.signal.addEventListener('abort', onAbort, { once: true });
        }
      });
      const timedOut = await Promise.race([job.settled.then(() => false), stopped]);
      if (timer) clearTimeout(timer);
      if (onAbort) waitOptions.signal?.removeEventListener('abort', onAbort);
      return { ok: true, value: { snapshot: snapshot(job), timedOut } };
    },

    async readNew(id, readOptions = {}) {
      const job = lookup(id);
      if (!job) return notFound();
      const maxBytes = readOptions.maxBytes ?? settings.tailBytes;
      // The state first: when it is final, everything the job wrote is already in the log.
      const before = snapshot(job);
      const final = job.finalBytes !== undefined;
      const size = logSize(job.logPath);
      const fromOffset = Math.min(job.cursor, size);
      let toOffset = size;
      if (readOptions.filter) {
        const scan = await scanLogLines(job.logPath, {
          start: fromOffset,
          end: toOffset,
          filter: readOptions.filter,
          maxBytes,
        });
        job.cursor = toOffset;
        if (final) job.reported = true;
        return {
          ok: true,
          value: {
            text: scan.text,
            fromOffset,
            toOffset,
            skippedBytes: 0,
            matchedLines: scan.matchedLines,
            droppedLines: scan.droppedLines,
            snapshot: before,
          },
        };
      }
      let start = fromOffset;
      if (toOffset - start > maxBytes) start = toOffset - maxBytes;
      let bytes = readLogBytes(job.logPath, start, toOffset);
      if (start > fromOffset) {
        const cut = leadingContinuationBytes(bytes);
        bytes = bytes.subarray(cut);
        start += cut;
      }
      if (!final) {
        // Leave a character that is still being written for the next read.
        const incomplete = incompleteUtf8Tail(bytes);
        bytes = bytes.subarray(0, bytes.length - incomplete);
        toOffset -= incomplete;
      }
      job.cursor = toOffset;
      if (final && toOffset >= size) job.reported = true;
      return {
        ok: true,
        value: {
          text: bytes.toString('utf8'),
          fromOffset,
          toOffset,
          skippedBytes: start - fromOffset,
          snapshot: before,
        },
      };
    },

    output(id, outputOptions = {}) {
      const job = lookup(id);
      if (!job) return notFound();
      const before = snapshot(job);
      const headBytes = outputOptions.headBytes ?? Math.floor(settings.tailBytes / 4);
      const tailBytes = outputOptions.tailBytes ?? settings.tailBytes - headBytes;
      const total = logSize(job.logPath);
      let head: Buffer;
      let tail: Buffer = Buffer.alloc(0);
      let omittedOffset = total;
      if (total <= headBytes + tailBytes) {
        head = readLogBytes(job.logPath, 0, total);
      } else {
        head = readLogBytes(job.logPath, 0, headBytes);
        const headCut = incompleteUtf8Tail(head);
        head = head.subarray(0, head.length - headCut);
        omittedOffset = head.length;
        tail = readLogBytes(job.logPath, total - tailBytes, total);
        tail = tail.subarray(leadingContinuationBytes(tail));
      }
      if (outputOptions.consume) {
        job.cursor = total;
        if (job.finalBytes !== undefined) job.reported = true;
      }
      return {
        ok: true,
        value: {
          head: head.toString('utf8'),
          tail: tail.toString('utf8'),
          totalBytes: total,
          omittedBytes: total - head.length - tail.length,
          omittedOffset,
          snapshot: before,
        },
      };
    },

    readLog(id, range) {
      const job = lookup(id);
      if (!job) return notFound();
      const total = logSize(job.logPath);
      const offset = Math.max(0, Math.min(Math.floor(range.offset), total));
      const bytes = readLogBytes(job.logPath, offset, offset + Math.max(0, Math.floor(range.length)));
      const nextOffset = offset + bytes.length;
      return {
        ok: true,
        value: {
          bytes,
          offset,
          nextOffset,
          totalBytes: total,
          complete: job.finalBytes !== undefined && nextOffset >= total,
        },
      };
    },

    kill(id, killOptions = {}) {
      const job = lookup(id);
      if (!job) return notFound();
      const wasRunning = stop(job, 'killed', 'killed', killOptions.reason);
      // Whoever asked for the kill knows the outcome: no completion note for it.
      if (wasRunning) job.reported = true;
      return { ok: true, value: { wasRunning, snapshot: snapshot(job) } };
    },

    drainCompletionNotes() {
      const due = completions.splice(0).filter((job) => !job.reported);
      if (due.length === 0) return undefined;
      for (const job of due) job.reported = true;
      const parts = due.map((job) => {
        const status =
          job.state === 'failed'
            ? job.signal
              ? `failed (signal ${job.signal})`
              : `failed (exit code ${job.exitCode})`
            : job.state === 'done'
              ? 'done (exit code 0)'
              : job.endReason && job.endReason !== 'killed'
                ? `${job.state} (${job.endReason.replace('_', ' ')})`
                : job.state;
        const notes = job.notes.length > 0 ? ` (${job.notes.join('; ')})` : '';
        return `${job.id} (${job.label}) — ${status}${notes}`;
      });
      return `Background job updates since your last message: ${parts.join('; ')}. Read their output with job_output.`;
    },

    async close() {
      if (closed) {
        await Promise.all([...jobs.values()].map((job) => job.settled));
        return;
      }
      closed = true;
      for (const job of jobs.values()) {
        stop(job, 'interrupted', 'closed');
        job.reported = true;
      }
      await Promise.all([...jobs.values()].map((job) => job.settled));
      if (watcher) clearInterval(watcher);
      watcher = undefined;
      sandbox.dispose(registry.placeholdersInUseByOthers());
      registry.recordPlaceholders([]);
      if (!options.retainLogs) registry.removeHost();
      untrack();
      completions.length = 0;
      if (ownsStateDir && !options.retainLogs) rmSync(realStateDir, { recursive: true, force: true });
      else if (!options.retainLogs) for (const job of jobs.values()) rmSync(job.logPath, { force: true });
    },
  };
  return manager;
}

/**
 * Waits until the process `pid` with this start time is gone (or a zombie), polling `/proc` (a
 * couple of reads, the first at once); false when it is still there after `timeoutMs`.
 */
async function processGone(pid: number, startTime: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let round = 0; ; round++) {
    if (liveStartTime(pid) !== startTime) return true;
    if (Date.now() > deadline) return false;
    await delay(round < 10 ? 1 : 10);
  }
}

/**
 * {@link readProcessStartTime} for a process that is usually gone already (a namespace's init once
 * its job ended): `existsSync` answers that without the error (and stack trace) a failed read throws.
 */
function liveStartTime(pid: number): string | undefined {
  if (process.platform !== 'linux') return readProcessStartTime(pid);
  return existsSync(`/proc/${pid}`) ? readProcessStartTime(pid) : undefined;
}
