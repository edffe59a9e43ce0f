// Argument types of the subagent tools (task, parallel_tasks, read_subagent_result). The JSDoc here is
// what the model reads as each parameter's description, so each description is one line.
// `pnpm --filter @toolhost/builtins gen:schemas` turns these types into src/subagent-schemas.generated.ts.

/** One subagent (the arguments of `task`). */
export interface TaskArguments {
  /**
   * A short label for the task (a few words), shown with its result.
   * @minLength 1
   * @maxLength 200
   */
  description: string;
  /**
   * The complete instructions for the subagent: it sees nothing of this conversation, only this text and the project.
   * @minLength 1
   * @maxLength 100000
   */
  prompt: string;
  /** true: the subagent may only read (read-only sandbox, no editing tools, only read-only MCP tools). Default false: this session's own policy. */
  read_only?: boolean;
  /**
   * The Subagent reference (sa_...) of a partial, failed or cancelled subagent to continue with its conversation; prompt is then the next instruction.
   * @minLength 1
   * @maxLength 64
   */
  continue_from?: string;
}

/** Arguments of `parallel_tasks`: several independent subagents at once. */
export interface ParallelTasksArguments {
  /**
   * The subagents to run at the same time, each with its own description, prompt, read_only and continue_from.
   * @minItems 1
   * @maxItems 8
   */
  tasks: TaskArguments[];
}

/** Arguments of `read_subagent_result`. */
export interface ReadSubagentResultArguments {
  /**
   * The Subagent reference (sa_...) from a task or parallel_tasks result.
   * @minLength 1
   * @maxLength 64
   */
  reference: string;
  /**
   * UTF-8 byte offset to start at (the next_offset of the previous page). Default 0.
   * @TJS-type integer
   * @minimum 0
   */
  offset?: number;
  /**
   * Most bytes of the page. Default 16384, at most 24576.
   * @TJS-type integer
   * @minimum 1
   * @maximum 24576
   */
  limit?: number;
}
