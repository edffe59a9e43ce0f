import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Parsed wire JSON (session lines, MCP results, provider bodies) that the tests probe freely; a
 * schema per assertion would hide what each test checks.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; the one place tests opt out of typing.
export type Json = any;

/** The built CLI: every test drives it as a black box, as an outside program would. */
export const CLI = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
/** The repository root (examples/ lives there). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Generous: the machine is shared and loaded; nothing asserts on time. */
export const PROCESS_TIMEOUT_MS = 120_000;

/**
 * The user configuration directory of every CLI this test process starts (its own config.json and
 * trust store), so the developer's own ~/.config/toolhost never changes what a test sees.
 */
export const TEST_USER_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'toolhost-cli-user-'));

/**
 * The environment for the CLI: no provider keys leak in from the developer's shell, no colours, a
 * private user configuration directory ({@link TEST_USER_CONFIG_DIR}).
 */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TOOLHOST_CONFIG_DIR: TEST_USER_CONFIG_DIR };
  for (const name of [
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'ANTHROPIC_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'FORCE_COLOR',
    'NODE_OPTIONS',
  ]) {
    delete env[name];
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** A fresh project directory with these files (paths relative to it); `cleanup` removes it. */
export async function makeProject(files: Record<string, string | Buffer> = {}): Promise<{
  root: string;
  cleanup: () => Promise<void>;
}> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'toolhost-cli-')));
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** What a finished CLI process produced. */
export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link runToolhost}. */
export interface RunOptions {
  readonly cwd?: string;
  readonly input?: string;
  readonly env?: Record<string, string | undefined>;
  readonly timeoutMs?: number;
}

/** Spawns the built CLI with `process.execPath` and waits for it to exit. */
export function spawnToolhost(args: readonly string[], options: RunOptions = {}): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: cliEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs the built CLI to completion and collects its output. Kills it after `timeoutMs` (a failure). */
export function runToolhost(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const child = spawnToolhost(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin!.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`toolhost ${args.join(' ')} did not exit in time; stderr: ${stderr}`));
    }, options.timeoutMs ?? PROCESS_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Drives `toolhost session` step by step: `send` writes one line and resolves with the next output
 * line, parsed. Output lines are matched to inputs strictly in order, so a missing or extra line
 * shows up as a mismatch.
 */
export class SessionDriver {
  readonly child: ChildProcess;
  #stderr = '';
  readonly #lines: string[] = [];
  readonly #waiting: ((line: string | undefined) => void)[] = [];
  #closed = false;
  readonly #exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(child: ChildProcess) {
    this.child = child;
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
    const lines = createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
    lines.on('close', () => {
      this.#closed = true;
      for (const waiter of this.#waiting.splice(0)) waiter(undefined);
    });
    this.#exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  }

  static start(args: readonly string[], options: RunOptions = {}): SessionDriver {
    return new SessionDriver(spawnToolhost(['session', ...args], options));
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** The next output line as text (`undefined` when stdout closed first). */
  nextLine(timeoutMs = PROCESS_TIMEOUT_MS): Promise<string | undefined> {
    const ready = this.#lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no session output line in time; stderr: ${this.#stderr}`)),
        timeoutMs,
      );
      this.#waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  }

  /** Sends one line (an object is serialised) and resolves with the answer, parsed. */
  async send(line: unknown): Promise<Json> {
    this.child.stdin!.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    const answer = await this.nextLine();
    if (answer === undefined) throw new Error(`the session ended without answering; stderr: ${this.#stderr}`);
    return JSON.parse(answer);
  }

  /** Ends the input and waits for the process to exit. */
  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null; rest: string[] }> {
    this.child.stdin!.end();
    const exit = await this.#exited;
    return { ...exit, rest: [...this.#lines] };
  }

  /** Kills the process if it is still running (test cleanup). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** Whether a process is alive (signal 0 probes without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Pids of the processes whose command line contains `marker` (Linux /proc). Shell commands run in a
 * PID namespace under the sandbox, so `$$` there is not the host's pid; a unique marker in the
 * command line (`sleep 300.4711`) finds the process from outside.
 */
export function pidsMatching(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (commandLine.includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/**
 * {@link pidsMatching} without bubblewrap: stdio MCP servers run in a pid namespace of their own, and
 * bubblewrap's processes carry the server's command line too.
 */
export function serverPidsMatching(marker: string): number[] {
  return pidsMatching(marker).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'bwrap';
    } catch {
      return false;
    }
  });
}

/** A `sleep` duration unique to one test, to find its process with {@link pidsMatching}. */
export function uniqueSleep(seconds = 300): string {
  return `${seconds}.${String(process.pid).slice(-3)}${Math.floor(Math.random() * 1e6)}`;
}

/** Polls `check` until it holds (events we cannot subscribe to, like another process's exit). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
