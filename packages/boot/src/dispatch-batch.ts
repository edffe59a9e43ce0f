import { ToolhostError } from '@toolhost/contracts';
import { type FinalizedCall, finalizeExecutedCall, runPreparedCall, sameJson } from './execute-call.js';
import type { BatchResult, DispatchOptions, DispatchResult, StopRequest, ToolCall } from './host-types.js';
import { contextNote, executionScope, runToolHooks } from './call-interceptors.js';
import { askPerson, permitCall } from './permit-call.js';
import { type AuthorizeTarget, MAX_PARALLEL_CALLS, type PipelineContext } from './pipeline-context.js';
import { type PreparedCall, prepareCall } from './prepare-call.js';
import type { StormOutcome } from './storm-breaker.js';

/**
 * Runs one assistant turn's calls: every call is prepared (resolved and validated) first, then
 * contiguous runs of read-only calls go in parallel (at most {@link MAX_PARALLEL_CALLS} at once) and
 * every writer runs alone, in the model's order; results come back in that order. The batch is one
 * round for the storm breaker, however many calls failed in it.
 */
export async function dispatchBatch(
  context: PipelineContext,
  calls: readonly ToolCall[],
  options: DispatchOptions = {},
): Promise<BatchResult> {
  const batchId = `batch_${++context.counters.batch}`;
  const { audit } = context;
  // Audit fields are built only when someone listens (here and on every step of the call).
  if (audit.enabled) audit.emit('batch-received', { batchId, calls: calls.length });
  const prepared = calls.map((call) => prepareCall(context, call, batchId, options.traceparent));
  const finished: FinalizedCall[] = new Array(prepared.length);
  // A hook or extension that asks the loop to stop ends the turn: calls not started yet are not run.
  let stop: StopRequest | undefined;
  const run = async (position: number, shared: boolean): Promise<FinalizedCall> => {
    const call = prepared[position] as PreparedCall;
    if (stop && call.kind === 'ready') {
      const error = new ToolhostError({
        code: 'HOOK_BLOCKED',
        message: `an earlier call of this turn was stopped (${stop.by}), so "${call.tool.name}" was not run`,
        details: { toolName: call.tool.name, blockedBy: stop.by },
      });
      return finalizeExecutedCall(context, call, { result: { ok: false, error } }, batchId);
    }
    const done = await runPreparedCall(context, call, options, batchId, { shared });
    stop ??= done.result.stop;
    return done;
  };
  let index = 0;
  // A batch of one (every `dispatch`) runs its call alone, without the scheduling below (nothing
  // ran before it, so nothing can have stopped the turn).
  if (prepared.length === 1) {
    const only = await runPreparedCall(context, prepared[0] as PreparedCall, options, batchId, {
      shared: false,
    });
    stop ??= only.result.stop;
    finished[0] = only;
    index = 1;
  }
  while (index < prepared.length) {
    const current = prepared[index] as PreparedCall;
    const parallel = current.kind === 'failed' || current.parallel;
    if (!parallel) {
      finished[index] = await run(index, false);
      index++;
      continue;
    }
    let end = index;
    while (end < prepared.length) {
      const next = prepared[end] as PreparedCall;
      if (next.kind === 'ready' && !next.parallel) break;
      end++;
    }
    const shared = end - index > 1;
    let cursor = index;
    const worker = async () => {
      while (cursor < end) {
        const mine = cursor++;
        finished[mine] = await run(mine, shared);
      }
    };
    await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_CALLS, end - index) }, worker));
    index = end;
  }
  const results = finished.map((entry) => entry.result);
  const notice = context.stormBreaker.observe(finished.map((entry) => stormOutcome(entry, entry.call)));
  if (notice && audit.enabled) {
    audit.emit('loop-guard-noticed', {
      batchId,
      kind: notice.kind,
      count: notice.count,
      calls: calls.length,
    });
  }
  if (audit.enabled) {
    audit.emit('batch-finished', {
      batchId,
      calls: calls.length,
      failed: results.filter((result) => result.status === 'error').length,
      ...(stop ? { stoppedBy: stop.by } : {}),
    });
  }
  return { results, ...(notice ? { notice: notice.text } : {}), ...(stop ? { stop } : {}) };
}

/** One call as a batch of one; the storm breaker's notice, when it speaks, is on the result. */
export async function dispatchCall(
  context: PipelineContext,
  call: ToolCall,
  options: DispatchOptions = {},
): Promise<DispatchResult> {
  const batch = await dispatchBatch(context, [call], options);
  const result = batch.results[0] as DispatchResult;
  return batch.notice ? { ...result, notice: batch.notice } : result;
}

