import type { AnyToolDefinition } from '@toolhost/contracts';
import { createCompressTool } from './compress.js';
import { createCreateGoalTool } from './create-goal.js';
import { createGetGoalTool } from './get-goal.js';
import { createPresentTool } from './present.js';
import type { SessionToolsOptions } from './session-tool-options.js';
import { createTodoWriteTool } from './todo-write.js';
import { createUpdateGoalTool } from './update-goal.js';

/**
 * Creates the session tools of the contract, in this order: `todo_write`, `create_goal`,
 * `get_goal`, `update_goal`, `present`, and `compress` when `conversationTools` is set. All are in
 * group `utility_builtins`, `sessionScoped` (they change only the calling session's own state, found
 * through `state` by the call's session id) and keep their state in the session, so it survives its
 * snapshot. The goal tools take their authority from the call's turn origin (`context.turn`).
 */
export function createSessionTools(options: SessionToolsOptions): AnyToolDefinition[] {
  if (typeof options?.state !== 'function')
    throw new TypeError('createSessionTools: state is required (the session state port)');
  if (!options.pathPolicy) throw new TypeError('createSessionTools: pathPolicy is required');
  return [
    createTodoWriteTool(options),
    createCreateGoalTool(options),
    createGetGoalTool(options),
    createUpdateGoalTool(options),
    createPresentTool(options),
    ...(options.conversationTools === true ? [createCompressTool(options)] : []),
  ];
}
