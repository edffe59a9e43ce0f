// Argument types of the session tools (todo_write, create_goal, get_goal, update_goal, present,
// compress). The JSDoc here is what the model reads as each parameter's description, so each
// description is one line. `pnpm --filter @toolhost/builtins gen:schemas` turns these types into
// src/session-schemas.generated.ts.

/** One task of a todo list. */
export interface TodoWriteItem {
  /**
   * What the task is, in a few words.
   * @minLength 1
   * @maxLength 2000
   */
  content: string;
  /** The task's real progress: pending, in_progress or completed. */
  status: 'pending' | 'in_progress' | 'completed';
  /**
   * A stable id of the task (letters, digits, "_" or "-"); default one is assigned ("t1", "t2" ...).
   * @minLength 1
   * @maxLength 64
   * @pattern ^[A-Za-z0-9_-]+$
   */
  id?: string;
}

/** Arguments of `todo_write`. */
export interface TodoWriteArguments {
  /**
   * The whole task list, in order; it replaces the previous list (an empty list clears it).
   * @maxItems 100
   */
  todos: TodoWriteItem[];
}

/** Arguments of `create_goal`. */
export interface CreateGoalArguments {
  /**
   * What the goal achieves when it is done, as the person asked for it.
   * @minLength 1
   * @maxLength 4000
   */
  objective: string;
  /**
   * Most automatic goal rounds the host may run for it; omitted or null means unlimited.
   * @TJS-type ["integer", "null"]
   * @minimum 1
   * @maximum 1000
   */
  max_goal_rounds?: number | null;
}

/** Arguments of `get_goal` (none). */
export type GetGoalArguments = Record<string, never>;

/** Arguments of `update_goal`. */
export interface UpdateGoalArguments {
  /**
   * The id of the goal, exactly as get_goal returned it.
   * @minLength 1
   * @maxLength 64
   */
  goal_id: string;
  /**
   * The goal's revision as last read; a goal that changed since is refused.
   * @TJS-type integer
   * @minimum 1
   */
  revision: number;
  /** edit (objective, max_goal_rounds), pause, resume, complete, or blocked (blocked_reason); continue is retired and refused. */
  action: 'edit' | 'pause' | 'resume' | 'complete' | 'blocked' | 'continue';
  /**
   * The new objective (edit only).
   * @minLength 1
   * @maxLength 4000
   */
  objective?: string;
  /**
   * The new limit of automatic rounds, null for unlimited (edit only).
   * @TJS-type ["integer", "null"]
   * @minimum 1
   * @maximum 1000
   */
  max_goal_rounds?: number | null;
  /**
   * Why the goal cannot go on (blocked only).
   * @minLength 1
   * @maxLength 2000
   */
  blocked_reason?: string;
}

/** One deliverable of `present`. */
export interface PresentFile {
  /**
   * The file, relative to the project root; it must exist and be a regular file (not a symbolic link).
   * @minLength 1
   * @maxLength 4096
   */
  path: string;
  /**
   * What the file is for the person, in a sentence.
   * @maxLength 500
   */
  description?: string;
}

/** Arguments of `present`. */
export interface PresentArguments {
  /**
   * The user-facing deliverables, 1 to 8 existing files.
   * @minItems 1
   * @maxItems 8
   */
  files: PresentFile[];
}

/** Arguments of `compress`. */
export interface CompressArguments {
  /**
   * An exact excerpt of one real user message that occurs exactly once across them.
   * @minLength 1
   * @maxLength 2000
   */
  anchor: string;
  /** Summarise the conversation before that user message, or after it up to now. */
  direction: 'before' | 'after';
  /**
   * What the summary must keep (the user's own words on what matters).
   * @maxLength 4000
   */
  instructions?: string;
}