/** What a target's PreToolUse hooks get as `tool_input`, and how to rewrite the call that reached it. */
export interface AuthorizeHookInput {
  readonly toolInput: unknown;
  /** Given the hook's `updatedInput`, the `use_capability` arguments that make the same call with it. */
  readonly rewrite?: (
    updatedInput: Record<string, unknown>,
    envelope: Record<string, unknown>,
  ) => Record<string, unknown>;
}

/**
 * The permission step alone, for targets outside the registry (MCP connects and calls), followed by
 * the target's PreToolUse hooks (`mcp_connect__<server>`, `mcp__<server>__<tool>`): this runs at the
 * capability proxy's seam, before any server process starts or any request is sent. A hook's
 * `updatedInput` of an MCP call sends the whole `use_capability` call back through resolve, validate
 * and permission with the rewritten arguments (nothing reaches the server this time); PreToolUse
 * hooks run once per target of a call.
 */
export async function authorizeTarget(
  context: PipelineContext,
  target: AuthorizeTarget,
  hook: AuthorizeHookInput = { toolInput: {} },
): Promise<{ allowed: true } | { allowed: false; error: ToolhostError }> {
  const permitted = await permitCall(context, target, {
    callId: target.callId,
    invocation: target.invocation,
    subject: target.subject,
    preview: target.preview,
    signal: target.signal,
  });
  if (permitted.error) return { allowed: false, error: permitted.error };
  const active = executionScope.getStore();
  const scope = active && active.callId === target.callId ? active : undefined;
  const refuse = (message: string): { allowed: false; error: ToolhostError } => ({
    allowed: false,
    error: new ToolhostError({
      code: 'HOOK_BLOCKED',
      message,
      details: { toolName: target.name, blockedBy: 'hook:PreToolUse', remoteDispatched: false },
    }),
  });
  if (!scope?.hooked.has(target.name)) {
    scope?.hooked.add(target.name);
    const pre = await runToolHooks(
      context,
      'PreToolUse',
      { toolName: target.name, toolInput: hook.toolInput, callId: target.callId },
      target.signal,
    );
    if (pre) {
      for (const text of pre.additionalContext) scope?.notes.push(contextNote('PreToolUse hook', text));
      if (pre.stop) {
        if (scope) scope.stop = { reason: pre.stop.reason, by: 'hook:PreToolUse' };
        return refuse(`a PreToolUse hook stopped the session's work; "${target.name}" was not run`);
      }
      if (pre.decision === 'deny' || pre.invalid) {
        const reasons = pre.denyReasons.filter((reason) => reason !== '');
        return refuse(
          `a PreToolUse hook refused "${target.name}": ${reasons.join('; ') || (pre.invalid ?? 'no reason given')}`,
        );
      }
      if (pre.updatedInput && !sameJson(pre.updatedInput, hook.toolInput)) {
        if (!scope?.envelope || !hook.rewrite) {
          return refuse(
            `a PreToolUse hook rewrote the input of "${target.name}", which cannot be rewritten here; nothing was run`,
          );
        }
        scope.replacement = {
          arguments: hook.rewrite(pre.updatedInput, scope.envelope),
          by: 'hook:PreToolUse',
        };
        return refuse(
          `a PreToolUse hook rewrote the input of "${target.name}"; the rewritten call is checked again`,
        );
      }
      if (pre.decision === 'ask') {
        const asked = await askPerson(
          context,
          target,
          {
            type: 'ask',
            source: 'hook',
            reason: pre.askReasons.join('; ') || 'a PreToolUse hook asks a person to confirm',
          },
          {
            callId: target.callId,
            invocation: target.invocation,
            subject: target.subject,
            preview: target.preview,
            paths: [],
            signal: target.signal,
          },
        );
        if (asked.error) return { allowed: false, error: asked.error };
      }
    }
  }
  return { allowed: true };
}

function stormOutcome({ result, error }: FinalizedCall, call: PreparedCall): StormOutcome {
  return {
    toolName: result.toolName ?? result.name,
    ok: result.status === 'ok',
    // Only reads and searches repeat to no effect: polling a job or re-running a command may not.
    ...(call.kind === 'ready' &&
    result.status === 'ok' &&
    (call.tool.definition.category === 'read' || call.tool.definition.category === 'search')
      ? { argumentsKey: stableJson(call.args), output: result.output }
      : {}),
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
  };
}

/**
 * JSON with object keys sorted at every level, so argument order does not make two calls differ.
 * Built by concatenation (no intermediate arrays): it runs on every read and search.
 */
function stableJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out += ',';
      out += stableJson(value[index]);
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (index > 0) out += ',';
    out += `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`;
  }
  return `${out}}`;
}
