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
  planDenial,
  sandboxDenial,
} from './decide-permission.js';
import { isDelegatingTool } from './delegating-tools.js';
import type { ApprovalAnswer, ApprovalChoice, ResolvedPathTarget } from './host-types.js';
import { sessionPrefixRule } from './permission-rules.js';
import type { RememberedApproval } from './session-approvals.js';
import type { PipelineContext } from './pipeline-context.js';
import { EXIT_PLAN_MODE } from './plan-mode.js';
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
      tool.name === USE_CAPABILITY || isDelegatingTool(definition)
        ? { readOnly: true, destructive: false, openWorld: false }
        : definition.annotations,
    // Only a built-in's claim is believed: nothing from outside the host is exempt from the sandbox.
    ...(definition.sessionScoped === true && definition.source === 'builtin' ? { sessionScoped: true } : {}),
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
  toolFactsIn: PermissionToolFacts,
  input: PermitInput,
): Promise<Permitted> {
  let facts = toolFactsIn;
  const { audit } = context;
  const permission = input.tool?.definition.permission;
  const paths: ResolvedPathTarget[] = [];
  const resolvedPaths: ResolvedToolPath[] = [];
  let pathDenial: { code: string; message: string; argument: string } | undefined;
  let subject = input.subject;
  let preview = input.preview;
  const planPhase = context.plan?.active === true;
  // Leaving the plan phase is a person's decision every time (only a deny rule decides before it).
  if (planPhase && facts.name === EXIT_PLAN_MODE && facts.source === 'builtin') {
    facts = { ...facts, approvalRequired: 'leaving the plan phase needs a person to approve the plan' };
  }
  const refusedEarly = sandboxDenial(facts, context.sandbox) ?? (planPhase ? planDenial(facts) : undefined);
  if (!refusedEarly && permission && input.args) {
    try {
      const targets = permission.paths?.(input.args) ?? [];
      for (const target of targets) {
        if (!context.pathPolicy) break;
        // Blank and missing paths mean the tool's default (`.`), as the tools themselves resolve an
        // optional path; a tool whose path is required refuses a blank one on its own.
        const resolving = context.pathPolicy.resolve(target.path ?? undefined, {
          access: target.access,
          optional: true,
          // Refusals name the argument, never the value the model sent.
          argument: target.argument,
        });
        // The path policy answers synchronously: awaited only when a port returns a promise (an
        // await of a plain value still costs a turn of the microtask queue on every call).
        const resolved = resolving instanceof Promise ? await resolving : resolving;
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
    ...(planPhase ? { planPhase } : {}),
    ...(subject === undefined ? {} : { subject }),
    ...(pathDenial ? { pathDenial } : {}),
  });
  if (audit.enabled) {
    audit.emit('permission-decided', {
      callId: input.callId,
      toolName: facts.name,
      ...decisionFields(decision),
      ...(pathDenial ? { deniedArgument: pathDenial.argument } : {}),
      paths: paths.map(({ argument, path, displayPath, access }) => ({
        argument,
        path,
        displayPath,
        access,
      })),
      sandbox: context.sandbox,
      approval: context.approval,
      ...(planPhase ? { planPhase } : {}),
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
  }
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
    ...(decision.source === 'plan' && toolName === 'present'
      ? { recovery: 'present your work after the plan is approved (call exit_plan_mode with your plan)' }
      : {}),
    details: {
      toolName,
      decisionSource: decision.source,
      ...(decision.rule ? { rule: decision.rule } : {}),
      ...(decision.code === code ? {} : { policyCode: decision.code }),
    },
  });
}

/** What {@link askPerson} needs besides the decision. */
export interface AskInput {
  readonly callId: string;
  readonly invocation: ToolInvocation;
  readonly subject: string | undefined;
  readonly preview: string | undefined;
  readonly paths: readonly ResolvedPathTarget[];
  readonly signal: AbortSignal | undefined;
}

/**
 * What an "allow for this session" of this question would remember, or `undefined` when it must
 * be asked every time: a configured `ask` rule, a target that needs a person whatever the rules say
 * (an unapproved project server, leaving the plan phase), a hook's or an extension's question. A
 * shell command is remembered by its prefix rule, or exactly when no prefix rule can cover it.
 */
function rememberable(
  facts: PermissionToolFacts,
  decision: Extract<PermissionDecision, { type: 'ask' }>,
  subject: string | undefined,
): RememberedApproval | undefined {
  if (decision.source === 'rule' || decision.source === 'config' || decision.source === 'hook')
    return undefined;
  if (decision.source === 'extension' || facts.approvalRequired !== undefined) return undefined;
  if (facts.category !== 'shell') return { kind: 'tool', text: facts.name };
  if (subject === undefined || subject.trim() === '') return undefined;
  const prefix = sessionPrefixRule(facts.name, subject);
  return prefix !== undefined
    ? { kind: 'prefix', text: prefix }
    : { kind: 'exact', text: `${facts.name}(${subject})`, subject };
}

/** A person's answer, read: a choice, or that no one could be asked. */
function readAnswer(answer: ApprovalAnswer | 'timeout' | 'cancelled' | 'error'): {
  readonly choice: ApprovalChoice | 'unavailable';
  readonly reason?: string;
  readonly by: string;
} {
  if (answer === 'timeout' || answer === 'cancelled' || answer === 'error')
    return { choice: 'deny', by: answer };
  if (answer === true || answer === 'allow_once') return { choice: 'allow_once', by: 'user' };
  if (answer === 'allow_session') return { choice: 'allow_session', by: 'user' };
  if (typeof answer !== 'object' || answer === null) return { choice: 'deny', by: 'user' };
  const reason =
    typeof answer.reason === 'string' && answer.reason.trim()
      ? answer.reason.trim().slice(0, 1000)
      : undefined;
  const withReason = reason === undefined ? {} : { reason };
  if ('decision' in answer) {
    const choice = answer.decision;
    if (choice === 'allow_once' || choice === 'allow_session' || choice === 'unavailable')
      return { choice, by: choice === 'unavailable' ? 'unavailable' : 'user', ...withReason };
    return { choice: 'deny', by: 'user', ...withReason };
  }
  return { choice: answer.approved === true ? 'allow_once' : 'deny', by: 'user', ...withReason };
}

/**
 * What would let a call that needs approval run where no one can be asked: the rule or flag to
 * name in `APPROVAL_REQUIRED` (never an argument value).
 */
function approvalRemedy(
  context: PipelineContext,
  facts: PermissionToolFacts,
  decision: Extract<PermissionDecision, { type: 'ask' }>,
  remember: RememberedApproval | undefined,
): string {
  if (decision.source === 'config')
    return 'do not retry it; ask the person to approve the configuration or the plan outside this run';
  if (decision.source === 'rule' && decision.rule)
    return `do not retry it; the configured rule ask "${decision.rule}" asks every time (the person can remove it, or use a client that can be asked)`;
  if (decision.source === 'hook' || decision.source === 'extension')
    return 'do not retry it; a hook asks a person to confirm this call, and no one can be asked here';
  if (context.approval === 'strict')
    return 'do not retry it; approval strict asks before this call (the person can run with --approval on_request, or use a client that can be asked)';
  // A rule that matches this call (an exact compound command cannot be allowed by a rule).
  const rule = remember?.kind === 'exact' ? undefined : (remember?.text ?? facts.name);
  return rule === undefined
    ? 'do not retry it; the person can run it themselves, use a client that can be asked, or allow the command in a simpler form'
    : `do not retry it; the person can allow it with "${rule}" in permissions.allow of toolhost.config.json, or use a client that can be asked`;
}

/**
 * Asks the session's person (the `approve` callback) within the approval timeout, after the
 * session's remembered answers (an earlier "allow for this session" that covers the call answers
 * without asking). Fails closed with `APPROVAL_REQUIRED` when no one can be asked (no callback,
 * approval `never`, or the callback answers `unavailable`), naming the rule or flag that would allow
 * the call, and with `APPROVAL_DENIED` on a refusal, a timeout, a cancellation or a failing callback.
 * `allow_session` is remembered by exact tool name (a shell command by its prefix rule) for this
 * session only.
 */
export async function askPerson(
  context: PipelineContext,
  facts: PermissionToolFacts,
  decision: Extract<PermissionDecision, { type: 'ask' }>,
  input: AskInput,
): Promise<Permitted> {
  const { audit } = context;
  const approve = context.approve;
  const remember = rememberable(facts, decision, input.subject);
  const shell = facts.category === 'shell';
  if (remember !== undefined) {
    const covered = context.approvals.covers(facts.name, input.subject, shell);
    if (covered !== undefined) {
      audit.emit('approval-resolved', {
        callId: input.callId,
        toolName: facts.name,
        approved: true,
        by: 'session',
        remembered: covered,
      });
      return {
        decision: {
          type: 'allow',
          source: 'user',
          rule: covered,
          reason: 'a person allowed this for the rest of the session',
        },
      };
    }
  }
  const unavailable = (why: string, requested: boolean): Permitted => {
    const error = new ToolhostError({
      code: 'APPROVAL_REQUIRED',
      message: `"${facts.name}" needs approval (${decision.reason}) and ${why}; the action was not performed`,
      recovery: approvalRemedy(context, facts, decision, remember),
      details: {
        toolName: facts.name,
        decisionSource: decision.source,
        ...(decision.rule ? { rule: decision.rule } : {}),
        ...(remember && remember.kind !== 'exact' ? { allowRule: remember.text } : {}),
      },
    });
    if (!requested) {
      // The request is on record even when no one can answer it.
      audit.emit('approval-requested', {
        callId: input.callId,
        toolName: facts.name,
        reason: decision.reason,
        decisionSource: decision.source,
        canAsk: false,
      });
    }
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
  };
  if (!approve || context.approval === 'never') {
    return unavailable(
      context.approval === 'never'
        ? 'approval policy never asks a person'
        : 'this host has no way to ask a person',
      false,
    );
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
    ...(remember
      ? { remember: remember.kind === 'exact' ? `${facts.name}(exact command)` : remember.text }
      : {}),
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
    const choices: ApprovalChoice[] =
      remember === undefined ? ['allow_once', 'deny'] : ['allow_once', 'allow_session', 'deny'];
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
      choices,
      ...(remember === undefined ? {} : { remember: remember.text }),
      signal: controller.signal,
    };
    answer = await Promise.race([Promise.resolve().then(() => approve(request)), cancelled]);
  } catch {
    answer = 'error';
  } finally {
    clearTimeout(timer);
    for (const signal of signals) signal.removeEventListener('abort', onAbort);
  }
  const read = readAnswer(answer);
  if (read.choice === 'unavailable') {
    return unavailable(
      read.reason ? `no one can be asked (${read.reason})` : 'no one can be asked here',
      true,
    );
  }
  const approved = read.choice !== 'deny';
  // An allow_session that cannot be remembered counts once.
  const remembered = read.choice === 'allow_session' && remember !== undefined ? remember : undefined;
  if (remembered !== undefined) context.approvals.remember(remembered);
  audit.emit('approval-resolved', {
    callId: input.callId,
    toolName: facts.name,
    approved,
    by: read.by,
    ...(approved ? { choice: remembered !== undefined ? 'allow_session' : 'allow_once' } : {}),
    ...(remembered !== undefined
      ? { remembered: remembered.kind === 'exact' ? `${facts.name}(exact command)` : remembered.text }
      : {}),
  });
  if (approved) {
    return {
      decision: {
        type: 'allow',
        source: 'user',
        reason:
          remembered !== undefined
            ? 'a person allowed this for the rest of the session'
            : 'a person approved this call',
        ...(remembered !== undefined && remembered.kind !== 'exact' ? { rule: remembered.text } : {}),
      },
    };
  }
  const by = read.by;
  const why =
    by === 'timeout'
      ? 'no one answered the approval request in time'
      : by === 'cancelled'
        ? 'the call was cancelled while waiting for approval'
        : by === 'error'
          ? 'the approval request failed'
          : `a person declined it${read.reason ? `: ${read.reason}` : ''}`;
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
