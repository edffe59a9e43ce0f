import type { SubagentStatus } from '@toolhost/builtins';
import type { JsonValue } from '@toolhost/contracts';
import type { Session } from './session-types.js';

export type { SubagentStatus } from '@toolhost/builtins';

/** What an earlier run of a subagent left, handed back when `continue_from` resumes it. */
export interface SubagentResume {
  /** The runner's own state of that run (its conversation), as it returned it; `undefined` when none was kept. */
  readonly state: JsonValue | undefined;
  readonly status: SubagentStatus;
  /** That run's last visible answer. */
  readonly answer: string;
  /** How many runs the reference had so far. */
  readonly runs: number;
}

/** One subagent to run, as the host hands it to its {@link SubagentRunner}. */
export interface SubagentRunRequest {
  /** The stable `Subagent reference` (`sa_...`), the same across continuations. */
  readonly reference: string;
  readonly description: string;
  /** The instructions (for a continuation: the next instruction). */
  readonly prompt: string;
  /** A strict read-only subagent (its session is a `readOnlyStrict` child). */
  readonly readOnly: boolean;
  /**
   * The subagent's own session, a child of the caller's: dispatch its calls here (its policy is
   * never wider than the caller's). The host opened it and closes it after the run.
   */
  readonly session: Session;
  readonly parentSessionId: string;
  /** Set when `continue_from` resumes an earlier run. */
  readonly resume?: SubagentResume;
  /** Fires when the caller's call is cancelled: stop promptly (the host records `cancelled`). */
  readonly signal: AbortSignal;
}

/** How a subagent's run ended, as the runner reports it. */
export interface SubagentRunOutcome {
  /** `completed` (it answered), `partial` (stopped by its step limit), `failed`, `cancelled`. */
  readonly status: SubagentStatus;
  /** The last visible answer ('' when there is none). */
  readonly answer: string;
  /** Whether `continue_from` may resume it. Default: `true` for all but `completed`. */
  readonly retryable?: boolean;
  /** What a continuation needs (the conversation), JSON only; handed back as {@link SubagentResume.state}. */
  readonly state?: JsonValue;
  /** For `failed`: a code and a value-free message. */
  readonly error?: { readonly code: string; readonly message: string };
  /** Where the run's transcript was written, if anywhere. */
  readonly transcript?: string;
}

/**
 * The port an embedding agent loop gives the host (`createHost({ subagents })`) to run subagents:
 * the host registers `task`, `parallel_tasks` and `read_subagent_result` only when it has one. The
 * host opens each subagent's child session, persists the outcome per session lineage and renders
 * the results; the runner only talks to the model. `run` should not reject: a rejection is
 * recorded as `failed` (or `cancelled`, once the signal fired).
 */
export interface SubagentRunner {
  run(request: SubagentRunRequest): Promise<SubagentRunOutcome>;
}

/** One persisted subagent result (`<state dir>/sessions/<lineage root>/subagents/<reference>.json`). */
export interface SubagentRecord {
  readonly format: 'toolhost-subagent-v1';
  readonly reference: string;
  /** The root session of the lineage it belongs to. */
  readonly lineageId: string;
  /** The real project root. */
  readonly root: string;
  readonly parentSessionId: string;
  readonly description: string;
  readonly readOnly: boolean;
  readonly status: SubagentStatus;
  readonly retryable: boolean;
  readonly runs: number;
  /** The child session of every run, oldest first. */
  readonly sessionIds: readonly string[];
  /** The transcripts the runner reported, oldest first. */
  readonly transcripts: readonly string[];
  /** The answer's file (next to the record), its size in UTF-8 bytes and SHA-256. */
  readonly answerFile: string;
  readonly answerBytes: number;
  readonly answerSha256: string;
  /** Set when the answer was longer than the host keeps ({@link MAX_SUBAGENT_ANSWER_BYTES}). */
  readonly answerTruncated?: true;
  /** The runner's state file, when one is kept. */
  readonly stateFile?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The longest answer kept: 8 MiB (a longer one is cut on a character boundary and marked). */
export const MAX_SUBAGENT_ANSWER_BYTES = 8 * 1024 * 1024;
/** The largest runner state kept for `continue_from`: 64 MiB (a larger one makes the result not retryable). */
export const MAX_SUBAGENT_STATE_BYTES = 64 * 1024 * 1024;
