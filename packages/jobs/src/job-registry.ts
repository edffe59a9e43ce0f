import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type ProcessIdentity,
  processHasEnvironment,
  readProcessIdentity,
  readProcessStartTime,
} from './process-table.js';
import { collectJobProcesses, JOB_MARKER_VARIABLE } from './process-tree.js';
import { removeTree } from './remove-tree.js';

/** One live job as the registry records it on disk. */
export interface RegistryJobEntry {
  readonly version: 1;
  readonly hostPid: number;
  readonly hostStartTime: string;
  readonly jobId: string;
  readonly pid: number;
  readonly startTime: string;
  readonly commandHash: string;
  readonly marker: string;
  readonly logPath: string;
}

/** A placeholder created for a missing protected path, with the identity that proves it is ours. */
export interface PlaceholderRecord {
  readonly path: string;
  readonly kind: 'directory' | 'file';
  readonly dev: number;
  readonly ino: number;
}

/** A host that has started jobs: its logs (named after its key) go when it is found dead. */
interface RegistryHostEntry {
  readonly version: 1;
  readonly hostPid: number;
  readonly hostStartTime: string;
  /** The logs directory and the prefix of this host's log names. */
  readonly logsDirectory: string;
  readonly logPrefix: string;
}

interface RegistryPlaceholderEntry {
  readonly version: 1;
  readonly hostPid: number;
  readonly hostStartTime: string;
  readonly placeholders: readonly PlaceholderRecord[];
}

/** An orphan of a crashed host that was found and killed when this manager started. */
export interface ReapedOrphan {
  readonly jobId: string;
  readonly pid: number;
  /** How many processes were killed (0 when all had already exited). */
  readonly killed: number;
}

/**
 * The on-disk registry of live jobs (requirement JOB-REG-1..3): one small JSON file per live job
 * that is not contained in a pid namespace (a contained job dies with its host, so there is nothing
 * to reap), one per host that keeps logs, and one for a host's placeholders, under `<stateDir>/live`,
 * written atomically (temporary file + rename, mode 0600), removed when they end. Entries name their host by pid and start time, so a registry shared by several hosts
 * (several sessions in one project) only ever reaps the jobs of hosts that are gone.
 */
export class JobRegistry {
  readonly #directory: string;
  readonly #host: ProcessIdentity | undefined;
  #hostRecorded = false;

  constructor(stateDir: string) {
    this.#directory = path.join(stateDir, 'live');
    mkdirSync(this.#directory, { recursive: true, mode: 0o700 });
    this.#host = readProcessIdentity(process.pid);
  }

  /** Whether this platform can identify processes (not on Windows); without it nothing is recorded. */
  get enabled(): boolean {
    return this.#host !== undefined;
  }

  #hostKey(): string {
    return `${this.#host!.pid}-${this.#host!.startTime.replace(/[^0-9A-Za-z]/g, '_')}`;
  }

  /**
   * The prefix of this host's log file names, so the logs of a host that died can be found without
   * a registry entry per job. `host` when this platform cannot identify processes.
   */
  get logPrefix(): string {
    return this.#host ? `h${this.#hostKey()}` : 'host';
  }

