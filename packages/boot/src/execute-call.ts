import { outputText, type ContentBlock, ToolhostError, type ToolResult } from '@toolhost/contracts';
import type { PermissionDecision } from './decide-permission.js';
import type { DispatchOptions, DispatchResult } from './host-types.js';
import { permitCall, toolFacts } from './permit-call.js';
import type { PipelineContext } from './pipeline-context.js';
import type { PreparedCall, ReadyCall } from './prepare-call.js';
import { boundedName } from './prepare-call.js';
import { runTool } from './run-tool.js';
import { shapeResultText } from './shape-result.js';

/** What running a prepared call produced, before shaping. */
export interface ExecutedCall {
  readonly result: ToolResult;
  readonly permission?: PermissionDecision;
}

/** A shaped, recorded call, and the error as raised (with its storm signature) for the breaker. */
export interface FinalizedCall {
  readonly result: DispatchResult;
  readonly error: ToolhostError | undefined;
}

/**
 * Steps 3 to 5: the permission step, then (evidence is checked by the structured file tools under
 * their mutation lock) the handler within its timeout and the cancellation of the call, the session
 * and the host. The handler gets the session id and a progress callback. Emits `call-started`.
 */
export async function executePreparedCall(
  context: PipelineContext,
  call: ReadyCall,
  options: DispatchOptions,
): Promise<ExecutedCall> {
  const { tool, callId } = call;
  const permitted = await permitCall(context, toolFacts(tool), {
    callId,
    invocation: call.invocation,
    tool,
    args: call.args,
    signal: options.signal,
  });
  if (permitted.error)
    return { result: { ok: false, error: permitted.error }, permission: permitted.decision };
  const { signal: cancel, release } = anySignal([options.signal, context.closeSignal]);
  if (cancel.aborted) {
    release();
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
  context.audit.emit('call-started', {
    callId,
    toolName: tool.name,
    mode: tool.definition.execution.mode,
    timeoutMs: tool.definition.execution.timeoutMs,
    abortable: tool.definition.execution.abortable,
  });
  const progress = options.onProgress;
  let outcome: Awaited<ReturnType<typeof runTool>>;
  try {
    outcome = await runTool({
      tool: tool.definition,
      args: call.args,
      callId,
      invocation: call.invocation,
      signal: cancel,
      sessionId: context.sessionId,
      ...(permitted.resolvedPaths?.length ? { resolvedPaths: permitted.resolvedPaths } : {}),
      ...(progress ? { onProgress: (report) => progress({ ...report, callId }) } : {}),
      ...(context.onStraggler ? { onStraggler: context.onStraggler } : {}),
    });
  } finally {
    release();
  }
  return { result: outcome.result, permission: permitted.decision };
}

/** {@link executePreparedCall}, with a bug in the pipeline itself failing only this call. */
export async function runPreparedCall(
  context: PipelineContext,
  call: PreparedCall,
  options: DispatchOptions,
  batchId: string | undefined,
): Promise<FinalizedCall> {
  if (call.kind === 'failed')
    return finalizeExecutedCall(context, call, { result: { ok: false, error: call.error } }, batchId);
  let executed: ExecutedCall;
  try {
    executed = await executePreparedCall(context, call, options);
  } catch (error) {
    executed = {
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
  return finalizeExecutedCall(context, call, executed, batchId);
}

/**
 * Steps 6 and 7: shape the text for the model by the tool's own result shape (a truncated body is
 * kept in the session's result store for `session:tool_result`) and record exactly one
 * `call-finished` for the call.
 */
export async function finalizeExecutedCall(
  context: PipelineContext,
  call: PreparedCall,
  executed: ExecutedCall,
  batchId: string | undefined,
): Promise<FinalizedCall> {
  const { result } = executed;
  const { audit } = context;
  const toolName = call.kind === 'ready' ? call.tool.name : call.toolName;
  const shapeKind = call.kind === 'ready' ? (call.tool.definition.resultShape ?? 'default') : 'default';
  const bodyText = outputText(result.output);
  const text = result.ok
    ? bodyText
    : bodyText
      ? `${result.error.toModelText()}\n\n${bodyText}`
      : result.error.toModelText();
  const shaped = await shapeResultText({
    text,
    shape: shapeKind,
    failed: !result.ok,
    callId: call.callId,
    toolName: toolName ?? boundedName(call.name),
    store: context.resultStore,
  });
  if (shaped.truncated) {
    audit.emit('result-stored', {
      callId: call.callId,
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
  const durationMs = Math.round((performance.now() - call.startedAt) * 1000) / 1000;
  const error = result.ok ? null : result.error.toJSON();
  audit.emit('call-finished', {
    callId: call.callId,
    ...(batchId ? { batchId } : {}),
    ...(toolName ? { toolName } : {}),
    ...(call.kind === 'ready' && call.invocation.kind === 'capability'
      ? { capabilityId: call.invocation.capabilityId }
      : {}),
    status: result.ok ? 'ok' : 'error',
    ...(error ? { code: error.code } : {}),
    ...(!result.ok && result.error.code === 'ARGUMENT_VALIDATION' && result.error.signature
      ? { validationId: result.error.signature }
      : {}),
    durationMs,
    outputBytes: shaped.originalBytes,
    truncated: shaped.truncated,
    resultRef: shaped.resultRef,
  });
  const details = result.output?.details;
  const dispatched: DispatchResult = {
    id: call.callId,
    name: call.name,
    toolName,
    status: result.ok ? 'ok' : 'error',
    output: shaped.text,
    content,
    error,
    resultRef: shaped.resultRef,
    truncated: shaped.truncated,
    ...(details ? { details } : {}),
    ...(result.output?.untrusted ? { untrusted: true } : {}),
    ...(executed.permission ? { permission: executed.permission } : {}),
    durationMs,
  };
  return { result: dispatched, error: result.ok ? undefined : result.error };
}

/**
 * A signal that fires when any of the given ones does, and `release` to detach it from them once the
 * call is over. By hand rather than `AbortSignal.any`, whose weakly held dependants cost a measurable
 * part of a small call (about 2% of a read through serve); the listeners on the long-lived session
 * signal are removed by `release`, so none accumulate.
 */
function anySignal(signals: readonly (AbortSignal | undefined)[]): {
  signal: AbortSignal;
  release: () => void;
} {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length === 1) return { signal: present[0] as AbortSignal, release: () => undefined };
  const fired = present.find((signal) => signal.aborted);
  if (fired) return { signal: AbortSignal.abort(fired.reason), release: () => undefined };
  const controller = new AbortController();
  const listeners = present.map((signal) => {
    const listener = () => controller.abort(signal.reason);
    signal.addEventListener('abort', listener, { once: true });
    return [signal, listener] as const;
  });
  return {
    signal: controller.signal,
    release: () => {
      for (const [signal, listener] of listeners) signal.removeEventListener('abort', listener);
    },
  };
}
