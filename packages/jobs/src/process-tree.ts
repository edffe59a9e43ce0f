import { execFile } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import {
  findProcessesWithEnvironment,
  listProcesses,
  type ProcessInfo,
  readProcessStartTime,
} from './process-table.js';

/** The environment variable every job's processes inherit, holding the job's random marker. */
export const JOB_MARKER_VARIABLE = 'TOOLHOST_JOB_MARKER';

/** What identifies the processes of one job. */
export interface JobProcessSelector {
  /** The pid the job was spawned as (the shell, or the outer `bwrap`). */
  readonly rootPid: number;
  /** The root's start time as read at spawn time; guards against a reused pid. */
  readonly rootStartTime: string | undefined;
  /** The job's marker value (see {@link JOB_MARKER_VARIABLE}). */
  readonly marker: string;
  /** Select by the root pid, its group and session. Default true; false selects by the marker only. */
  readonly trustRoot?: boolean;
}

/**
 * Finds every live process that belongs to a job: the root, its descendants, the members of its
 * process group and session, and any process carrying the job's marker in its environment (the
 * descendants that left the group with `setsid` and were re-parented), with their descendants.
 *
 * A pid cannot be reused while it still names a process group or session, so group and session
 * members are trusted; the root pid itself is trusted only while its start time matches.
 */
export function collectJobProcesses(selector: JobProcessSelector, table = listProcesses()): ProcessInfo[] {
  const byPid = new Map<number, ProcessInfo>();
  const children = new Map<number, ProcessInfo[]>();
  for (const info of table) {
    if (info.zombie) continue;
    byPid.set(info.pid, info);
    const siblings = children.get(info.ppid);
    if (siblings) siblings.push(info);
    else children.set(info.ppid, [info]);
  }
  const rootEntry = byPid.get(selector.rootPid);
  // A live process under the root pid with another start time is a stranger that reused the pid.
  const rootReused =
    rootEntry !== undefined &&
    selector.rootStartTime !== undefined &&
    readProcessStartTime(selector.rootPid) !== selector.rootStartTime;
  const seeds = new Set<number>();
  if (!rootReused && selector.trustRoot !== false) {
    if (rootEntry) seeds.add(rootEntry.pid);
    for (const info of byPid.values())
      if (info.pgid === selector.rootPid || info.sid === selector.rootPid) seeds.add(info.pid);
  }
  for (const pid of findProcessesWithEnvironment(JOB_MARKER_VARIABLE, selector.marker))
    if (byPid.has(pid)) seeds.add(pid);
  const found = new Map<number, ProcessInfo>();
  const queue = [...seeds];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (found.has(pid) || pid === process.pid) continue;
    const info = byPid.get(pid);
    if (!info) continue;
    found.set(pid, info);
    for (const child of children.get(pid) ?? []) queue.push(child.pid);
  }
  return [...found.values()];
}

/** Options of {@link terminateJobProcesses}. */
export interface TerminateOptions {
  /** How long processes get to exit after SIGTERM before SIGKILL. */
  readonly graceMs: number;
  /** Poll interval while waiting. Default 25 ms. */
  readonly pollMs?: number;
  /**
   * Process names spared by the SIGTERM round (still killed by the SIGKILL round). The sandbox's own
   * `bwrap` processes are spared so the command gets its grace period: killing `bwrap` first would
   * tear the whole sandbox down at once.
   */
  readonly spareOnTerm?: readonly string[];
  /** Skip the SIGTERM round and grace period. */
  readonly immediate?: boolean;
}

/** What {@link terminateJobProcesses} saw. */
export interface TerminateResult {
  /** Processes found at the start. */
  readonly found: number;
  /** Processes that needed SIGKILL. */
  readonly forced: number;
  /** Processes still alive at the end (should be 0; non-zero means the kernel refused). */
  readonly remaining: readonly number[];
}

/**
 * Terminates every process of a job: SIGTERM to each, a grace period, then SIGKILL rounds until none
 * is left (a process forking while it is being killed is caught by the next round). On Windows the
 * tree is killed with `taskkill /T /F`.
 */
export async function terminateJobProcesses(
  selector: JobProcessSelector,
  options: TerminateOptions,
): Promise<TerminateResult> {
  if (process.platform === 'win32') return terminateWindowsTree(selector.rootPid);
  const pollMs = options.pollMs ?? 25;
  const spared = new Set(options.spareOnTerm ?? []);
  const initial = collectJobProcesses(selector);
  if (initial.length === 0) return { found: 0, forced: 0, remaining: [] };
  if (!options.immediate) {
    for (const info of initial) if (!spared.has(info.name)) signal(info.pid, 'SIGTERM');
    const deadline = Date.now() + options.graceMs;
    while (Date.now() < deadline) {
      await delay(pollMs);
      const alive = collectJobProcesses(selector).filter((info) => !spared.has(info.name));
      // Once the commands are gone the sandbox's helpers exit by themselves; give them one poll.
      if (alive.length === 0) {
        await delay(pollMs);
        break;
      }
    }
  }
  let forced = 0;
  let remaining = collectJobProcesses(selector);
  const seen = new Set<number>();
  // Bounded: 200 rounds is several seconds of SIGKILL storms, far beyond any real fork race.
  for (let round = 0; remaining.length > 0 && round < 200; round++) {
    for (const info of remaining) {
      if (!seen.has(info.pid)) {
        seen.add(info.pid);
        forced++;
      }
      signal(info.pid, 'SIGKILL');
    }
    await delay(round === 0 ? 5 : pollMs);
    remaining = collectJobProcesses(selector);
  }
  return { found: initial.length, forced, remaining: remaining.map((info) => info.pid) };
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone (ESRCH) or not ours (EPERM): nothing to do.
  }
}

function terminateWindowsTree(rootPid: number): Promise<TerminateResult> {
  return new Promise((resolve) => {
    execFile('taskkill', ['/pid', String(rootPid), '/T', '/F'], { windowsHide: true }, () =>
      resolve({ found: 1, forced: 1, remaining: [] }),
    );
  });
}
