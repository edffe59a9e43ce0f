import {
  isErrorCode,
  type RegisteredTool,
  type ResolvedToolPath,
  ToolhostError,
  type ToolInvocation,
} from '@toolhost/contracts';
import {
  decidePermission,
  type PermissionDecision,
  type PermissionToolFacts,
  sandboxDenial,
} from './decide-permission.js';
import type { ApprovalAnswer, ResolvedPathTarget } from './host-types.js';
import type { PipelineContext } from './pipeline-context.js';
import { USE_CAPABILITY } from './select-surface.js';

/** The outcome of the permission step: the decision, and the error the model sees when it is not an allow. */
export interface Permitted {
  readonly decision: PermissionDecision;
  readonly error?: ToolhostError;
  /**
   * The path arguments as the path policy resolved them, for the handler (`ToolCallContext.resolvedPaths`),
   * so that a call costs one resolution (one realpath) per path, not two.
   */
  readonly resolvedPaths?: readonly ResolvedToolPath[];
}

/** What the permission step knows about the call besides the tool's facts. */
export interface PermitInput {
  readonly callId: string;
  readonly invocation: ToolInvocation;
  readonly tool?: RegisteredTool;
  readonly args?: Record<string, unknown>;
  readonly subject?: string | undefined;
  readonly preview?: string | undefined;
  readonly signal: AbortSignal | undefined;
}

/** The facts of a registered tool as the permission step sees them. */
export function toolFacts(tool: RegisteredTool): PermissionToolFacts {
  const definition = tool.definition;
  return {
    name: tool.name,
    source: definition.source,
    group: definition.group,
    category: definition.category,
    // The proxy only routes: every target it reaches is checked on its own (an MCP connect or call
    // through `authorize`; a `tool:<name>` is resolved to the tool itself before this step), so the
    // router itself is a safe read here. What it can reach is announced to MCP clients separately.
    annotations:
      tool.name === USE_CAPABILITY
        ? { readOnly: true, destructive: false, openWorld: false }
        : definition.annotations,
  };
}

/**
 * Step 3 of the pipeline: the sandbox (nothing, not even a realpath, happens for a refused writer),
 * the path policy on every target the tool declares, the configured rules and the annotations
 * ({@link decidePermission}), then a person when the decision is "ask". Emits `permission-decided`
 * and, when asked, `approval-requested` / `approval-resolved`. Never throws.
 */
