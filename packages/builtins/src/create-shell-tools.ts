import type { AnyToolDefinition } from '@toolhost/contracts';
import { createBashTool } from './bash.js';
import { createJobKillTool } from './job-kill.js';
import { createJobOutputTool } from './job-output.js';
import { createBashOutputTool, createKillShellTool, createWaitTool } from './legacy-job-aliases.js';
import { createPwshTool } from './pwsh.js';
import type { ShellToolsOptions } from './shell-tools-options.js';

/**
 * Requirements of the shell built-ins (tests cite the ids; the mechanism's own are in
 * `@toolhost/jobs` REQUIREMENTS.md):
 * - ST-1 only the platform's shell is registered: `bash` on POSIX, `pwsh` on Windows;
 * - ST-2 facts: group `shell_builtins`, category `shell`; the shell sequential, abortable,
 *   destructive + open-world, `resultShape: 'shell'`; job_output read-only; job_kill not;
 * - SH-1 the output (stdout and stderr merged in order) is bounded to a head and a tail with a marker
 *   that names the log and a command reading any range of it; `(no output)` when empty;
 * - SH-2 a non-zero exit is `COMMAND_FAILED` carrying all the output and the exit code in details;
 * - SH-3 a foreground command times out after `timeout_ms` (default 120 s, at most 600 s): the tree
 *   is killed and the result is `TIMEOUT` ("timed out (> 2m0s)") with the output so far;
 * - SH-4 `run_in_background` returns the job id at once with the job_output / job_kill recipe;
 * - SH-5 completion is the main process's exit: a grandchild holding stdout cannot delay it;
 * - SH-6 `workdir` goes through the path policy (list access) before anything is spawned;
 * - PS-2 `pwsh` requires `description`; PS-3 on Windows PowerShell 5.1, `&&` / `||` outside strings
 *   and comments are refused with guidance before anything runs;
 * - JO-1..JO-6 job_output: incremental output or `(no new output)` then `[status: ...]`; wait never
 *   kills; default wait 30 s, `timeout_ms` 1..600000; an invalid filter consumes nothing; unknown id
 *   `JOB_NOT_FOUND`, closed manager "not available in this context"; failure metadata;
 * - JK-1..JK-3 job_kill: `[status: killed]` at once and the tree gone afterwards; a finished or
 *   unknown job is a normal result; `job_id` required, `reason` optional;
 * - LG-1..LG-4 `bash_output`, `kill_shell`, `wait`: hidden, callable by name, formats of
 *   reasonix-notes §6.6.
 *
 * Creates the shell built-ins, in this order: the platform's shell (`bash` on POSIX, `pwsh` on
 * Windows: only one is ever registered; the host maps the synonyms `shell`, `powershell` and the
 * other shell's name to it), `job_output`, `job_kill`, and the hidden legacy aliases `bash_output`,
 * `kill_shell` and `wait` (callable by name, listed nowhere). All are in group `shell_builtins` and
 * share one job manager, so ids, read cursors and kills are common to all of them.
 *
 * Throws a `TypeError` for an unknown platform or a default timeout outside 1..600 000 ms.
 */
export function createShellTools(options: ShellToolsOptions): AnyToolDefinition[] {
  if (options.platform !== 'posix' && options.platform !== 'windows') {
    throw new TypeError('createShellTools: platform must be "posix" or "windows"');
  }
  const timeout = options.defaultTimeoutMs;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1 || timeout > 600_000)) {
    throw new TypeError('createShellTools: defaultTimeoutMs must be an integer from 1 to 600000');
  }
  return [
    options.platform === 'posix' ? createBashTool(options) : createPwshTool(options),
    createJobOutputTool(options),
    createJobKillTool(options),
    createBashOutputTool(options),
    createKillShellTool(options),
    createWaitTool(options),
  ];
}
