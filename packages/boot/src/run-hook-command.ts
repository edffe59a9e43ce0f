import { type ChildProcess, spawn } from 'node:child_process';
import { errorMessage } from '@toolhost/contracts';

/** Options of {@link runHookCommand}. */
export interface RunHookCommandOptions {
  /** The command line, run by the platform shell (`/bin/sh -c`, or `cmd.exe` on Windows). */
  readonly command: string;
  /** Written to the command's stdin, then stdin is closed. */
  readonly input: string;
  readonly cwd: string;
  /** The whole environment of the command (nothing else of the host's is passed). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Ends the command early (reported as `aborted`). */
  readonly signal?: AbortSignal | undefined;
  /** Bytes of stdout and of stderr kept; the rest is counted and dropped. Default 1 MiB each. */
  readonly maxOutputBytes?: number;
}

/** How a hook command ended. */
export interface HookCommandRun {
  /** The exit code, or `null` when it was killed by a signal or never started. */
  readonly exitCode: number | null;
  readonly ending: 'exited' | 'timeout' | 'aborted' | 'spawn_failed';
  readonly stdout: string;
  readonly stderr: string;
  /** Whether stdout or stderr was longer than the kept bytes. */
  readonly truncated: boolean;
  readonly durationMs: number;
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** After the command exits, how long its pipes may stay open (a background child holding them). */
const CLOSE_WAIT_MS = 2_000;

/**
 * Runs one hook command as a real process: JSON on stdin, stdout and stderr captured (bounded),
 * within its timeout. On POSIX it leads a process group of its own, and that whole group is killed
 * (SIGKILL) on timeout or abort and again once the command exits, so nothing it started outlives
 * it; on Windows the tree is killed with `taskkill /T /F`. A command that does not read its stdin is
 * fine (the broken pipe is ignored). Never rejects.
 */
export function runHookCommand(options: RunHookCommandOptions): Promise<HookCommandRun> {
  const started = performance.now();
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return new Promise<HookCommandRun>((resolve) => {
    let child: ChildProcess;
    const finishEarly = (ending: HookCommandRun['ending'], stderr = '') =>
      resolve({
        exitCode: null,
        ending,
        stdout: '',
        stderr,
        truncated: false,
        durationMs: performance.now() - started,
      });
    if (options.signal?.aborted) return finishEarly('aborted');
    try {
      child = spawn(options.command, {
        cwd: options.cwd,
        env: { ...options.env },
        shell: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
    } catch (error) {
      return finishEarly('spawn_failed', errorMessage(error));
    }
    const stdout = boundedCollector(maxBytes);
    const stderr = boundedCollector(maxBytes);
    child.stdout?.on('data', stdout.push);
    child.stderr?.on('data', stderr.push);
    let ending: HookCommandRun['ending'] = 'exited';
    let exitCode: number | null = null;
    let settled = false;
    let closeTimer: NodeJS.Timeout | undefined;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(closeTimer);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        exitCode,
        ending,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated() || stderr.truncated(),
        durationMs: performance.now() - started,
      });
    };
    const stop = (why: 'timeout' | 'aborted') => {
      if (ending === 'exited' && exitCode === null) ending = why;
      killTree(child);
    };
    const timer = setTimeout(() => stop('timeout'), Math.min(options.timeoutMs, 2_147_483_647));
    const onAbort = () => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      // The shell itself could not start (a missing cwd, no /bin/sh).
      if (child.pid === undefined) {
        ending = 'spawn_failed';
        stderr.push(Buffer.from(error.message));
        settle();
      }
    });
    child.on('exit', (code) => {
      exitCode = ending === 'exited' ? code : null;
      // Whatever the command left running in its group goes with it.
      killTree(child);
      closeTimer = setTimeout(settle, CLOSE_WAIT_MS);
    });
    child.on('close', settle);
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input);
  });
}

function killTree(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (process.platform === 'win32') {
    try {
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on(
        'error',
        () => undefined,
      );
    } catch {
      // the process is gone already
    }
    return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already
  }
}

function boundedCollector(maxBytes: number): {
  push: (chunk: Buffer) => void;
  text: () => string;
  truncated: () => boolean;
} {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = false;
  return {
    push: (chunk) => {
      if (kept >= maxBytes) {
        dropped = true;
        return;
      }
      const room = maxBytes - kept;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (part.length < chunk.length) dropped = true;
      chunks.push(part);
      kept += part.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    truncated: () => dropped,
  };
}
