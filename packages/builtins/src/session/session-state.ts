import type { ToolCallContext } from '@toolhost/contracts';

/** A task's progress in a todo list. */
export type TodoStatus = 'pending' | 'in_progress' | 'completed';

/** One task of a session's todo list, as `todo_write` stored it. */
export interface TodoItem {
  readonly id: string;
  readonly content: string;
  readonly status: TodoStatus;
}

/**
 * A goal's status: `active` (automatic rounds may run), `paused` (a person stopped it for now),
 * `blocked` (it cannot go on; the reason says why), `completed`. Every status but `completed` is
 * unfinished: `create_goal` never replaces such a goal.
 */
export type GoalStatus = 'active' | 'paused' | 'blocked' | 'completed';

/** A session's goal: what survives a snapshot and `--resume`. */
export interface GoalRecord {
  /** `goal_` and 16 hex characters. */
  readonly id: string;
  /** 1 at creation; every accepted update adds one. */
  readonly revision: number;
  readonly objective: string;
  /** Most automatic rounds of one activation; `null` is unlimited. */
  readonly maxGoalRounds: number | null;
  readonly status: GoalStatus;
  /** Why the goal is blocked (only while `status` is `blocked`). */
  readonly blockedReason: string | null;
  /** ISO 8601 times. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * The automatic rounds run for the goal in this process since it was created or last resumed. It
 * lives only as long as the process: a resumed session starts a new activation.
 */
export interface GoalActivation {
  readonly roundsRun: number;
  readonly startedAt: string;
}

/**
 * Why automatic rounds stopped (in this process): the goal was completed, blocked or paused, or the
 * activation used up its `maxGoalRounds`.
 */
export type GoalStopReason = 'completed' | 'blocked' | 'paused' | 'round_limit';

/** A session's goal with its in-process activation and stop reason. */
export interface GoalState {
  readonly goal: GoalRecord;
  /** `null` while no automatic round may run (the goal is not active). */
  readonly activation: GoalActivation | null;
  readonly stopReason: GoalStopReason | null;
}

/** A file `present` recorded as a user-facing deliverable: its path and description, never its bytes. */
export interface Deliverable {
  /** The path relative to the project root, as the model is shown it. */
  readonly path: string;
  readonly description?: string;
  /** The file's size when it was presented. */
  readonly bytes: number;
}

/** One real user message of the provider-visible conversation, as a conversation port lists it. */
export interface ConversationUserMessage {
  /** The embedding loop's id of the message (opaque to the host). */
  readonly id: string;
  readonly text: string;
}

/** What `compress` asks the embedding loop to do, once the host checked the anchor. */
export interface ConversationCompressRequest {
  /** The user message the anchor was found in. */
  readonly messageId: string;
  /** The messages before that user message, or after it up to the call's own assistant turn. */
  readonly direction: 'before' | 'after';
  readonly instructions?: string;
  /** Fires when the call is cancelled or times out. */
  readonly signal: AbortSignal;
}

/** The loop's answer: the range was summarised and replaced, or why not (nothing changed then). */
export type ConversationCompressOutcome =
  | {
      readonly ok: true;
      /** How many provider-visible messages the summary replaced. */
      readonly replacedMessages: number;
      /** The summary's length in characters. */
      readonly summaryChars: number;
    }
  | {
      readonly ok: false;
      /** `empty_range`: nothing lies in that direction; `failed`: the summary could not be made. */
      readonly reason: 'empty_range' | 'unknown_message' | 'failed';
      /** A value-free sentence for the model. */
      readonly message: string;
    };

/**
 * The embedding loop's view of one session's provider-visible conversation, for `compress`. Only a
 * loop that owns a conversation (`toolhost run`) gives a session one; the transcript it keeps is its
 * own business and never shrinks.
 */
export interface ConversationPort {
  /** The real user messages (a person's, not the loop's own notes), oldest first. */
  userMessages(): readonly ConversationUserMessage[];
  /** Summarises the chosen range with the model and replaces it in the provider-visible conversation. */
  compress(request: ConversationCompressRequest): Promise<ConversationCompressOutcome>;
}

/**
 * One session's state as the session tools read and replace it. Every replacement is whole and
 * synchronous, so a tool's check-then-replace cannot interleave with another call.
 */
export interface SessionStateAccess {
  todos(): readonly TodoItem[];
  replaceTodos(todos: readonly TodoItem[]): void;
  goal(): GoalState | null;
  replaceGoal(goal: GoalState): void;
  deliverables(): readonly Deliverable[];
  replaceDeliverables(deliverables: readonly Deliverable[]): void;
  /** Whether the session is in its plan phase (present is refused then). */
  inPlanPhase(): boolean;
  /** The embedding loop's conversation, when it gave the session one (compress needs it). */
  readonly conversation: ConversationPort | undefined;
}

/** How the session tools find the calling session's state: by the call's `context.sessionId`. */
export type SessionStatePort = (context: ToolCallContext) => SessionStateAccess;