export async function permitCall(
  context: PipelineContext,
  facts: PermissionToolFacts,
  input: PermitInput,
): Promise<Permitted> {
  const { audit } = context;
  const permission = input.tool?.definition.permission;
  const paths: ResolvedPathTarget[] = [];
  const resolvedPaths: ResolvedToolPath[] = [];
  let pathDenial: { code: string; message: string; argument: string } | undefined;
  let subject = input.subject;
  let preview = input.preview;
  if (!sandboxDenial(facts, context.sandbox) && permission && input.args) {
    try {
      const targets = permission.paths?.(input.args) ?? [];
      for (const target of targets) {
        if (!context.pathPolicy) break;
        // Blank and missing paths mean the tool's default (`.`), as the tools themselves resolve an
        // optional path; a tool whose path is required refuses a blank one on its own.
        const resolved = await context.pathPolicy.resolve(target.path ?? undefined, {
          access: target.access,
          optional: true,
          // Refusals name the argument, never the value the model sent.
          argument: target.argument,
        });
        if (!resolved.ok) {
          pathDenial = { ...resolved.error, argument: target.argument };
          break;
        }
        paths.push({
          argument: target.argument,
          path: resolved.path,
          displayPath: resolved.displayPath,
          access: target.access,
        });
        if (typeof resolved.exists === 'boolean')
          resolvedPaths.push({
            argument: target.argument,
            input: target.path,
            access: target.access,
            path: resolved.path,
            displayPath: resolved.displayPath,
            exists: resolved.exists,
            resolvedBy: context.pathPolicy,
          });
      }
      subject ??= permission.subject?.(input.args);
      preview ??= permission.preview?.(input.args);
    } catch (error) {
      const failure = new ToolhostError({
        code: 'HOST_CONFIGURATION',
        message: `the permission inputs of "${facts.name}" could not be computed; the call was not dispatched`,
        recovery: null,
        cause: error,
      });
      const decision: PermissionDecision = {
        type: 'deny',
        source: 'host',
        code: 'HOST_CONFIGURATION',
        reason: 'permission inputs failed',
      };
      audit.emit('permission-decided', {
        callId: input.callId,
        toolName: facts.name,
        ...decisionFields(decision),
      });
      return { decision, error: failure };
    }
  }
  const decision = decidePermission({
    tool: facts,
    sandbox: context.sandbox,
    approval: context.approval,
    rules: context.rules,
    ...(subject === undefined ? {} : { subject }),
    ...(pathDenial ? { pathDenial } : {}),
  });
  audit.emit('permission-decided', {
    callId: input.callId,
    toolName: facts.name,
    ...decisionFields(decision),
    ...(pathDenial ? { deniedArgument: pathDenial.argument } : {}),
    paths: paths.map(({ argument, path, displayPath, access }) => ({ argument, path, displayPath, access })),
    sandbox: context.sandbox,
    approval: context.approval,
    toolSource: facts.source,
    group: facts.group,
    category: facts.category,
    ...(input.tool
      ? {
          pathAccess: input.tool.definition.pathAccess,
          executionMode: input.tool.definition.execution.mode,
        }
      : {}),
  });
  if (decision.type === 'allow') return { decision, resolvedPaths };
  if (decision.type === 'deny') return { decision, error: denialError(decision, facts.name) };
  const asked = await askPerson(context, facts, decision, {
    callId: input.callId,
    invocation: input.invocation,
    subject,
    preview,
    paths,
    signal: input.signal,
  });
  // An approved call reads and writes what the person was shown.
  return asked.error ? asked : { ...asked, resolvedPaths };
}

/** The error of a deny decision, with the policy's own code when it is one of the contract's. */
function denialError(
  decision: Extract<PermissionDecision, { type: 'deny' }>,
  toolName: string,
): ToolhostError {
  const code = isErrorCode(decision.code) ? decision.code : 'PERMISSION_DENIED';
  return new ToolhostError({
    code,
    message: decision.reason,
    // A path policy message already says what to do instead.
    ...(decision.source === 'path_policy' ? { recovery: null } : {}),
    details: {
      toolName,
      decisionSource: decision.source,
      ...(decision.rule ? { rule: decision.rule } : {}),
      ...(decision.code === code ? {} : { policyCode: decision.code }),
    },
  });
}

interface AskInput {
  readonly callId: string;
  readonly invocation: ToolInvocation;
  readonly subject: string | undefined;
  readonly preview: string | undefined;
  readonly paths: readonly ResolvedPathTarget[];
  readonly signal: AbortSignal | undefined;
}

/**
 * Asks the host's person (the `approve` callback) within the approval timeout; fails closed with
 * `APPROVAL_REQUIRED` when no one can be asked (no callback, or approval `never`), and with
 * `APPROVAL_DENIED` on a refusal, a timeout, a cancellation or a failing callback.
 */
