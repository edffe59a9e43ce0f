import type { CapabilityPolicyTarget } from '@toolhost/capability-proxy';
import { isErrorCode, type ToolAnnotations, ToolhostError } from '@toolhost/contracts';
import { decidePermission, type PermissionDecision, type SandboxMode } from './decide-permission.js';
import type { PipelineContext } from './pipeline-context.js';
import { decisionFields, toolFacts } from './permit-call.js';

/** What a session's capability frontend knows about the session's policy. */
export interface CapabilitySessionPolicy {
  readonly sandbox: SandboxMode;
  /** Servers that only an unapproved project configuration defines. */
  readonly untrustedServers: ReadonlySet<string>;
  readonly readOnlyStrict: boolean;
}

/** The hints that make a call the least risky: what a refusal that no hint of a server could lift is decided with. */
const MOST_PERMISSIVE_HINTS: ToolAnnotations = Object.freeze({
  readOnly: true,
  destructive: false,
  openWorld: false,
});

/**
 * The eight answers {@link believedMcpHints} can give for an untrusted server, built once (frozen,
 * keys in the same order as ever): `list` asks about every cached tool of every server, and building
 * a fresh object per tool was a tenth of a cold list (issue 25 target 6).
 */
const UNTRUSTED_HINTS: readonly ToolAnnotations[] = Array.from({ length: 8 }, (_, bits) =>
  Object.freeze({
    ...(bits & 1 ? { readOnly: false } : {}),
    ...(bits & 2 ? { destructive: true } : {}),
    ...(bits & 4 ? { openWorld: true } : {}),
  }),
);

/**
 * The hints the permission step believes for an MCP tool: all of them from a trusted server, from
 * any other only the ones that make a call riskier (a claim of safety is not evidence).
 */
export function believedMcpHints(claimed: ToolAnnotations, trusted: boolean): ToolAnnotations {
  if (trusted) return claimed;
  return UNTRUSTED_HINTS[
    (claimed.readOnly === false ? 1 : 0) |
      (claimed.destructive === true ? 2 : 0) |
      (claimed.openWorld === true ? 4 : 0)
  ]!;
}

/** Why a strict read-only session refuses an MCP tool that is not trusted to be read-only. */
function strictReadOnlyMessage(toolName: string): string {
  return `"${toolName}" is not declared read-only by a trusted server, and this read-only session runs only read-only tools`;
}

/** The refusal of a strict read-only session for an MCP tool that is not trusted to be read-only. */
export function strictReadOnlyRefusal(toolName: string): ToolhostError {
  return new ToolhostError({
    code: 'PERMISSION_DENIED',
    message: strictReadOnlyMessage(toolName),
    recovery: 'leave it to a session that may write, or use a read-only capability',
    details: { toolName, decisionSource: 'sandbox', remoteDispatched: false },
  });
}

function denial(decision: Extract<PermissionDecision, { type: 'deny' }>, toolName: string): ToolhostError {
  const code = isErrorCode(decision.code) ? decision.code : 'PERMISSION_DENIED';
  return new ToolhostError({
    code,
    message: decision.reason,
    details: {
      toolName,
      decisionSource: decision.source,
      remoteDispatched: false,
      ...(decision.rule ? { rule: decision.rule } : {}),
    },
  });
}

/** The decision {@link capabilityRefusal} and {@link capabilityRefused} share, with no error built. */
interface CapabilityVerdict {
  readonly decision: PermissionDecision;
  readonly toolName: string;
  /** The refusal is a strict read-only session's (its own error text and recovery). */
  readonly strict: boolean;
}

function capabilityVerdict(
  context: PipelineContext,
  target: CapabilityPolicyTarget,
  session: CapabilitySessionPolicy,
): CapabilityVerdict {
  if (target.kind === 'tool') {
    const facts = toolFacts(target.tool);
    const decision = decidePermission({
      tool: facts,
      sandbox: context.sandbox,
      approval: context.approval,
      rules: context.rules,
    });
    return { decision, toolName: facts.name, strict: false };
  }
  const fromProject = session.untrustedServers.has(target.server);
  const trustedHints = target.annotationsTrusted && !fromProject;
  const annotations =
    target.annotations === undefined
      ? trustedHints
        ? MOST_PERMISSIVE_HINTS
        : believedMcpHints(MOST_PERMISSIVE_HINTS, false)
      : believedMcpHints(target.annotations, trustedHints);
  if (session.readOnlyStrict && !(annotations.readOnly === true && annotations.destructive !== true)) {
    return {
      decision: {
        type: 'deny',
        source: 'sandbox',
        code: 'PERMISSION_DENIED',
        reason: strictReadOnlyMessage(target.toolName),
      },
      toolName: target.toolName,
      strict: true,
    };
  }
  const decision = decidePermission({
    tool: {
      name: target.toolName,
      source: 'mcp',
      group: 'utility_builtins',
      category: annotations.readOnly === true ? 'read' : 'utility',
      annotations,
    },
    sandbox: context.sandbox,
    approval: context.approval,
    rules: context.rules,
  });
  return { decision, toolName: target.toolName, strict: false };
}

/**
 * What a session refuses about a capability whatever anyone answers, decided from its sandbox and
 * configured rules alone (pure: no prompt, no process, no path resolution): the capability proxy
 * leaves such targets out of `list` and `search`, marks them in `inspect`, and refuses an MCP tool
 * call with it before the tool's server starts (then with the hints unknown, so only a refusal that
 * no hint of the server could lift counts: a deny rule on `mcp__<server>__<tool>`, a strict
 * read-only session and an untrusted server). The full permission step still runs for every call.
 * When `call` is given the refusal is recorded as a `permission-decided` event (`phase: before-connect`).
 */
export function capabilityRefusal(
  context: PipelineContext,
  target: CapabilityPolicyTarget,
  session: CapabilitySessionPolicy,
  call?: { readonly callId: string },
): ToolhostError | undefined {
  const { decision, toolName, strict } = capabilityVerdict(context, target, session);
  if (decision.type !== 'deny') return undefined;
  const refusal = strict ? strictReadOnlyRefusal(toolName) : denial(decision, toolName);
  if (call && target.kind !== 'tool') {
    context.audit.emit('permission-decided', {
      callId: call.callId,
      toolName,
      ...decisionFields(decision),
      phase: 'before-connect',
      sandbox: context.sandbox,
      approval: context.approval,
      toolSource: 'mcp',
    });
  }
  return refusal;
}

/**
 * Whether {@link capabilityRefusal} refuses a target, without building its error: what `list` and
 * `search` ask about every tool of every server (600 cached tools for 50 servers), where an error
 * object per refused tool cost more than the rest of a cold list (issue 25, target 6).
 */
export function capabilityRefused(
  context: PipelineContext,
  target: CapabilityPolicyTarget,
  session: CapabilitySessionPolicy,
): boolean {
  return capabilityVerdict(context, target, session).decision.type === 'deny';
}
