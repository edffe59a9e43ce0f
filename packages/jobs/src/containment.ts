import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { findBubblewrap } from './bubblewrap.js';

/** How processes of an unsandboxed command are contained, once probed. */
export type ContainmentProbe =
  | {
      readonly ok: true;
      /** Whether the namespace gets its own `/proc` (false where the host forbids mounting one). */
      readonly proc: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * The bubblewrap arguments that contain a command without restricting it (requirement JOB-TREE-5):
 * the host's whole file system with its devices (`--dev-bind / /`), a new pid namespace, and death
 * with the parent. When the command's main process exits, or the host dies, the kernel kills every
 * process left in the namespace, including those that called `setsid` and dropped the job marker.
 * With `proc`, the namespace gets its own `/proc` (so `ps` shows its own processes and pids agree);
 * with `newSession`, the namespace's init starts a new session (a job's shell then has no session in
 * common with the host). Without it the command stays in the caller's process group, so signalling
 * that group (an MCP transport's SIGTERM) still reaches it. Ends with `--`.
 */
export function containmentArguments(options: {
  readonly cwd?: string | undefined;
  readonly proc: boolean;
  readonly newSession?: boolean;
  readonly infoFd?: number | undefined;
}): string[] {
  const args = ['--dev-bind', '/', '/', '--unshare-pid', '--die-with-parent'];
  if (options.newSession) args.push('--new-session');
  if (options.infoFd !== undefined) args.push('--info-fd', String(options.infoFd));
  if (options.proc) args.push('--proc', '/proc');
  if (options.cwd !== undefined) args.push('--chdir', options.cwd);
  args.push('--');
  return args;
}

const probes = new Map<string, Promise<ContainmentProbe>>();

/**
 * Checks once per executable (cached for the life of the process) that bubblewrap can contain a
 * command here: it runs `true` inside {@link containmentArguments}, first with a fresh `/proc`, then
 * without one (some container runtimes forbid mounting `/proc`).
 */
export function probeContainment(executable: string): Promise<ContainmentProbe> {
  let probe = probes.get(executable);
  if (!probe) {
    probe = (async () => {
      const withProc = await runQuietly(executable, [...containmentArguments({ proc: true }), 'true']);
      if (withProc === undefined) return { ok: true, proc: true } as const;
      const without = await runQuietly(executable, [...containmentArguments({ proc: false }), 'true']);
      if (without === undefined) return { ok: true, proc: false } as const;
      return {
        ok: false,
        reason: `bubblewrap (${executable}) cannot create a pid namespace: ${withProc}`,
      } as const;
    })();
    probes.set(executable, probe);
  }
  return probe;
}

function runQuietly(file: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        timeout: 20_000,
        killSignal: 'SIGKILL',
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      },
      (error, _stdout, stderr) => {
        if (!error) return resolve(undefined);
        const detail = stderr.trim().split('\n').slice(-1)[0]?.slice(0, 200);
        resolve(detail || (typeof error.code === 'number' ? `exit code ${error.code}` : error.message));
      },
    );
  });
}

/** Options of {@link containCommand}. */
export interface ContainCommandOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The working directory of the command (default: the caller's). */
  readonly cwd?: string | undefined;
  /** The PATH the command is looked up on (default `process.env.PATH`). */
  readonly searchPath?: string | undefined;
  /** The bubblewrap executable. Default `/usr/bin/bwrap`, else `bwrap` on PATH. */
  readonly bubblewrapPath?: string | undefined;
  /** The platform (default `process.platform`). */
  readonly platform?: NodeJS.Platform;
  /** Start a new session inside the namespace (see {@link containmentArguments}). Default false. */
  readonly newSession?: boolean;
  /** Have bubblewrap write its info JSON (the init's `child-pid`) to this descriptor. */
  readonly infoFd?: number;
}

/** A command ready to spawn, contained when possible. */
export interface ContainedCommand {
  readonly file: string;
  readonly args: readonly string[];
  /** Whether a pid namespace holds the command's processes. */
  readonly contained: boolean;
  /** Why it is not contained (value-free), when it is not. */
  readonly reason?: string;
}

/**
 * Wraps a command that runs with the host's full access (an MCP server, a `danger_full_access` job)
 * in a pid namespace of its own (requirement JOB-TREE-5), so nothing it starts outlives it or the
 * host. The command is looked up on PATH first: a missing executable is left unwrapped, so spawning
 * it fails with `ENOENT` exactly as before. Without a working bubblewrap (or off Linux) the command is
 * returned as it is, with `contained: false` and the reason, and the caller's own process-group and
 * marker based clean-up is all there is.
 */
export async function containCommand(options: ContainCommandOptions): Promise<ContainedCommand> {
  const platform = options.platform ?? process.platform;
  if (platform !== 'linux') return uncontained(options, `no pid namespaces on ${platform}`);
  const resolved = resolveExecutable(
    options.command,
    options.searchPath ?? process.env.PATH ?? '',
    options.cwd,
  );
  if (!resolved) return uncontained(options, 'the executable was not found on PATH');
  return containResolvedCommand(resolved, options);
}

function uncontained(options: ContainCommandOptions, reason: string): ContainedCommand {
  return { file: options.command, args: [...options.args], contained: false, reason };
}

/**
 * {@link containCommand} for a command already looked up on PATH (`resolved`, an absolute path), on
 * Linux: a caller that has resolved it (a `danger_full_access` job) does not walk PATH twice.
 */
export async function containResolvedCommand(
  resolved: string,
  options: ContainCommandOptions,
): Promise<ContainedCommand> {
  const executable = options.bubblewrapPath ?? findBubblewrap();
  if (!executable) return uncontained(options, 'bubblewrap (bwrap) is not installed');
  const probe = await probeContainment(executable);
  if (!probe.ok) return uncontained(options, probe.reason);
  return {
    file: executable,
    args: [
      ...containmentArguments({
        proc: probe.proc,
        cwd: options.cwd ?? process.cwd(),
        newSession: options.newSession === true,
        infoFd: options.infoFd,
      }),
      resolved,
      ...options.args,
    ],
    contained: true,
  };
}

/**
 * Finds an executable the way `execvp` would: a name with a slash is taken relative to `cwd`; a bare
 * name is looked up in each PATH entry. Returns the absolute path, or undefined.
 */
export function resolveExecutable(command: string, searchPath: string, cwd?: string): string | undefined {
  // A missing candidate is the common case (most PATH entries hold no `bash`): `statSync` without
  // throwing costs a syscall, where `accessSync` throws an error with a stack trace for each one
  // (about 10 per call on a PATH of 10 entries, twice per job before, a tenth of a job's host CPU).
  const executable = (candidate: string) => {
    try {
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile() !== true) return false;
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/')) {
    const candidate = path.resolve(cwd ?? process.cwd(), command);
    return executable(candidate) ? candidate : undefined;
  }
  for (const directory of searchPath.split(path.delimiter)) {
    if (!directory) continue;
    const candidate = path.resolve(cwd ?? process.cwd(), directory, command);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}
