import { type ArgumentSchema, defineTool, type ToolDefinition, type ToolResult } from '@toolhost/contracts';
import type { BashArguments, PwshArguments } from './shell-arguments.js';
import { runShellCall, SHELL_ANNOTATIONS, SHELL_EXECUTION_TIMEOUT_MS, shellPermission } from './shell-run.js';
import type { ShellToolsOptions } from './shell-tools-options.js';

/** What tells one shell tool from the other: the shell, its model view and a check before anything runs. */
export interface ShellToolSpec<A extends BashArguments | PwshArguments> {
  /** The tool's name, which is also the shell the job runs in. */
  readonly shell: 'bash' | 'pwsh';
  readonly description: string;
  readonly inputSchema: ArgumentSchema<A>;
  /** A refusal of the arguments before anything runs (pwsh on Windows PowerShell 5.1), or `undefined`. */
  readonly refuse?: (args: A) => ToolResult | undefined;
}

/**
 * Declares a shell tool (`bash`, `pwsh`): group `shell_builtins`, category `shell`, sequential,
 * abortable, annotations destructive + open-world, `permission.subject` = the command (for
 * `bash(git status:*)` rules), `permission.paths` = the workdir (list access), `resultShape: 'shell'`;
 * a call runs through {@link runShellCall} in the spec's shell.
 */
export function defineShellTool<A extends BashArguments | PwshArguments>(
  options: ShellToolsOptions,
  spec: ShellToolSpec<A>,
): ToolDefinition<A> {
  const { shell, refuse } = spec;
  return defineTool<A>({
    name: shell,
    source: 'builtin',
    group: 'shell_builtins',
    category: 'shell',
    annotations: SHELL_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: SHELL_EXECUTION_TIMEOUT_MS, abortable: true },
    pathAccess: 'current_project',
    visibility: 'listed',
    resultShape: 'shell',
    modelTool: { name: shell, description: spec.description, inputSchema: spec.inputSchema },
    permission: shellPermission(shell),
    execute: (args, context) => {
      const refused = refuse?.(args);
      return refused ? Promise.resolve(refused) : runShellCall(options, shell, args, context);
    },
  });
}
