import type {
  ConversationPort,
  Deliverable,
  GoalRecord,
  GoalRound,
  GoalState,
  TodoItem,
} from '@toolhost/builtins';
import type { ModelTool, ToolAnnotations } from '@toolhost/contracts';
import type { CompiledTools, CompileToolsOptions, DialectName } from '@toolhost/provider-dialects';
import type { ObservationStoreSnapshot } from '@toolhost/read-evidence';
import type { ApprovalPolicy, SandboxMode } from './decide-permission.js';
import type {
  ApproveCallback,
  BatchResult,
  DispatchOptions,
  DispatchResult,
  ToolCall,
} from './host-types.js';
import type { SurfaceProfile } from './parse-host-config.js';

/** Compile options of `providerTools` (the dialect's own; hosted tools come from the registry). */
export type ProviderToolsOptions = Omit<CompileToolsOptions, 'dialect' | 'hosted'>;

/** A compiled surface: the dialect's compiled tools plus the fingerprint of the exact `tools` bytes. */
export type ProviderTools = CompiledTools & {
  /** 16 hex characters of SHA-256 of `JSON.stringify(tools)`. */
  readonly fingerprint: string;
};

/** A session's run policy: never wider than its host's (or its parent's, for a child). */
export interface SessionPolicy {
  readonly sandbox: SandboxMode;
  readonly approval: ApprovalPolicy;
  readonly surface: SurfaceProfile;
}

/** Options of `host.openSession` and `session.openChild`. */
export interface SessionOptions {
  /** The session's id (1-80 of `[A-Za-z0-9_-]`); default a new `ses_...`. An id that exists is `CONFIG_INVALID`. */
  readonly id?: string;
  /** At most the host's (parent's); default the same. A wider one is `CONFIG_INVALID`. */
  readonly sandbox?: SandboxMode;
  /** At least as strict as the host's (parent's); default the same. */
  readonly approval?: ApprovalPolicy;
  /** `full` only on a `full` host; default the same. */
  readonly surface?: SurfaceProfile;
  /** Asks this session's person; default the host's. */
  readonly approve?: ApproveCallback;
  /**
   * Start in a plan phase (default the host's `plan`): the surface is the normal one plus
   * `exit_plan_mode`, fixed for the session's life; until a person approves a plan through it,
   * editing tools, writing or destructive MCP tools and `present` are refused (`PLAN_NOT_APPROVED`)
   * and the shell runs in the read-only sandbox.
   */
  readonly plan?: boolean;
  /**
   * Keep the session on disk (`<state dir>/sessions/<id>/`: the snapshot, stored results, job logs)
   * so `host.resumeSession(id)` continues it after a restart. Default true.
   */
  readonly persist?: boolean;
  /**
   * The embedding loop's view of the session's provider-visible conversation. On a host created
   * with `conversationTools`, it puts `compress` on the session's surface (lean and full) and lets it
   * run; without it (or on another host) the session lists no conversation tool.
   */
  readonly conversation?: ConversationPort;
}

/** Options of `session.openChild`: a subagent's or planner's session over the same connections. */
export interface ChildSessionOptions extends Omit<SessionOptions, 'persist' | 'plan'> {
  /**
   * A strict read-only child: read-only sandbox, editing tools refused, MCP tools only when their
   * server is trusted and they declare `readOnlyHint: true` and are not destructive.
   */
  readonly readOnlyStrict?: boolean;
}

/** The resumable state of a session ({@link Session.snapshot}). */
export interface SessionSnapshot {
  readonly format: 'toolhost-session-v1';
  readonly id: string;
  readonly parentId: string | null;
  /** The real project root it was taken over. */
  readonly root: string;
  readonly takenAt: string;
  readonly policy: SessionPolicy;
  readonly surfaceFingerprint: string;
  readonly observations: ObservationStoreSnapshot;
  /** The background jobs the session knew (their processes end with it; their logs are not kept). */
  readonly jobs: readonly SessionJobRecord[];
  /** Stored (truncated) results, oldest first; their bodies stay in the session's directory. */
  readonly results: readonly SessionResultRecord[];
  /** The task list of `todo_write` (absent in snapshots taken before the session tools). */
  readonly todos?: readonly TodoItem[];
  /** The goal (without its in-process activation), or `null`. */
  readonly goal?: GoalRecord | null;
  /** The deliverables `present` recorded. */
  readonly deliverables?: readonly Deliverable[];
  /** Set for a session opened in plan mode: whether it was still in its plan phase. */
  readonly plan?: { readonly active: boolean };
}

