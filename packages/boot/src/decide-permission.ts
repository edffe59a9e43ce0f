import type { ToolAnnotations, ToolCategory, ToolGroup, ToolSource } from '@toolhost/contracts';
import type { PermissionRules } from './permission-rules.js';

/** The sandbox axis of a run policy. */
export type SandboxMode = 'read_only' | 'workspace_write' | 'danger_full_access';
/** The approval axis of a run policy (`never` = never ask a person; it never bypasses a boundary). */
export type ApprovalPolicy = 'strict' | 'on_request' | 'never';

/** Who or what made a permission decision. */
export type PermissionSource =
  | 'sandbox'
  | 'path_policy'
  | 'rule'
  | 'policy'
  | 'annotation'
  | 'config'
  | 'user'
  | 'host'
  | 'plan'
  | 'hook'
  | 'extension';

/** The facts about a tool the permission step uses. */
export interface PermissionToolFacts {
  readonly name: string;
  readonly source: ToolSource;
  readonly group: ToolGroup;
  readonly category: ToolCategory;
  readonly annotations: ToolAnnotations;
  /**
   * Installation trust: a configured MCP server's tools that do not declare themselves destructive
   * are allowed without asking (the user trusted the server by configuring it). Never set in a
   * `read_only` run for tools, see the README.
   */
  readonly trusted?: boolean;
  /**
   * Set when the target must be approved by a person whatever the rules allow (a server defined by
   * an unapproved project configuration): the reason. Only a deny rule decides before it.
   */
  readonly approvalRequired?: string;
  /**
   * The tool changes only the calling session's own bookkeeping (`ToolDefinition.sessionScoped`:
   * the task list, goal, deliverables): no sandbox refuses it, and it is allowed without asking.
   */
  readonly sessionScoped?: boolean;
}

/** The input of {@link decidePermission}. */
export interface PermissionRequest {
  readonly tool: PermissionToolFacts;
  readonly sandbox: SandboxMode;
  readonly approval: ApprovalPolicy;
  readonly rules?: PermissionRules;
  /** The text argument rules match (the shell command). */
  readonly subject?: string;
  /**
   * The session is in its plan phase: writers are refused with `PLAN_NOT_APPROVED` (see
   * {@link planDenial}) and the shell is decided as in the read-only sandbox it runs in.
   */
  readonly planPhase?: boolean;
  /** A path-policy refusal for one of the call's targets, computed after the sandbox step. */
  readonly pathDenial?: {
    readonly code: string;
    readonly message: string;
    readonly argument: string;
  };
}

/** The outcome of the permission step. Only a deny carries an error code. */
export type PermissionDecision =
  | {
      readonly type: 'allow';
      readonly source: PermissionSource;
      readonly reason: string;
      readonly rule?: string;
    }
  | {
      readonly type: 'ask';
      readonly source: PermissionSource;
      readonly reason: string;
      readonly rule?: string;
    }
  | {
      readonly type: 'deny';
      readonly source: PermissionSource;
      readonly reason: string;
      readonly code: string;
      readonly rule?: string;
    };

/**
 * The sandbox step alone: whether the run's sandbox refuses this kind of tool outright. In a
 * `read_only` run a tool that writes (category `write`, the editing group, `readOnly: false` or
 * `destructive: true`) is refused with `PERMISSION_DENIED`, except shell tools, which run inside the
 * read-only OS sandbox, and session-scoped tools, which change nothing outside the session. Nothing
 * else is refused here.
 */
export function sandboxDenial(
  tool: PermissionToolFacts,
  sandbox: SandboxMode,
): Extract<PermissionDecision, { type: 'deny' }> | undefined {
  if (sandbox !== 'read_only' || tool.category === 'shell' || tool.sessionScoped === true) return undefined;
  const writes =
    tool.category === 'write' ||
    tool.group === 'editing_builtins' ||
    tool.annotations.readOnly === false ||
    tool.annotations.destructive === true;
  if (!writes) return undefined;
  return {
    type: 'deny',
    source: 'sandbox',
    code: 'PERMISSION_DENIED',
    reason: `"${tool.name}" can modify files or state, which this run does not allow (sandbox read_only)`,
  };
}

/** Tools the plan phase refuses by name: they act on the world outside the files (`present` hands work over). */
const PLAN_REFUSED_NAMES: ReadonlySet<string> = new Set(['present']);

/**
 * The plan-phase step alone: whether a session that is still planning refuses this tool. Refused
 * with `PLAN_NOT_APPROVED`: what the read-only sandbox refuses (category `write`, the editing group,
 * `readOnly: false`, `destructive: true`), `present`, and an MCP tool not known to be read-only (its
 * hints unknown, or only claimed by a server that is not trusted). The shell is not refused: it runs
 * in the read-only OS sandbox during the plan phase. Connecting a server is not refused either.
 */
