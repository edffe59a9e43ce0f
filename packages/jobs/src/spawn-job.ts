import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

/** How a job's main process ended (one of the two is set). */
export interface JobExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A started job process. */
export interface SpawnedJob {
  readonly pid: number | undefined;
  /** Resolves when the main process has exited (never rejects). */
  readonly exited: Promise<JobExit>;
  /**
   * The host pid of the sandbox's init (bubblewrap's `child-pid`, written to its `--info-fd 3`), or
   * undefined when there is none or it never came.
   */
  readonly namespaceInit: Promise<number | undefined>;
  /** The `errno` code of a spawn that failed (then `pid` is undefined). */
  readonly spawnError: Promise<string | undefined>;
}

/** Options of {@link spawnJob}. */
export interface SpawnJobOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** The log descriptor: the child's stdout and stderr (the caller closes its copy). */
  readonly output: number;
  /** Give the child a pipe as fd 3 and read bubblewrap's `--info-fd` JSON from it. */
  readonly infoFd: boolean;
}

/**
 * Spawns a job's main process with Node's own `child_process.spawn` (requirement JOB-TREE-1): stdin
 * from `/dev/null`, stdout and stderr straight into the log descriptor, a new process group and
 * session (`detached`), the exact environment given. Written against `spawn` rather than a wrapper
 * library: a job needs none of a wrapper's buffering or piping, and the call is on the hot path of
 * every shell command.
 */
export function spawnJob(options: SpawnJobOptions): SpawnedJob {
  const child = spawn(options.file, [...options.args], {
    cwd: options.cwd,
    env: { ...options.env },
    stdio: ['ignore', options.output, options.output, ...(options.infoFd ? (['pipe'] as const) : [])],
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
  let resolveError!: (code: string | undefined) => void;
  const spawnError = new Promise<string | undefined>((resolve) => {
    resolveError = resolve;
  });
  const exited = new Promise<JobExit>((resolve) => {
    child.once('exit', (exitCode, signal) => {
      resolveError(undefined);
      resolve({ exitCode, signal });
    });
    child.once('error', (error) => {
      resolveError((error as NodeJS.ErrnoException).code ?? 'error');
      // A process that started and then failed (a kill error) still exits; one that never started
      // does not, so it resolves here.
      if (child.pid === undefined) resolve({ exitCode: null, signal: null });
    });
  });
  if (child.pid !== undefined) child.once('spawn', () => resolveError(undefined));
  const info = options.infoFd ? (child.stdio[3] as Readable | null) : null;
  const namespaceInit = new Promise<number | undefined>((resolve) => {
    if (!info) return resolve(undefined);
    let text = '';
    info.setEncoding('utf8');
    info.on('data', (chunk: string) => {
      if (text.length < 4096) text += chunk;
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    info.on('error', () => resolve(undefined));
    info.on('close', () => resolve(undefined));
  });
  return { pid: child.pid, exited, namespaceInit, spawnError };
}
