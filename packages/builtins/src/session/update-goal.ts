import { defineTool, errorResult, type ToolDefinition, textResult } from '@toolhost/contracts';
import { goalModelView, updateGoal } from './goal-protocol.js';
import type { UpdateGoalArguments } from './session-arguments.js';
import { updateGoalArgumentsSchema } from './session-schemas.generated.js';
import { SESSION_WRITE_ANNOTATIONS, type SessionToolsOptions } from './session-tool-options.js';

const DESCRIPTION = [
  "Update the session's goal by its exact goal_id and revision (as get_goal returned them): edit (objective, max_goal_rounds), pause, resume, complete, or blocked (with blocked_reason).",
  'Only edit uses objective and max_goal_rounds and only blocked uses blocked_reason; other fields are ignored and reported.',
  "A stale revision is refused (GOAL_REVISION_MISMATCH): read the goal again. In a direct human turn every action is allowed; in an automatic goal round only complete or blocked of that round's own goal.",
  'The retired continue action is refused. Every accepted update adds one to the revision.',
].join(' ');

/**
 * Creates `update_goal` (group `utility_builtins`, read-only flag false, sequential), the exact
 * revision protocol of `updateGoal`. Error codes: `GOAL_NOT_FOUND`, `GOAL_REVISION_MISMATCH`,
 * `GOAL_CONFLICT`, `PERMISSION_DENIED` (an automatic round beyond its authority),
 * `ARGUMENT_VALIDATION` (`continue`, an empty edit, blocked without a reason).
 */
export function createUpdateGoalTool(options: SessionToolsOptions): ToolDefinition<UpdateGoalArguments> {
  return defineTool({
    name: 'update_goal',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: SESSION_WRITE_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: 10_000, abortable: false },
    pathAccess: 'none',
    visibility: 'listed',
    sessionScoped: true,
    modelTool: { name: 'update_goal', description: DESCRIPTION, inputSchema: updateGoalArgumentsSchema },
    permission: { subject: (args) => args.action, preview: (args) => `update_goal ${args.action}` },
    async execute(args, context) {
      const state = options.state(context);
      const updated = updateGoal(state.goal(), args, context.turn);
      if (!updated.ok) return errorResult(updated.error);
      state.replaceGoal(updated.value.state);
      const { goal } = updated.value.state;
      const { ignored } = updated.value;
      const view = { goal: goalModelView(updated.value.state), ...(ignored.length > 0 ? { ignored } : {}) };
      const note =
        ignored.length > 0
          ? `\n(ignored: ${ignored.join(', ')}: the action ${args.action} does not use ${ignored.length === 1 ? 'it' : 'them'})`
          : '';
      return textResult(`${JSON.stringify(view, null, 2)}${note}`, {
        goalId: goal.id,
        revision: goal.revision,
        status: goal.status,
        action: args.action,
        ...(ignored.length > 0 ? { ignored } : {}),
      });
    },
  });
}
