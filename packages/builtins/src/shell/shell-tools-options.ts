import type { ToolCallContext } from '@toolhost/contracts';
import type { JobManager } from '@toolhost/jobs';
import type { PathPolicy } from '@toolhost/path-policy';

/** Which shell the surface offers: `bash` on POSIX, `pwsh` on Windows. */
export type ShellPlatform = 'posix' | 'windows';

/**
 * Which PowerShell runs `pwsh` commands: `core` (PowerShell 7+, `pwsh.exe`) or `desktop` (Windows
 * PowerShell 5.1, `powershell.exe`), which has no `&&` / `||`.
 */
export type PowerShellEdition = 'core' | 'desktop';

/** Options of {@link createShellTools} and the individual shell tool factories. */
export interface ShellToolsOptions {
  /**
   * Runs the commands (its sandbox mode applies to every command): the agent's job manager, or a
   * function that picks the manager of the agent making the call (for hosts that run several agents
   * over one tool set, each with its own jobs).
   */
  readonly jobs: JobManager | ((context: ToolCallContext) => JobManager);
  /** Decides `workdir` (list access). */
  readonly pathPolicy: PathPolicy;
  /** `posix` registers `bash`, `windows` registers `pwsh`. */
  readonly platform: ShellPlatform;
  /** Default `core`. With `desktop`, `pwsh` refuses `&&` / `||` with guidance before running anything. */
  readonly powershellEdition?: PowerShellEdition;
  /** Foreground timeout when the call gives none. Default 120 000 ms; at most 600 000 (the schema's maximum). */
  readonly defaultTimeoutMs?: number;
  /**
   * Most bytes of command output one result carries (a head and a tail when it is longer, saying so
   * at its end; the full output stays in the job's log). Default 8 MiB: the host's shaper cuts the
   * result for the model and stores it whole, so up to this bound the stored result is the whole
   * output and can be paged with `session:tool_result`.
   */
  readonly outputBytes?: number;
}

/** The foreground default timeout of the shell tools (2 minutes). */
export const SHELL_DEFAULT_TIMEOUT_MS = 120_000;
/** The largest `timeout_ms` (10 minutes). */
export const SHELL_MAX_TIMEOUT_MS = 600_000;
/**
 * The default output budget of one shell result (8 MiB). Generous on purpose: the host stores the
 * result whole for paging (it was 64 KiB, so a stored `seq 1 30000` held 65,782 of its 168,894
 * bytes); the bound only keeps a flood from being held in memory at once.
 */
export const SHELL_DEFAULT_OUTPUT_BYTES = 8 * 1024 * 1024;
/** The default `wait` of job_output (30 s). */
export const JOB_OUTPUT_DEFAULT_WAIT_MS = 30_000;

/** The job manager of the agent making a call (see {@link ShellToolsOptions.jobs}). */
export function jobsFor(options: ShellToolsOptions, context: ToolCallContext): JobManager {
  return typeof options.jobs === 'function' ? options.jobs(context) : options.jobs;
}
