import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The outcome of {@link runCommand}. */
export interface CommandOutcome {
  /** Wall time from spawn to exit, in ms. */
  readonly ms: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Every byte written to stdout was read (and counted), as a consumer of the output would. */
  readonly stdoutBytes: number;
  /** The first `keepBytes` of stdout, as text. */
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  readonly cwd?: string;
  /** How much of stdout to keep as text (all of it is read either way). Default 64 KiB. */
  readonly keepBytes?: number;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Runs a command without a shell, reads all its output, and reports the wall time. A command that
 * cannot start rejects; a non-zero exit is reported, not thrown (the caller decides).
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions = {},
): Promise<CommandOutcome> {
  const keep = options.keepBytes ?? 64 * 1024;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let stdoutBytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (keptBytes < keep) {
        kept.push(chunk.subarray(0, keep - keptBytes));
        keptBytes += Math.min(chunk.length, keep - keptBytes);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 16_384) stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        code,
        signal,
        stdoutBytes,
        stdout: Buffer.concat(kept).toString('utf8'),
        stderr,
      });
    });
  });
}

/**
 * Runs a Node script (plain JavaScript, so no loader inflates its memory) with one JSON argument and
 * parses the single JSON line it prints. Rejects with its stderr when it fails.
 */
export async function runNodeScript<T>(
  script: string,
  input: unknown,
  options: { readonly cwd?: string } = {},
): Promise<T> {
  const outcome = await runCommand(process.execPath, [script, JSON.stringify(input)], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    keepBytes: 1024 * 1024,
  });
  if (outcome.code !== 0) {
    throw new Error(
      `${script} exited with ${outcome.code ?? outcome.signal}: ${outcome.stderr.trim() || outcome.stdout.trim()}`,
    );
  }
  const line = outcome.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(`${script} printed no JSON result: ${outcome.stdout.slice(0, 400)}`);
  }
}

/**
 * The pids of every live descendant of `pid` (children, grandchildren ...), read from /proc. Linux
 * only; elsewhere returns `undefined` so callers can say the check was not possible.
 */
export function descendantPids(pid: number = process.pid): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const childrenOf = new Map<number, number[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // The command name (field 2) may contain spaces and parentheses: fields resume after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = childrenOf.get(parent) ?? [];
    list.push(Number(name));
    childrenOf.set(parent, list);
  }
  const found: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    for (const child of childrenOf.get(stack.pop()!) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}
