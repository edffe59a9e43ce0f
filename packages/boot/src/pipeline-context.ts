import type { ArgumentValidator, RegisteredTool, ToolInvocation, ToolRegistry } from '@toolhost/contracts';
import type { AuditLog } from './audit-log.js';
import type { ApprovalPolicy, PermissionToolFacts, SandboxMode } from './decide-permission.js';
import type { HostExtension } from './host-extension.js';
import type { ApproveCallback } from './host-types.js';
import type { PermissionRules } from './permission-rules.js';
import type { HostPlatform } from './select-surface.js';
import type { HookRunner } from './run-hooks.js';
import type { SessionApprovals } from './session-approvals.js';
import type { ResultStore } from './shape-result.js';
import type { StormBreaker } from './storm-breaker.js';

/** Keys a major MCP client adds to every call it makes (Gemini CLI: `wait_for_previous`). */
export const DEFAULT_CLIENT_INJECTED_KEYS: readonly string[] = Object.freeze(['wait_for_previous']);

/** At most this many read-only calls of one batch run at once. */
export const MAX_PARALLEL_CALLS = 8;

/** A path decision as the path policy returns it (structural, so any policy with this shape fits). */
export type PathResolution =
  | {
      readonly ok: true;
      readonly path: string;
      readonly displayPath: string;
      /** Whether the target existed; a policy that says so lets the handler use this resolution. */
      readonly exists?: boolean;
    }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** The path policy seen from the pipeline. */
export interface PathPolicyPort {
  resolve(
    input: string | undefined,
    options: {
      readonly access: 'read' | 'write' | 'list';
      readonly optional?: boolean;
      readonly argument?: string;
    },
  ): PathResolution | Promise<PathResolution>;
}

/** A permission check of something that is not a registered tool (an MCP connect or MCP tool call). */
export interface AuthorizeTarget extends PermissionToolFacts {
  readonly callId: string;
  readonly invocation: ToolInvocation;
  readonly subject?: string;
  readonly preview?: string;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Everything one session's dispatch pipeline works with. The steps (`prepareCall`,
 * `permitCall`, `executePreparedCall`, `finalizeExecutedCall`, `dispatchBatch`) are module-level
 * functions over it, so each can be read and tested alone.
 */
export interface PipelineContext {
  readonly sessionId: string;
  readonly registry: ToolRegistry;
  readonly validator: ArgumentValidator;
  readonly sandbox: SandboxMode;
  readonly approval: ApprovalPolicy;
  readonly platform: HostPlatform;
  readonly rules: PermissionRules;
  readonly pathPolicy?: PathPolicyPort | undefined;
  readonly approve?: ApproveCallback | undefined;
  readonly approvalTimeoutMs: number;
  /** The session's audit ledger (every event carries the session id). */
  readonly audit: AuditLog;
  readonly resultStore?: ResultStore | undefined;
  readonly stormBreaker: StormBreaker;
  /** Fires when the session or the host closes: every running call is cancelled. */
  readonly closeSignal: AbortSignal;
  /** Receives handler promises still running after their call was reported. */
  readonly onStraggler?: ((settled: Promise<unknown>) => void) | undefined;
  /** Whether a use_capability call with these arguments only reads (may share a parallel group). */
  readonly capabilityCallIsParallel?: ((args: Record<string, unknown>) => boolean) | undefined;
  /**
   * The registered tool a `tool:<name>` capability id names in this session's catalog, so the
   * pipeline calls it directly (one validation, one permission decision, its own result shaping);
   * `undefined` leaves the id to the capability proxy, which explains what is wrong.
   */
  readonly catalogTool?: ((name: string) => RegisteredTool | undefined) | undefined;
  /**
   * Top-level argument keys that clients are known to add to every call: dropped (and reported in the
   * audit log) when the tool's schema does not declare them.
   */
  readonly clientInjectedKeys: ReadonlySet<string>;
  /** The shell tool shell synonyms (`shell`, `powershell` ...) resolve to, if any. */
  readonly shellName: string | undefined;
  /** Call and batch counters of the session. */
  readonly counters: { call: number; batch: number };
  /** The project root (the working directory of hooks). */
  readonly root: string;
  /** The host's configured hooks; `undefined` when there are none. */
  readonly hooks?: HookRunner | undefined;
  /** The host's extensions, in order. */
  readonly extensions: readonly HostExtension[];
  /** What a person allowed for the rest of this session. */
  readonly approvals: SessionApprovals;
  /** The session's plan phase, when it was opened in plan mode (`active` until the plan is approved). */
  readonly plan?: { readonly active: boolean } | undefined;
}

/** How many times one call may be replaced (by extensions and hooks together) before it is refused. */
export const MAX_CALL_REPLACEMENTS = 4;
