import {
  type ArgumentValidator,
  type ContentBlock,
  isErrorCode,
  outputText,
  parseArguments,
  type RegisteredTool,
  ToolhostError,
  type ToolInvocation,
  type ToolRegistry,
  type ToolResult,
} from '@toolhost/contracts';
import type { AuditLog } from './audit-log.js';
import { closeNames } from './close-names.js';
import {
  type ApprovalPolicy,
  decidePermission,
  type PermissionDecision,
  type PermissionToolFacts,
  type SandboxMode,
  sandboxDenial,
} from './decide-permission.js';
import type {
  ApprovalAnswer,
  ApproveCallback,
  BatchResult,
  DispatchOptions,
  DispatchResult,
  ResolvedPathTarget,
  ToolCall,
} from './host-types.js';
import type { PermissionRules } from './permission-rules.js';
import { runTool } from './run-tool.js';
import { type HostPlatform, shellToolName, USE_CAPABILITY } from './select-surface.js';
import { type ResultStore, shapeResultText } from './shape-result.js';
import type { StormBreaker, StormOutcome } from './storm-breaker.js';

/** At most this many read-only calls of one batch run at once. */
export const MAX_PARALLEL_CALLS = 8;

/** A path decision as the path policy returns it (structural, so any policy with this shape fits). */
export type PathResolution =
  | { readonly ok: true; readonly path: string; readonly displayPath: string }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** The path policy seen from the pipeline. */
