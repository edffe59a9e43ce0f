import { defineTool, type ToolCallContext, type ToolDefinition, textResult } from '@toolhost/contracts';
import type { ExitPlanModeArguments } from './plan-arguments.js';
import { exitPlanModeArgumentsSchema } from './plan-schemas.generated.js';

/** The name of the tool that ends a session's plan phase. */
export const EXIT_PLAN_MODE = 'exit_plan_mode';

/** A session's plan phase as the tool sees it. */
export interface SessionPlanPhase {
  /** True until a person approved the plan. */
  readonly active: boolean;
  /** The session's configured sandbox, which applies once the plan is approved. */
  readonly sandbox: string;
  /** Ends the phase (called only after a person approved the plan); returns a note for the model, if any. */
  end(): string | undefined;
}

const DESCRIPTION = [
  'Present your plan for approval and leave plan mode. This session started in a plan phase: explore and read freely, but editing files, writing or destructive tools and commands that change files are refused (PLAN_NOT_APPROVED) until a person approves a plan.',
  'When you know what to do, call this once with the complete plan (steps, files to change, how you will check the result). If it is approved, the session continues with its configured permissions and you carry out the plan; if it is declined, keep planning and revise it.',
].join(' ');

/**
 * Creates `exit_plan_mode` (hidden: only a plan-mode session's surface lists it, fixed for the
 * whole session). The permission step asks a person before it runs whenever the session is still
 * planning (it fails closed where no one can be asked); the handler then ends the phase. Outside a
 * plan phase it changes nothing and says so.
 */
export function createExitPlanModeTool(options: {
  readonly planOf: (context: ToolCallContext) => SessionPlanPhase | undefined;
}): ToolDefinition<ExitPlanModeArguments> {
  return defineTool({
    name: EXIT_PLAN_MODE,
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: { readOnly: true, destructive: false, openWorld: false, idempotent: true },
    execution: { mode: 'sequential', timeoutMs: 10_000, abortable: true },
    pathAccess: 'none',
    visibility: 'hidden',
    modelTool: { name: EXIT_PLAN_MODE, description: DESCRIPTION, inputSchema: exitPlanModeArgumentsSchema },
    permission: {
      // For the person who approves it (never logged).
      preview: (args) => args.plan,
    },
    async execute(_args, context) {
      const phase = options.planOf(context);
      if (!phase) {
        return textResult(
          'This session is not in a plan phase, so there is nothing to approve; carry on within the run policy.',
        );
      }
      if (!phase.active) return textResult('The plan was approved already; carry it out.');
      const note = phase.end();
      return textResult(
        `The plan was approved. The session now runs under its configured sandbox (${phase.sandbox}): editing tools and commands that change files work again. Carry out the plan.${note ? `\n\n${note}` : ''}`,
      );
    },
  });
}
