import type { AnyToolDefinition } from '@toolhost/contracts';
import { createBashTool } from './bash.js';
import { createJobKillTool } from './job-kill.js';
import { createJobOutputTool } from './job-output.js';
import { createBashOutputTool, createKillShellTool, createWaitTool } from './legacy-job-aliases.js';
import { createPwshTool } from './pwsh.js';
import type { ShellToolsOptions } from './shell-tools-options.js';

/**
 * Requirements of the shell built-ins: ST-1, ST-2, SH-1..SH-7, PS-2, PS-3, JO-1..JO-7, JK-1..JK-3 and
 * LG-1..LG-4 in this package's REQUIREMENTS.md (tests cite the ids; the mechanism's own are in
 * `@toolhost/jobs` REQUIREMENTS.md).
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
