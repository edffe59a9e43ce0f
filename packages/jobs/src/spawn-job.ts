import { spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, unlinkSync } from 'node:fs';

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
   * undefined when there is none or it was not written. Read from the info file once the main process
   * has exited (bubblewrap writes it right after creating the namespace), which then is removed.
   */
  readonly namespaceInit: () => number | undefined;
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
  /**
   * A file to create (it must not exist) and give the child as fd 3, where bubblewrap writes its
   * `--info-fd` JSON. A file rather than a pipe: a pipe costs a stream per job in the host.
   */
  readonly infoFile?: string | undefined;
}

/**
 * Spawns a job's main process with Node's own `child_process.spawn` (requirement JOB-TREE-1): stdin
 * from `/dev/null`, stdout and stderr straight into the log descriptor, a new process group and
 * session (`detached`), the exact environment given. Written against `spawn` rather than a wrapper
 * library: a job needs none of a wrapper's buffering or piping, and the call is on the hot path of
 * every shell command.
 */
export function spawnJob(options: SpawnJobOptions): SpawnedJob {
  let infoFd: number | undefined;
  let infoLost = false;
  if (options.infoFile) {
    try {
      infoFd = openSync(
        options.infoFile,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
    } catch {
      // Bubblewrap still needs a descriptor 3 to write to: the info is lost, so the caller falls back
      // to scanning for the job's processes.
      infoFd = openSync('/dev/null', 'w');
      infoLost = true;
    }
  }
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(options.file, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['ignore', options.output, options.output, ...(infoFd === undefined ? [] : [infoFd])],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
  } finally {
    if (infoFd !== undefined) closeSync(infoFd);
  }
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
  const namespaceInit = () => {
    if (!options.infoFile || infoFd === undefined || infoLost) return undefined;
    try {
      const match = /"child-pid"\s*:\s*(\d+)/.exec(readFileSync(options.infoFile, 'utf8'));
      return match ? Number(match[1]) : undefined;
    } catch {
      return undefined;
    } finally {
      // One unlink: `rmSync` would lstat first and walk a directory (this is a file we created).
      try {
        unlinkSync(options.infoFile);
      } catch {
        // Gone already.
      }
    }
  };
  return { pid: child.pid, exited, namespaceInit, spawnError };
}
