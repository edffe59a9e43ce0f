import type {
  ContentBlock,
  ErrorCode,
  ErrorDetails,
  ToolAnnotations,
  ToolCategory,
  ToolGroup,
  ToolInvocation,
  ToolProgress,
  ToolSource,
  TurnOrigin,
} from '@toolhost/contracts';
import type {
  ApprovalPolicy,
  PermissionDecision,
  PermissionSource,
  SandboxMode,
} from './decide-permission.js';

/** One tool call as the model proposed it. */
export interface ToolCall {
  /** The provider's call id; generated (`call_<n>`) when missing. */
  readonly id?: string;
  readonly name: string;
  /** An object, a JSON string, or empty / `null` (meaning `{}`). */
  readonly arguments?: unknown;
}

/** Where a turn's calls come from: a person's direct turn, or an automatic round of a goal. */
export type { TurnOrigin };

/** Options of `dispatch` and `dispatchBatch` (of a session or of the host's default session). */
export interface DispatchOptions {
  /** Cancels the calls still running (reported as `ABORTED`). */
  readonly signal?: AbortSignal;
  /**
   * Receives the progress of the running calls (a tool's own reports, and an upstream MCP server's
   * progress reached through `use_capability`), with the call id.
   */
  readonly onProgress?: (progress: ToolProgress & { readonly callId: string }) => void;
  /**
   * Who started this turn; default a person's direct turn. It reaches every call's handler
   * (`ToolCallContext.turn`): the goal tools take their authority from it.
   */
  readonly turn?: TurnOrigin;
  /**
   * A W3C `traceparent` of the caller (an MCP client's `_meta.traceparent`): recorded on
   * `call-received`, so traces of the calls continue the caller's. Ignored unless well-formed.
   */
  readonly traceparent?: string;
}

/** The error part of a dispatch result: `message` is the model text without the code (`cause; recovery`). */
export interface DispatchError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: ErrorDetails;
}

/**
 * The outcome of one call: exactly what a session line needs. `output` is the model-visible text
 * (for a failure, `CODE: cause; recovery` followed by any output the tool produced), at most 32 KiB.
 */
export interface DispatchResult {
  readonly id: string;
  /** The name as called. */
  readonly name: string;
  /** The tool it resolved to, or `null` when it did not resolve. */
  readonly toolName: string | null;
  readonly status: 'ok' | 'error';
  readonly output: string;
  /** The model-visible blocks: the shaped text first (when any), then images and links as the tool returned them. */
  readonly content: readonly ContentBlock[];
  readonly error: DispatchError | null;
  /** Set when the result was truncated and its full body kept for `session:tool_result`. */
  readonly resultRef: string | null;
  readonly truncated: boolean;
  /** The tool's value-free details (sizes, ids, statuses), for hosts and audits, never for the model. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Third-party text the model must not treat as instructions. */
  readonly untrusted?: boolean;
  /** The storm breaker's advisory guidance, on a single dispatch (a batch carries it on the batch). */
  readonly notice?: string;
  /** The permission decision, when the call got that far. */
  readonly permission?: PermissionDecision;
  /**
   * Set when a hook (`continue: false`) or an extension asked the embedding loop to stop: the reason
   * is for the person, not the model. Later calls of the batch were not run.
   */
  readonly stop?: StopRequest;
  readonly durationMs: number;
}

/** A hook's or an extension's request that the embedding loop stop. */
export interface StopRequest {
  readonly reason: string;
  /** `hook:<event>` or `extension:<name>`. */
  readonly by: string;
}

/** The outcome of one assistant turn's calls, in the model's order. */
export interface BatchResult {
  readonly results: readonly DispatchResult[];
  /** The storm breaker's advisory guidance, when it speaks. */
  readonly notice?: string;
  /** The first stop request of the batch (see {@link DispatchResult.stop}). */
  readonly stop?: StopRequest;
}

/** A path a call touches, after the path policy resolved it. */
export interface ResolvedPathTarget {
  readonly argument: string;
  /** The real path the policy resolved. */
  readonly path: string;
  /** The path as shown to people and the model (root-relative where possible). */
  readonly displayPath: string;
  readonly access: 'read' | 'write' | 'list';
}

/** What a person is asked to approve. */
export interface ApprovalRequest {
  readonly callId: string;
  readonly toolName: string;
  readonly source: ToolSource;
  readonly group: ToolGroup;
  readonly category: ToolCategory;
  readonly annotations: ToolAnnotations;
  readonly invocation: ToolInvocation;
  readonly sandbox: SandboxMode;
  readonly approval: ApprovalPolicy;
  /** Why the call needs approval. */
  readonly reason: string;
  readonly decisionSource: PermissionSource;
  readonly rule?: string;
  /** What argument rules match (the shell command), for "always allow" prompts. */
  readonly subject?: string;
  /** A short human preview of the action (may quote arguments: it is for the person, never logged). */
  readonly preview?: string;
  readonly paths: readonly ResolvedPathTarget[];
  /** What the person may answer: `allow_session` only when {@link ApprovalRequest.remember} is set. */
  readonly choices: readonly ApprovalChoice[];
  /**
   * What "allow for this session" would remember: the exact tool name, or for a shell command a
   * prefix rule such as `bash(git push:*)`. Absent when the answer cannot be remembered (a configured
   * `ask` rule, a hook's or the plan's question, a compound command).
   */
  readonly remember?: string;
  /** Fires when the approval times out or the call is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * A person's three answers: run this call once, run it and every call {@link ApprovalRequest.remember}
 * covers for the rest of the session without asking, or refuse it.
 */
export type ApprovalChoice = 'allow_once' | 'allow_session' | 'deny';

/**
 * A person's answer: a choice, `true` / `false` (once / deny), or an object with a reason that the
 * model sees on a denial. `{ decision: 'unavailable' }` says no one could be asked after all (an MCP
 * client without elicitation): the call fails closed with `APPROVAL_REQUIRED`, naming what would allow it.
 */
export type ApprovalAnswer =
  | boolean
  | ApprovalChoice
  | { readonly approved: boolean; readonly reason?: string }
  | { readonly decision: ApprovalChoice | 'unavailable'; readonly reason?: string };

/** A host's way to ask a person. */
export type ApproveCallback = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;
