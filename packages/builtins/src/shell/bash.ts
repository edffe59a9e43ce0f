import { defineTool, type ToolDefinition } from '@toolhost/contracts';
import type { BashArguments } from './shell-arguments.js';
import { runShellCall, SHELL_ANNOTATIONS, SHELL_EXECUTION_TIMEOUT_MS, shellPermission } from './shell-run.js';
import { bashArgumentsSchema } from './shell-schemas.generated.js';
import type { ShellToolsOptions } from './shell-tools-options.js';

const DESCRIPTION = [
  'Run a bash command and return its output (stdout and stderr merged, in order). Use it for builds, tests, git, package managers and other programs; read, search and edit files with the dedicated tools instead.',
  "Each call starts a fresh shell in workdir (default: the project root): cd and variables do not carry over. The command runs inside the session's sandbox, with no terminal and no stdin.",
  'Foreground commands time out after timeout_ms (default 2 minutes, at most 10); the command and everything it started are then killed. A non-zero exit is reported as an error that still includes the output.',
  'For servers, watchers and long builds use run_in_background=true: it returns a job id at once; read the output with job_output and stop it with job_kill.',
].join(' ');

/**
 * Creates the `bash` tool (POSIX): group `shell_builtins`, category `shell`, sequential, abortable,
 * annotations destructive + open-world, `permission.subject` = the command (for `bash(git status:*)`
 * rules), `permission.paths` = the workdir (list access), `resultShape: 'shell'`. See
 * {@link runShellCall} for results and error codes.
 */
export function createBashTool(options: ShellToolsOptions): ToolDefinition<BashArguments> {
  return defineTool({
    name: 'bash',
    source: 'builtin',
    group: 'shell_builtins',
    category: 'shell',
    annotations: SHELL_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: SHELL_EXECUTION_TIMEOUT_MS, abortable: true },
    pathAccess: 'current_project',
    visibility: 'listed',
    resultShape: 'shell',
    modelTool: { name: 'bash', description: DESCRIPTION, inputSchema: bashArgumentsSchema },
    permission: shellPermission('bash'),
    execute: (args, context) => runShellCall(options, 'bash', args, context),
  });
}
