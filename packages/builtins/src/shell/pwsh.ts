import { defineTool, errorResult, type ToolDefinition, ToolhostError } from '@toolhost/contracts';
import type { PwshArguments } from './shell-arguments.js';
import { findPowerShellChainOperator } from './shell-powershell.js';
import { runShellCall, SHELL_ANNOTATIONS, SHELL_EXECUTION_TIMEOUT_MS, shellPermission } from './shell-run.js';
import { pwshArgumentsSchema } from './shell-schemas.generated.js';
import type { ShellToolsOptions } from './shell-tools-options.js';

const DESCRIPTION = [
  'Run a PowerShell command on Windows and return its output (all streams merged, in order, as UTF-8). Use it for builds, tests, git, package managers and other programs; read, search and edit files with the dedicated tools instead.',
  'Each call starts an isolated PowerShell process (no profile) in workdir (default: the project root): Set-Location and variables do not carry over. There is no terminal and no stdin.',
  'Write commands that also work in Windows PowerShell 5.1: separate commands with ";" and run the next only on success with "if ($?) { ... }" (not && or ||).',
  'description is required. Foreground commands time out after timeout_ms (default 2 minutes, at most 10); the command and everything it started are then killed. A non-zero exit is reported as an error that still includes the output.',
  'For servers, watchers and long builds use run_in_background=true: it returns a pwsh-<n> job id at once; read the output with job_output and stop it with job_kill.',
].join(' ');

/**
 * Creates the `pwsh` tool (Windows), with the same facts as `bash` (see `createBashTool`). The command
 * runs as `-NoProfile -NonInteractive -EncodedCommand` with UTF-8 output forced (`@toolhost/jobs`).
 * With `powershellEdition: 'desktop'` (Windows PowerShell 5.1), a command using `&&` or `||` outside
 * strings and comments is refused with `ARGUMENT_VALIDATION` and guidance, before anything runs.
 */
export function createPwshTool(options: ShellToolsOptions): ToolDefinition<PwshArguments> {
  return defineTool({
    name: 'pwsh',
    source: 'builtin',
    group: 'shell_builtins',
    category: 'shell',
    annotations: SHELL_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: SHELL_EXECUTION_TIMEOUT_MS, abortable: true },
    pathAccess: 'current_project',
    visibility: 'listed',
    resultShape: 'shell',
    modelTool: { name: 'pwsh', description: DESCRIPTION, inputSchema: pwshArgumentsSchema },
    permission: shellPermission('pwsh'),
    async execute(args, context) {
      if ((options.powershellEdition ?? 'core') === 'desktop') {
        const chain = findPowerShellChainOperator(args.command);
        if (chain) {
          return errorResult(
            new ToolhostError({
              code: 'ARGUMENT_VALIDATION',
              message: `Windows PowerShell 5.1 does not support the ${chain.operator} operator; nothing was run`,
              recovery:
                chain.operator === '&&'
                  ? 'separate the commands with ";" and run the second only on success: first; if ($?) { second }'
                  : 'separate the commands with ";" and run the second only on failure: first; if (-not $?) { second }',
              details: { argument: 'command', operator: chain.operator },
            }),
          );
        }
      }
      return runShellCall(options, 'pwsh', args, context);
    },
  });
}
