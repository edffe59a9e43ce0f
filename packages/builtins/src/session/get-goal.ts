import { defineTool, type ToolDefinition, textResult } from '@toolhost/contracts';
import { goalModelView } from './goal-protocol.js';
import type { GetGoalArguments } from './session-arguments.js';
import { getGoalArgumentsSchema } from './session-schemas.generated.js';
import { SESSION_READ_ANNOTATIONS, type SessionToolsOptions } from './session-tool-options.js';

const DESCRIPTION =
  "Read the session's current goal: its id, revision, status, objective and round limit, its activation in this process (automatic rounds run and remaining) and why automatic rounds stopped (stop_reason). goal is null when the session has none.";

/** Creates `get_goal` (group `utility_builtins`, read-only, parallel). Never fails. */
export function createGetGoalTool(options: SessionToolsOptions): ToolDefinition<GetGoalArguments> {
  return defineTool({
    name: 'get_goal',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: SESSION_READ_ANNOTATIONS,
    execution: { mode: 'parallel', timeoutMs: 10_000, abortable: false },
    pathAccess: 'none',
    visibility: 'listed',
    sessionScoped: true,
    modelTool: { name: 'get_goal', description: DESCRIPTION, inputSchema: getGoalArgumentsSchema },
    async execute(_args, context) {
      const current = options.state(context).goal();
      return textResult(
        JSON.stringify({ goal: goalModelView(current) }, null, 2),
        current
          ? { goalId: current.goal.id, revision: current.goal.revision, status: current.goal.status }
          : { goalId: null },
      );
    },
  });
}
