import { defineTool, errorResult, type ToolDefinition, textResult } from '@toolhost/contracts';
import { createGoal, goalModelView } from './goal-protocol.js';
import type { CreateGoalArguments } from './session-arguments.js';
import { createGoalArgumentsSchema } from './session-schemas.generated.js';
import { SESSION_WRITE_ANNOTATIONS, type SessionToolsOptions } from './session-tool-options.js';

const DESCRIPTION = [
  'Create and activate a long-running goal for this session, only in a direct human turn where the person asked for work that should go on over several automatic rounds (never on your own initiative).',
  'While the goal is active and rounds remain, the host keeps the work going in automatic goal rounds until you complete or block it with update_goal.',
  'Returns the goal with its id and revision 1. max_goal_rounds limits the automatic rounds; omitted or null means unlimited. An unfinished goal is never replaced (GOAL_CONFLICT).',
].join(' ');

/**
 * Creates `create_goal` (group `utility_builtins`, read-only flag false, sequential). Error codes:
 * `PERMISSION_DENIED` (an automatic goal round), `GOAL_CONFLICT` (an unfinished goal exists, named).
 */
export function createCreateGoalTool(options: SessionToolsOptions): ToolDefinition<CreateGoalArguments> {
  return defineTool({
    name: 'create_goal',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: SESSION_WRITE_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: 10_000, abortable: false },
    pathAccess: 'none',
    visibility: 'listed',
    sessionScoped: true,
    modelTool: { name: 'create_goal', description: DESCRIPTION, inputSchema: createGoalArgumentsSchema },
    permission: { preview: () => 'create_goal' },
    async execute(args, context) {
      const state = options.state(context);
      const created = createGoal(state.goal(), args, context.turn);
      if (!created.ok) return errorResult(created.error);
      state.replaceGoal(created.value);
      const { goal } = created.value;
      return textResult(JSON.stringify({ goal: goalModelView(created.value) }, null, 2), {
        goalId: goal.id,
        revision: goal.revision,
        status: goal.status,
      });
    },
  });
}