export interface PathPolicyPort {
  resolve(
    input: string | undefined,
    options: { readonly access: 'read' | 'write' | 'list'; readonly optional?: boolean },
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

/** Options of {@link createDispatchPipeline}. */
export interface DispatchPipelineOptions {
  readonly registry: ToolRegistry;
  readonly validator: ArgumentValidator;
  readonly sandbox: SandboxMode;
  readonly approval: ApprovalPolicy;
  readonly platform: HostPlatform;
  readonly rules: PermissionRules;
  readonly pathPolicy?: PathPolicyPort | undefined;
  readonly approve?: ApproveCallback | undefined;
  readonly approvalTimeoutMs: number;
  readonly audit: AuditLog;
  readonly resultStore?: ResultStore | undefined;
  readonly stormBreaker: StormBreaker;
  /** Fires when the host closes: every running call is cancelled. */
  readonly hostSignal: AbortSignal;
  /** Receives handler promises still running after their call was reported. */
  readonly onStraggler?: (settled: Promise<unknown>) => void;
  /** Whether a use_capability call with these arguments only reads (may share a parallel group). */
  readonly capabilityCallIsParallel?: (args: Record<string, unknown>) => boolean;
}

/** The dispatch pipeline of a host. */
export interface DispatchPipeline {
  dispatch(call: ToolCall, options?: DispatchOptions): Promise<DispatchResult>;
  dispatchBatch(calls: readonly ToolCall[], options?: DispatchOptions): Promise<BatchResult>;
  /** Runs a registered tool for the capability proxy: validation, permission, execution; no shaping, no breaker. */
  dispatchTool(
    name: string,
    args: unknown,
    context: { readonly callId: string; readonly signal?: AbortSignal; readonly capabilityId: string },
  ): Promise<ToolResult>;
  /** The permission step alone, for targets outside the registry (MCP connects and calls). */
  authorize(target: AuthorizeTarget): Promise<{ allowed: true } | { allowed: false; error: ToolhostError }>;
}

type Plan =
  | {
      readonly kind: 'failed';
      readonly callId: string;
      readonly name: string;
      readonly toolName: string | null;
      readonly error: ToolhostError;
      readonly startedAt: number;
    }
  | {
      readonly kind: 'ready';
      readonly callId: string;
      readonly name: string;
      readonly tool: RegisteredTool;
      readonly args: Record<string, unknown>;
      readonly invocation: ToolInvocation;
      readonly parallel: boolean;
      readonly startedAt: number;
    };

interface Finished {
  readonly result: DispatchResult;
  /** The error as raised (with its storm signature), for the breaker. */
  readonly error: ToolhostError | undefined;
}

interface CoreOutcome {
  readonly result: ToolResult;
  readonly permission?: PermissionDecision;
}

const SHELL_SYNONYMS = new Set(['shell', 'powershell', 'bash', 'pwsh']);
const CAPABILITY_ID = /^(tool|mcp-tool|mcp-server|session):|^mcp\//;

/**
 * Creates the pipeline: resolve → validate → permission → (evidence, inside the file tools) →
 * execute → shape → record, with nothing that has a side effect before permission passed.
 */
export function createDispatchPipeline(options: DispatchPipelineOptions): DispatchPipeline {
  const { registry, audit } = options;
  const shellName = registry.has(shellToolName(options.platform))
    ? shellToolName(options.platform)
    : registry.has('bash')
      ? 'bash'
      : registry.has('pwsh')
        ? 'pwsh'
        : undefined;
  let callSeq = 0;
  let batchSeq = 0;

  function boundedName(name: unknown): string {
    const text = typeof name === 'string' ? name : String(name);
    return text.length > 128 ? `${text.slice(0, 125)}...` : text;
  }

  function notFound(name: string, callId: string): ToolhostError {
    const close = closeNames(
      name,
      registry.list().map((tool) => tool.name),
    );
    return new ToolhostError({
      code: 'TOOL_NOT_FOUND',
      message:
        close.length > 0
          ? `no tool is named "${boundedName(name)}"; close names: ${close.join(', ')}`
          : `no tool is named "${boundedName(name)}"`,
      details: { calledName: boundedName(name), closeNames: close, callId },
    });
  }

  function plan(call: ToolCall, batchId: string | undefined, invocation?: ToolInvocation): Plan {
    const startedAt = performance.now();
    const callId = typeof call.id === 'string' && call.id !== '' ? call.id : `call_${++callSeq}`;
    const name = typeof call.name === 'string' ? call.name : '';
    audit.emit('call-received', {
      callId,
      ...(batchId ? { batchId } : {}),
      calledName: boundedName(name),
      ...(invocation?.kind === 'capability' ? { capabilityId: invocation.capabilityId } : {}),
    });
    const fail = (error: ToolhostError, toolName: string | null): Plan => {
      audit.emit(toolName === null ? 'call-resolved' : 'call-validated', {
        callId,
        ...(toolName === null ? {} : { toolName }),
        ok: false,
        code: error.code,
      });
      return { kind: 'failed', callId, name, toolName, error, startedAt };
    };
    // 1. resolve
    let tool: RegisteredTool | undefined;
    let via: 'exact' | 'alias' | 'shell_synonym' | 'capability' = 'exact';
    let rawArguments = call.arguments;
    const callInvocation: ToolInvocation = invocation ?? { kind: 'direct' };
    const lookup = name ? registry.lookup(name) : undefined;
    if (lookup) {
      tool = lookup.tool;
      if (lookup.alias) via = 'alias';
    } else if (SHELL_SYNONYMS.has(name) && shellName) {
      tool = registry.get(shellName);
      via = 'shell_synonym';
    } else if (CAPABILITY_ID.test(name) && invocation === undefined && registry.has(USE_CAPABILITY)) {
      // `tool:<name>`, `mcp-tool:...`, `session:tool_result` called as a name: the proxy resolves it.
      const parsed = parseArguments(rawArguments);
      if (!parsed.ok) {
        const checked = options.validator.validate({
          toolName: name,
          source: 'dynamic',
          schema: { type: 'object', properties: {} },
          arguments: rawArguments,
          invocation: { kind: 'capability', capabilityId: name },
        });
        return fail(checked.ok ? notFound(name, callId) : checked.error, null);
      }
      tool = registry.get(USE_CAPABILITY);
      via = 'capability';
      rawArguments = { action: 'call', capability_id: name, arguments: parsed.value };
    }
    if (!tool) return fail(notFound(name, callId), null);
    audit.emit('call-resolved', { callId, toolName: tool.name, ok: true, via });
    const definition = tool.definition;
    if (definition.source === 'hosted') {
      return fail(
        new ToolhostError({
          code: 'TOOL_NOT_FOUND',
          message: `"${tool.name}" is executed by the model provider and is never dispatched by this host`,
          recovery: 'call it through the provider, or use another tool',
        }),
        tool.name,
      );
    }
    // 2. validate
    const checked = options.validator.validate({
      toolName: tool.name,
      source: definition.source,
      schema: tool.canonicalSchema,
      schemaHash: tool.schemaHash,
      arguments: rawArguments,
      invocation: callInvocation,
    });
    if (!checked.ok) return fail(checked.error, tool.name);
    audit.emit('call-validated', {
      callId,
      toolName: tool.name,
      ok: true,
      schemaFingerprint: tool.schemaFingerprint,
      schemaValidated: checked.value.schemaValidated,
    });
    const args = checked.value.arguments;
    let parallel = definition.execution.mode === 'parallel';
    if (tool.name === USE_CAPABILITY) parallel = options.capabilityCallIsParallel?.(args) ?? false;
    return {
      kind: 'ready',
      callId,
      name,
      tool,
      args,
      invocation: callInvocation,
      parallel,
      startedAt,
    };
  }

  function factsOf(tool: RegisteredTool): PermissionToolFacts {
    const definition = tool.definition;
    return {
      name: tool.name,
      source: definition.source,
      group: definition.group,
      category: definition.category,
      // The proxy only routes: every target it reaches is checked on its own (a `tool:<name>` through
      // dispatchTool, an MCP connect or call through authorize), so the router itself is a safe read.
      annotations:
        tool.name === USE_CAPABILITY
          ? { readOnly: true, destructive: false, openWorld: false }
          : definition.annotations,
    };
  }

  async function askPerson(
    facts: PermissionToolFacts,
    decision: Extract<PermissionDecision, { type: 'ask' }>,
    context: {
      callId: string;
      invocation: ToolInvocation;
      subject: string | undefined;
      preview: string | undefined;
      paths: readonly ResolvedPathTarget[];
      signal: AbortSignal | undefined;
    },
  ): Promise<{ decision: PermissionDecision; error?: ToolhostError }> {
    const approve = options.approve;
    if (!approve || options.approval === 'never') {
      const why =
        options.approval === 'never'
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
      const final: PermissionDecision = {
        type: 'deny',
        source: 'host',
        code: 'APPROVAL_REQUIRED',
        reason: `needs approval and ${why}`,
      };
      // The request is on record even when no one can answer it (harness behaviour 30).
      audit.emit('approval-requested', {
        callId: context.callId,
        toolName: facts.name,
        reason: decision.reason,
        decisionSource: decision.source,
        canAsk: false,
      });
      audit.emit('approval-resolved', {
        callId: context.callId,
        toolName: facts.name,
        approved: false,
        by: 'unavailable',
      });
      return { decision: final, error };
    }
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error('approval timed out')),
      Math.min(options.approvalTimeoutMs, 2_147_483_647),
    );
    const onAbort = () => controller.abort(new Error('call cancelled'));
    const signals = [context.signal, options.hostSignal].filter((s): s is AbortSignal => s !== undefined);
    for (const signal of signals) {
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    audit.emit('approval-requested', {
      callId: context.callId,
      toolName: facts.name,
      reason: decision.reason,
      decisionSource: decision.source,
      ...(decision.rule ? { rule: decision.rule } : {}),
      paths: context.paths.map(({ argument, displayPath, access }) => ({
        argument,
        path: displayPath,
        access,
      })),
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
        callId: context.callId,
        toolName: facts.name,
        source: facts.source,
        group: facts.group,
        category: facts.category,
        annotations: facts.annotations,
        invocation: context.invocation,
        sandbox: options.sandbox,
        approval: options.approval,
        reason: decision.reason,
        decisionSource: decision.source,
        ...(decision.rule ? { rule: decision.rule } : {}),
        ...(context.subject === undefined ? {} : { subject: context.subject }),
        ...(context.preview === undefined ? {} : { preview: context.preview }),
        paths: context.paths,
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
      typeof answer === 'object' &&
      answer !== null &&
      typeof answer.reason === 'string' &&
      answer.reason.trim()
        ? answer.reason.trim().slice(0, 1000)
        : undefined;
    const by = typeof answer === 'string' ? answer : 'user';
    audit.emit('approval-resolved', { callId: context.callId, toolName: facts.name, approved, by });
    if (approved) {
      return { decision: { type: 'allow', source: 'user', reason: 'a person approved this call' } };
    }
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

  function errorFor(
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

  async function permit(
    facts: PermissionToolFacts,
    context: {
      callId: string;
      invocation: ToolInvocation;
      tool?: RegisteredTool;
      args?: Record<string, unknown>;
      subject?: string | undefined;
      preview?: string | undefined;
      signal: AbortSignal | undefined;
    },
  ): Promise<{ decision: PermissionDecision; error?: ToolhostError }> {
    const permission = context.tool?.definition.permission;
    const paths: ResolvedPathTarget[] = [];
    let pathDenial: { code: string; message: string; argument: string } | undefined;
    let subject = context.subject;
    let preview = context.preview;
    // The sandbox step comes first, so nothing (not even a realpath) happens for a refused writer.
    if (!sandboxDenial(facts, options.sandbox) && permission && context.args) {
      try {
        const targets = permission.paths?.(context.args) ?? [];
        for (const target of targets) {
          if (!options.pathPolicy) break;
          // Blank and missing paths mean the tool's default (`.`), as the tools themselves resolve an
          // optional path; a tool whose path is required refuses a blank one on its own.
          const resolved = await options.pathPolicy.resolve(target.path ?? undefined, {
            access: target.access,
            optional: true,
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
        }
        subject ??= permission.subject?.(context.args);
        preview ??= permission.preview?.(context.args);
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
          callId: context.callId,
          toolName: facts.name,
          ...decisionFields(decision),
        });
        return { decision, error: failure };
      }
    }
    const decision = decidePermission({
      tool: facts,
      sandbox: options.sandbox,
      approval: options.approval,
      rules: options.rules,
      ...(subject === undefined ? {} : { subject }),
      ...(pathDenial ? { pathDenial } : {}),
    });
    audit.emit('permission-decided', {
      callId: context.callId,
      toolName: facts.name,
      ...decisionFields(decision),
      ...(pathDenial ? { deniedArgument: pathDenial.argument } : {}),
      paths: paths.map(({ argument, path, displayPath, access }) => ({
        argument,
        path,
        displayPath,
        access,
      })),
      sandbox: options.sandbox,
      approval: options.approval,
      toolSource: facts.source,
      group: facts.group,
      category: facts.category,
      ...(context.tool
        ? {
            pathAccess: context.tool.definition.pathAccess,
            executionMode: context.tool.definition.execution.mode,
          }
        : {}),
    });
    if (decision.type === 'allow') return { decision };
    if (decision.type === 'deny') return { decision, error: errorFor(decision, facts.name) };
    return askPerson(facts, decision, {
      callId: context.callId,
      invocation: context.invocation,
      subject,
      preview,
      paths,
      signal: context.signal,
    });
  }

  async function runCore(
    plan: Extract<Plan, { kind: 'ready' }>,
    signal: AbortSignal | undefined,
  ): Promise<CoreOutcome> {
    const { tool, callId } = plan;
    const facts = factsOf(tool);
    // 3. permission (sandbox, path policy, rules and approval)
    const permitted = await permit(facts, {
      callId,
      invocation: plan.invocation,
      tool,
      args: plan.args,
      signal,
    });
    if (permitted.error)
      return { result: { ok: false, error: permitted.error }, permission: permitted.decision };
    const cancel = anySignal([signal, options.hostSignal]);
    if (cancel.aborted) {
      return {
        result: {
          ok: false,
          error: new ToolhostError({
            code: 'ABORTED',
            message: `"${tool.name}" was cancelled before it started`,
          }),
        },
        permission: permitted.decision,
      };
    }
    // 4. evidence is checked by the structured file tools under their mutation lock (read-evidence).
    // 5. execute
    audit.emit('call-started', {
      callId,
      toolName: tool.name,
      mode: tool.definition.execution.mode,
      timeoutMs: tool.definition.execution.timeoutMs,
      abortable: tool.definition.execution.abortable,
    });
    const outcome = await runTool({
      tool: tool.definition,
      args: plan.args,
      callId,
      invocation: plan.invocation,
      signal: cancel,
      ...(options.onStraggler ? { onStraggler: options.onStraggler } : {}),
    });
    return { result: outcome.result, permission: permitted.decision };
  }

  async function finish(plan: Plan, core: CoreOutcome, batchId: string | undefined): Promise<Finished> {
    const { result } = core;
    const toolName = plan.kind === 'ready' ? plan.tool.name : plan.toolName;
    const shapeKind = plan.kind === 'ready' ? (plan.tool.definition.resultShape ?? 'default') : 'default';
    const bodyText = outputText(result.output);
    const text = result.ok
      ? bodyText
      : bodyText
        ? `${result.error.toModelText()}\n\n${bodyText}`
        : result.error.toModelText();
    // 6. shape
    const shaped = await shapeResultText({
      text,
      shape: shapeKind,
      failed: !result.ok,
      callId: plan.callId,
      toolName: toolName ?? boundedName(plan.name),
      store: options.resultStore,
    });
    if (shaped.truncated) {
      audit.emit('result-stored', {
        callId: plan.callId,
        toolName: toolName ?? undefined,
        resultRef: shaped.resultRef,
        originalBytes: shaped.originalBytes,
        keptBytes: shaped.keptBytes,
        ...(shaped.storeError ? { storeError: shaped.storeError } : {}),
      });
    }
    const otherBlocks = (result.output?.content ?? []).filter((block) => block.type !== 'text');
    const content: ContentBlock[] =
      shaped.text !== '' || otherBlocks.length === 0
        ? [{ type: 'text', text: shaped.text }, ...otherBlocks]
        : [...otherBlocks];
    const durationMs = Math.round((performance.now() - plan.startedAt) * 1000) / 1000;
    const error = result.ok ? null : result.error.toJSON();
    audit.emit('call-finished', {
      callId: plan.callId,
      ...(batchId ? { batchId } : {}),
      ...(toolName ? { toolName } : {}),
      status: result.ok ? 'ok' : 'error',
      ...(error ? { code: error.code } : {}),
      durationMs,
      outputBytes: shaped.originalBytes,
      truncated: shaped.truncated,
      resultRef: shaped.resultRef,
    });
    const details = result.output?.details;
    const dispatched: DispatchResult = {
      id: plan.callId,
      name: plan.name,
      toolName,
      status: result.ok ? 'ok' : 'error',
      output: shaped.text,
      content,
      error,
      resultRef: shaped.resultRef,
      truncated: shaped.truncated,
      ...(details ? { details } : {}),
      ...(result.output?.untrusted ? { untrusted: true } : {}),
      ...(core.permission ? { permission: core.permission } : {}),
      durationMs,
    };
    return { result: dispatched, error: result.ok ? undefined : result.error };
  }

  async function runPlan(
    plan: Plan,
    batchId: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Finished> {
    if (plan.kind === 'failed') return finish(plan, { result: { ok: false, error: plan.error } }, batchId);
    let core: CoreOutcome;
    try {
      core = await runCore(plan, signal);
    } catch (error) {
      // A bug in the pipeline itself: fail this call, never the batch.
      core = {
        result: {
          ok: false,
          error: new ToolhostError({
            code: 'EXECUTION_ERROR',
            message: 'the host failed while running this call',
            cause: error,
          }),
        },
      };
    }
    return finish(plan, core, batchId);
  }

  async function dispatchBatch(
    calls: readonly ToolCall[],
    dispatchOptions: DispatchOptions = {},
  ): Promise<BatchResult> {
    const batchId = `batch_${++batchSeq}`;
    audit.emit('batch-received', { batchId, calls: calls.length });
    const plans = calls.map((call) => plan(call, batchId));
    const finished: Finished[] = new Array(plans.length);
    const signal = dispatchOptions.signal;
    let index = 0;
    while (index < plans.length) {
      const current = plans[index] as Plan;
      const parallel = current.kind === 'failed' || current.parallel;
      if (!parallel) {
        finished[index] = await runPlan(current, batchId, signal);
        index++;
        continue;
      }
      // A contiguous run of read-only calls: at most MAX_PARALLEL_CALLS at once, results kept in order.
      let end = index;
      while (end < plans.length) {
        const next = plans[end] as Plan;
        if (next.kind === 'ready' && !next.parallel) break;
        end++;
      }
      let cursor = index;
      const worker = async () => {
        while (cursor < end) {
          const mine = cursor++;
          finished[mine] = await runPlan(plans[mine] as Plan, batchId, signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_CALLS, end - index) }, worker));
      index = end;
    }
    const results = finished.map((entry) => entry.result);
    // 7. record: one batch is one round for the storm breaker, however many calls failed in it.
    const outcomes: StormOutcome[] = finished.map(({ result, error }) => ({
      toolName: result.toolName ?? result.name,
      ok: result.status === 'ok',
      ...(error
        ? {
            error: {
              code: error.code,
              message: error.message,
              signature: error.signature,
              details: error.details,
            },
          }
        : {}),
    }));
    const notice = options.stormBreaker.observe(outcomes);
    if (notice) {
      audit.emit('loop-guard-noticed', {
        batchId,
        kind: notice.kind,
        count: notice.count,
        calls: calls.length,
      });
    }
    audit.emit('batch-finished', {
      batchId,
      calls: calls.length,
      failed: results.filter((result) => result.status === 'error').length,
    });
    return notice ? { results, notice: notice.text } : { results };
  }

  return {
    async dispatch(call, dispatchOptions) {
      const batch = await dispatchBatch([call], dispatchOptions);
      const result = batch.results[0] as DispatchResult;
      return batch.notice ? { ...result, notice: batch.notice } : result;
    },
    dispatchBatch,
    async dispatchTool(name, args, context) {
      const invocation: ToolInvocation = { kind: 'capability', capabilityId: context.capabilityId };
      const planned = plan({ id: context.callId, name, arguments: args }, undefined, invocation);
      if (planned.kind === 'failed') {
        audit.emit('call-finished', {
          callId: planned.callId,
          status: 'error',
          code: planned.error.code,
          via: 'capability',
        });
        return { ok: false, error: planned.error };
      }
      let core: CoreOutcome;
      try {
        core = await runCore(planned, context.signal);
      } catch (error) {
        core = {
          result: {
            ok: false,
            error: new ToolhostError({
              code: 'EXECUTION_ERROR',
              message: 'the host failed while running this call',
              cause: error,
            }),
          },
        };
      }
      audit.emit('call-finished', {
        callId: planned.callId,
        toolName: planned.tool.name,
        status: core.result.ok ? 'ok' : 'error',
        ...(core.result.ok ? {} : { code: core.result.error.code }),
        via: 'capability',
        durationMs: Math.round((performance.now() - planned.startedAt) * 1000) / 1000,
      });
      return core.result;
    },
    async authorize(target) {
      const permitted = await permit(target, {
        callId: target.callId,
        invocation: target.invocation,
        subject: target.subject,
        preview: target.preview,
        signal: target.signal,
      });
      return permitted.error ? { allowed: false, error: permitted.error } : { allowed: true };
    },
  };
}

function decisionFields(decision: PermissionDecision): Record<string, unknown> {
  return {
    decision: decision.type,
    source: decision.source,
    reason: decision.reason,
    ...(decision.type === 'deny' ? { code: decision.code } : {}),
    ...(decision.rule ? { rule: decision.rule } : {}),
  };
}

/** A signal that fires when any of the given ones does. */
function anySignal(signals: readonly (AbortSignal | undefined)[]): AbortSignal {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length === 1) return present[0] as AbortSignal;
  return AbortSignal.any(present);
}