async function askPerson(
  context: PipelineContext,
  facts: PermissionToolFacts,
  decision: Extract<PermissionDecision, { type: 'ask' }>,
  input: AskInput,
): Promise<Permitted> {
  const { audit } = context;
  const approve = context.approve;
  if (!approve || context.approval === 'never') {
    const why =
      context.approval === 'never'
        ? 'approval policy never asks a person'
        : 'this host has no way to ask a person';
    const error = new ToolhostError({
      code: 'APPROVAL_REQUIRED',
      message: `"${facts.name}" needs approval (${decision.reason}) and ${why}; the action was not performed`,
      details: {
        toolName: facts.name,
        decisionSource: decision.source,
        ...(decision.rule ? { rule: decision.rule } : {}),
      },
    });
    // The request is on record even when no one can answer it.
    audit.emit('approval-requested', {
      callId: input.callId,
      toolName: facts.name,
      reason: decision.reason,
      decisionSource: decision.source,
      canAsk: false,
    });
    audit.emit('approval-resolved', {
      callId: input.callId,
      toolName: facts.name,
      approved: false,
      by: 'unavailable',
    });
    return {
      decision: {
        type: 'deny',
        source: 'host',
        code: 'APPROVAL_REQUIRED',
        reason: `needs approval and ${why}`,
      },
      error,
    };
  }
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error('approval timed out')),
    Math.min(context.approvalTimeoutMs, 2_147_483_647),
  );
  const onAbort = () => controller.abort(new Error('call cancelled'));
  const signals = [input.signal, context.closeSignal].filter((s): s is AbortSignal => s !== undefined);
  for (const signal of signals) {
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  audit.emit('approval-requested', {
    callId: input.callId,
    toolName: facts.name,
    reason: decision.reason,
    decisionSource: decision.source,
    ...(decision.rule ? { rule: decision.rule } : {}),
    paths: input.paths.map(({ argument, displayPath, access }) => ({ argument, path: displayPath, access })),
  });
  let answer: ApprovalAnswer | 'timeout' | 'cancelled' | 'error';
  try {
    const cancelled = new Promise<'timeout' | 'cancelled'>((resolve) => {
      const settle = () =>
        resolve(controller.signal.reason?.message === 'approval timed out' ? 'timeout' : 'cancelled');
      if (controller.signal.aborted) settle();
      else controller.signal.addEventListener('abort', settle, { once: true });
    });
    const request = {
      callId: input.callId,
      toolName: facts.name,
      source: facts.source,
      group: facts.group,
      category: facts.category,
      annotations: facts.annotations,
      invocation: input.invocation,
      sandbox: context.sandbox,
      approval: context.approval,
      reason: decision.reason,
      decisionSource: decision.source,
      ...(decision.rule ? { rule: decision.rule } : {}),
      ...(input.subject === undefined ? {} : { subject: input.subject }),
      ...(input.preview === undefined ? {} : { preview: input.preview }),
      paths: input.paths,
      signal: controller.signal,
    };
    answer = await Promise.race([Promise.resolve().then(() => approve(request)), cancelled]);
  } catch {
    answer = 'error';
  } finally {
    clearTimeout(timer);
    for (const signal of signals) signal.removeEventListener('abort', onAbort);
  }
  const approved =
    answer === true || (typeof answer === 'object' && answer !== null && answer.approved === true);
  const personReason =
    typeof answer === 'object' && answer !== null && typeof answer.reason === 'string' && answer.reason.trim()
      ? answer.reason.trim().slice(0, 1000)
      : undefined;
  const by = typeof answer === 'string' ? answer : 'user';
  audit.emit('approval-resolved', { callId: input.callId, toolName: facts.name, approved, by });
  if (approved) return { decision: { type: 'allow', source: 'user', reason: 'a person approved this call' } };
  const why =
    by === 'timeout'
      ? 'no one answered the approval request in time'
      : by === 'cancelled'
        ? 'the call was cancelled while waiting for approval'
        : by === 'error'
          ? 'the approval request failed'
          : `a person declined it${personReason ? `: ${personReason}` : ''}`;
  return {
    decision: { type: 'deny', source: 'user', code: 'APPROVAL_DENIED', reason: why },
    error: new ToolhostError({
      code: 'APPROVAL_DENIED',
      message: `"${facts.name}" was not approved (${why}); the action was not performed`,
      details: { toolName: facts.name, by },
    }),
  };
}

/** A decision as audit fields. */
export function decisionFields(decision: PermissionDecision): Record<string, unknown> {
  return {
    decision: decision.type,
    source: decision.source,
    reason: decision.reason,
    ...(decision.type === 'deny' ? { code: decision.code } : {}),
    ...(decision.rule ? { rule: decision.rule } : {}),
  };
}