export function planDenial(
  tool: PermissionToolFacts,
): Extract<PermissionDecision, { type: 'deny' }> | undefined {
  if (tool.category === 'shell' || tool.name.startsWith('mcp_connect__')) return undefined;
  const writes =
    PLAN_REFUSED_NAMES.has(tool.name) ||
    tool.category === 'write' ||
    tool.group === 'editing_builtins' ||
    tool.annotations.readOnly === false ||
    tool.annotations.destructive === true ||
    (tool.source === 'mcp' && tool.annotations.readOnly !== true);
  if (!writes) return undefined;
  return {
    type: 'deny',
    source: 'plan',
    code: 'PLAN_NOT_APPROVED',
    reason: `"${tool.name}" can change files or state, which the plan phase does not allow before the plan is approved`,
  };
}

/**
 * Decides one call. Pure: no I/O, no prompts, the same answer for the same input. The order is
 * fixed (BT-PERM-1 in REQUIREMENTS.md, with the sandbox checked before anything else):
 *
 * 1. sandbox: a writer in a `read_only` run → deny `PERMISSION_DENIED` (whatever the surface);
 *    then, in a plan phase, a writer → deny `PLAN_NOT_APPROVED` ({@link planDenial});
 * 2. path policy: a refused target → deny with the policy's code (final, also under `never`);
 * 3. configured rules on the exact tool name: `deny` → deny `APPROVAL_DENIED`; then a target that
 *    needs a person whatever the rules say (`approvalRequired`) → ask; then `ask`, then `allow` rules;
 * 4. session-scoped tools (they change only the session's own task list, goal or deliverables) →
 *    allow (source `policy`); writers (category `write`): `strict` → ask, otherwise allow (source `policy`);
 * 5. shell inside an OS sandbox (`read_only`, `workspace_write`): `strict` → ask, otherwise allow
 *    (source `sandbox`); under `danger_full_access` the shell falls through to its annotations;
 * 6. approval `never` → allow;
 * 7. safe annotations (`readOnly: true`, `openWorld: false`, not destructive) → allow (source `annotation`);
 * 8. `strict` → ask;
 * 9. installation trust (configured MCP, not declared destructive) → allow (source `config`);
 * 10. risky annotations (`destructive` or `openWorld`) → ask; 11. anything else (unknown) → ask.
 */
export function decidePermission(request: PermissionRequest): PermissionDecision {
  const { tool, sandbox, approval } = request;
  const denied = sandboxDenial(tool, sandbox);
  if (denied) return denied;
  if (request.planPhase) {
    const planned = planDenial(tool);
    if (planned) return planned;
  }
  if (request.pathDenial) {
    return {
      type: 'deny',
      source: 'path_policy',
      code: request.pathDenial.code,
      reason: request.pathDenial.message,
    };
  }
  const rule = request.rules?.match(tool.name, request.subject);
  if (rule?.effect === 'deny') {
    return {
      type: 'deny',
      source: 'rule',
      code: 'APPROVAL_DENIED',
      rule: rule.rule,
      reason: `the configured rule deny "${rule.rule}" refuses this call`,
    };
  }
  if (tool.approvalRequired !== undefined) {
    return { type: 'ask', source: 'config', reason: tool.approvalRequired };
  }
  if (rule?.effect === 'ask') {
    return { type: 'ask', source: 'rule', rule: rule.rule, reason: `the configured rule ask "${rule.rule}"` };
  }
  if (rule?.effect === 'allow') {
    return {
      type: 'allow',
      source: 'rule',
      rule: rule.rule,
      reason: `the configured rule allow "${rule.rule}"`,
    };
  }
  if (tool.sessionScoped === true) {
    return { type: 'allow', source: 'policy', reason: "the tool changes only this session's own state" };
  }
  if (tool.category === 'write') {
    return approval === 'strict'
      ? { type: 'ask', source: 'policy', reason: 'approval strict asks before every write' }
      : { type: 'allow', source: 'policy', reason: `sandbox ${sandbox} allows writes inside its roots` };
  }
  // During the plan phase the shell runs in the read-only OS sandbox, whatever the session's sandbox.
  const shellSandbox = request.planPhase ? 'read_only' : sandbox;
  if (tool.category === 'shell' && shellSandbox !== 'danger_full_access') {
    return approval === 'strict'
      ? { type: 'ask', source: 'policy', reason: 'approval strict asks before every command' }
      : {
          type: 'allow',
          source: 'sandbox',
          reason: `the command runs inside the ${shellSandbox} OS sandbox${request.planPhase ? ' (plan phase)' : ''}`,
        };
  }
  if (approval === 'never')
    return { type: 'allow', source: 'policy', reason: 'approval never allows the rest' };
  const { readOnly, destructive, openWorld } = tool.annotations;
  if (readOnly === true && openWorld === false && destructive !== true) {
    return { type: 'allow', source: 'annotation', reason: 'the tool is read-only and closed-world' };
  }
  if (approval === 'strict')
    return { type: 'ask', source: 'policy', reason: 'approval strict asks before this call' };
  if (tool.trusted && destructive !== true) {
    return {
      type: 'allow',
      source: 'config',
      reason: 'a configured server that is not declared destructive',
    };
  }
  if (destructive === true || openWorld === true) {
    return { type: 'ask', source: 'annotation', reason: 'the tool is declared destructive or open-world' };
  }
  return {
    type: 'ask',
    source: 'annotation',
    reason: 'the tool does not declare itself safe (annotations incomplete)',
  };
}