  /**
   * Records once that this host keeps logs in `logsDirectory` (named `<logPrefix>.*`): the next
   * manager that finds the host dead removes them. One small write per host, not per job.
   */
  recordHost(logsDirectory: string): void {
    if (!this.#host || this.#hostRecorded) return;
    this.#hostRecorded = true;
    const entry: RegistryHostEntry = {
      version: 1,
      hostPid: this.#host.pid,
      hostStartTime: this.#host.startTime,
      logsDirectory,
      logPrefix: this.logPrefix,
    };
    this.#write(`${this.#hostKey()}.host.json`, entry);
  }

  /** Forgets this host's entry (its manager closed). */
  removeHost(): void {
    if (!this.#host || !this.#hostRecorded) return;
    this.#hostRecorded = false;
    rmSync(path.join(this.#directory, `${this.#hostKey()}.host.json`), { force: true });
  }

  #write(name: string, value: unknown): void {
    const target = path.join(this.#directory, name);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(value)}\n`, { mode: 0o600 });
    renameSync(temporary, target);
  }

  /** Records a job that just started (its root process identity read from the OS). */
  recordJob(job: { jobId: string; pid: number; marker: string; logPath: string }): void {
    if (!this.#host) return;
    const identity = readProcessIdentity(job.pid);
    if (!identity) return;
    const entry: RegistryJobEntry = {
      version: 1,
      hostPid: this.#host.pid,
      hostStartTime: this.#host.startTime,
      jobId: job.jobId,
      pid: job.pid,
      startTime: identity.startTime,
      commandHash: identity.commandHash,
      marker: job.marker,
      logPath: job.logPath,
    };
    this.#write(`${this.#hostKey()}.job.${job.jobId}.json`, entry);
  }

  /** Forgets a job that ended. */
  removeJob(jobId: string): void {
    if (!this.#host) return;
    rmSync(path.join(this.#directory, `${this.#hostKey()}.job.${jobId}.json`), { force: true });
  }

  /**
   * Removes the private `/tmp` directories of a dead host (`<stateDir>/tmp/<logPrefix>.*`, SB-16). The
   * place is derived from this registry's own state directory and the entry's checked prefix, never
   * taken from the file, so a forged entry can remove nothing else.
   */
  #removeHostTmp(entry: RegistryHostEntry): void {
    if (typeof entry.logPrefix !== 'string' || !/^h[0-9A-Za-z_-]+$/.test(entry.logPrefix)) return;
    const parent = path.join(path.dirname(this.#directory), 'tmp');
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(`${entry.logPrefix}.`)) removeTree(path.join(parent, name));
    }
  }

  /** Records the placeholders this host currently owns (replacing the previous list). */
  recordPlaceholders(placeholders: readonly PlaceholderRecord[]): void {
    if (!this.#host) return;
    const name = `${this.#hostKey()}.placeholders.json`;
    if (placeholders.length === 0) {
      rmSync(path.join(this.#directory, name), { force: true });
      return;
    }
    const entry: RegistryPlaceholderEntry = {
      version: 1,
      hostPid: this.#host.pid,
      hostStartTime: this.#host.startTime,
      placeholders,
    };
    this.#write(name, entry);
  }

  /** Placeholder paths recorded by other hosts that are still alive (they must not be removed). */
  placeholdersInUseByOthers(): Set<string> {
    const inUse = new Set<string>();
    for (const { entry } of this.#entries()) {
      if (!('placeholders' in entry) || this.#isMine(entry) || !hostAlive(entry)) continue;
      for (const placeholder of entry.placeholders) inUse.add(placeholder.path);
    }
    return inUse;
  }

  #isMine(entry: { hostPid: number; hostStartTime: string }): boolean {
    return (
      this.#host !== undefined &&
      entry.hostPid === this.#host.pid &&
      entry.hostStartTime === this.#host.startTime
    );
  }

  #entries(): Array<{ file: string; entry: AnyEntry }> {
    const entries: Array<{ file: string; entry: AnyEntry }> = [];
    let names: string[];
    try {
      names = readdirSync(this.#directory);
    } catch {
      return entries;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(this.#directory, name);
      try {
        const entry = JSON.parse(readFileSync(file, 'utf8')) as AnyEntry;
        if (entry?.version === 1 && Number.isInteger(entry.hostPid)) entries.push({ file, entry });
      } catch {
        // A torn or foreign file: ignore it (entries are written by rename, so it is not ours).
      }
    }
    return entries;
  }

  /**
   * Kills the jobs of hosts that are gone and removes their entries, logs and placeholders. A job
   * process is killed only when its pid still has the recorded start time and command hash (a reused
   * pid is left alone); processes carrying the job's random marker are killed too, because they can
   * only be that job's. Synchronous: it runs once, when a manager starts.
   *
   * @param removePlaceholder removes one placeholder if it is still the empty thing this registry
   *   created (the sandbox owns that check).
   */
  reapOrphans(removePlaceholder: (record: PlaceholderRecord) => void): ReapedOrphan[] {
    const reaped: ReapedOrphan[] = [];
    const entries = this.#entries();
    const liveOthers = new Set<string>();
    for (const { entry } of entries)
      if ('placeholders' in entry && !this.#isMine(entry) && hostAlive(entry))
        for (const placeholder of entry.placeholders) liveOthers.add(placeholder.path);
    for (const { file, entry } of entries) {
      if (this.#isMine(entry) || hostAlive(entry)) continue;
      if ('placeholders' in entry) {
        for (const placeholder of entry.placeholders)
          if (!liveOthers.has(placeholder.path)) removePlaceholder(placeholder);
      } else if ('logPrefix' in entry) {
        removeHostLogs(entry);
        this.#removeHostTmp(entry);
      } else {
        const identity = readProcessIdentity(entry.pid);
        // The same start time and either the same command line or the job's marker (a shell may have
        // exec'd its last command, changing the command line but keeping the environment).
        const rootIsOurs =
          identity !== undefined &&
          identity.startTime === entry.startTime &&
          (identity.commandHash === entry.commandHash ||
            processHasEnvironment(entry.pid, JOB_MARKER_VARIABLE, entry.marker));
        const killed = killJobProcessesNow({
          rootPid: entry.pid,
          rootStartTime: entry.startTime,
          marker: entry.marker,
          // A live pid with another identity is a stranger: only the marker may select processes then.
          trustRoot: identity === undefined || rootIsOurs,
        });
        reaped.push({ jobId: entry.jobId, pid: entry.pid, killed });
        rmSync(entry.logPath, { force: true });
      }
      rmSync(file, { force: true });
    }
    return reaped;
  }
}

type AnyEntry = RegistryJobEntry | RegistryPlaceholderEntry | RegistryHostEntry;

/** Removes the logs of a dead host (names starting with its prefix, in its logs directory). */
function removeHostLogs(entry: RegistryHostEntry): void {
  if (typeof entry.logsDirectory !== 'string' || !/^h[0-9A-Za-z_-]+$/.test(entry.logPrefix)) return;
  let names: string[];
  try {
    names = readdirSync(entry.logsDirectory);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(`${entry.logPrefix}.`)) rmSync(path.join(entry.logsDirectory, name), { force: true });
  }
}

function hostAlive(entry: { hostPid: number; hostStartTime: string }): boolean {
  return readProcessStartTime(entry.hostPid) === entry.hostStartTime;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * SIGKILLs a job's processes synchronously, in rounds, until none is left; returns how many were hit.
 * For start-up reaping and for the host's exit hook, where nothing asynchronous can run.
 */
export function killJobProcessesNow(selector: Parameters<typeof collectJobProcesses>[0]): number {
  const hit = new Set<number>();
  for (let round = 0; round < 50; round++) {
    const found = collectJobProcesses(selector);
    if (found.length === 0) break;
    for (const info of found) {
      hit.add(info.pid);
      try {
        process.kill(info.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    // A synchronous 10 ms pause (this runs once, at start-up) so the kernel can deliver the signals.
    Atomics.wait(sleeper, 0, 0, 10);
  }
  return hit.size;
}