/** A goal as a session reports it: the record, its activation in this process and its stop reason. */
export type SessionGoal = GoalState;

/** A job as a snapshot remembers it. */
export interface SessionJobRecord {
  readonly id: string;
  readonly shell: string;
  readonly label: string;
  readonly background: boolean;
  readonly state: string;
  readonly exitCode?: number;
  readonly startedAt: number;
  readonly endedAt?: number;
}

/** A stored result as a snapshot remembers it. */
export interface SessionResultRecord {
  readonly resultRef: string;
  readonly callId: string;
  readonly toolName: string;
  readonly totalBytes: number;
  readonly sha256: string;
}

/**
 * One agent's conversation with a host: its own policy, file observations, background jobs, stored
 * results, storm-breaker streak and audit ledger, over the host's shared registry, surfaces, MCP
 * connections and sandbox probe.
 */
export interface Session {
  /** `ses_...` (or the id it was opened with). */
  readonly id: string;
  /** The parent session of a child, else `null`. */
  readonly parentId: string | null;
  readonly policy: SessionPolicy;
  /** Whether the session keeps its state on disk. */
  readonly persistent: boolean;
  /**
   * True while the session is in its plan phase (opened with `plan: true` and no plan approved yet).
   * A child opened meanwhile runs in `read_only`.
   */
  readonly planning: boolean;
  /** The session's directory (its snapshot, stored results and job logs when persistent). */
  readonly dir: string;
  /** The provider-visible tools' names, sorted; fixed for the session's life. */
  surfaceNames(): readonly string[];
  /** The provider-neutral surface of this session's policy. */
  modelTools(): readonly ModelTool[];
  /** First 16 hex characters of SHA-256 of the serialised {@link Session.modelTools}. */
  surfaceFingerprint(): string;
  /**
   * The hints a client of this session should be given for a surface tool: its contract's
   * annotations, except that the shell carries its sandbox's (read-only only inside the read-only
   * sandbox) and `use_capability` the widest of what it can reach in this session (read-only only
   * when every reachable target is). `undefined` for a name that is not registered.
   */
  effectiveAnnotations(toolName: string): ToolAnnotations | undefined;
  /** The session's surface compiled for one dialect; the same frozen object on every call. */
  providerTools(dialect: DialectName, options?: ProviderToolsOptions): ProviderTools;
  /** Runs one call as a batch of one (the storm breaker's notice, when any, is on the result). */
  dispatch(call: ToolCall, options?: DispatchOptions): Promise<DispatchResult>;
  /** Runs one assistant turn's calls: read-only calls in parallel (at most 8), writers alone, in order. */
  dispatchBatch(calls: readonly ToolCall[], options?: DispatchOptions): Promise<BatchResult>;
  /** What happened in the background since the last call, for the next turn, or `undefined`. */
  drainNotes(): string | undefined;
  /** The task list `todo_write` keeps, in order. */
  todos(): readonly TodoItem[];
  /** The goal, its in-process activation and its stop reason, or `null` when there is none. */
  goal(): SessionGoal | null;
  /** The files `present` recorded as deliverables (paths and descriptions only). */
  deliverables(): readonly Deliverable[];
  /**
   * The embedding loop's question after the model answered: may an automatic round of the goal run
   * now? While the goal is active and its activation has rounds left, the round is counted and
   * returned (its calls go with `turn: { origin: 'goal_round', goalId }`); otherwise `undefined`,
   * and {@link Session.goal} tells why (`stopReason`).
   */
  startGoalRound(): GoalRound | undefined;
  /** The session's resumable state as plain JSON. */
  snapshot(): SessionSnapshot;
  /** A child session over the same connections with a policy no wider than this one's. */
  openChild(options?: ChildSessionOptions): Promise<Session>;
  /**
   * Cancels the session's running calls, ends its jobs, keeps its snapshot (when persistent) and
   * releases it; the host's connections stay. Idempotent.
   */
  close(): Promise<void>;
  readonly closed: boolean;
}
