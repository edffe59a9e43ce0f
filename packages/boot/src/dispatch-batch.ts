import type { ToolhostError } from '@toolhost/contracts';
import { type FinalizedCall, runPreparedCall } from './execute-call.js';
import type { BatchResult, DispatchOptions, DispatchResult, ToolCall } from './host-types.js';
import { permitCall } from './permit-call.js';
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
  context.audit.emit('batch-received', { batchId, calls: calls.length });
  const prepared = calls.map((call) => prepareCall(context, call, batchId, options.traceparent));
  const finished: FinalizedCall[] = new Array(prepared.length);
  let index = 0;
  while (index < prepared.length) {
    const current = prepared[index] as PreparedCall;
    const parallel = current.kind === 'failed' || current.parallel;
    if (!parallel) {
      finished[index] = await runPreparedCall(context, current, options, batchId);
      index++;
      continue;
    }
    let end = index;
    while (end < prepared.length) {
      const next = prepared[end] as PreparedCall;
      if (next.kind === 'ready' && !next.parallel) break;
      end++;
    }
    let cursor = index;
    const worker = async () => {
      while (cursor < end) {
        const mine = cursor++;
        finished[mine] = await runPreparedCall(context, prepared[mine] as PreparedCall, options, batchId);
      }
    };
    await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_CALLS, end - index) }, worker));
    index = end;
  }
  const results = finished.map((entry) => entry.result);
  const notice = context.stormBreaker.observe(
    finished.map((entry, position) => stormOutcome(entry, prepared[position] as PreparedCall)),
  );
  if (notice) {
    context.audit.emit('loop-guard-noticed', {
      batchId,
      kind: notice.kind,
      count: notice.count,
      calls: calls.length,
    });
  }
  context.audit.emit('batch-finished', {
    batchId,
    calls: calls.length,
    failed: results.filter((result) => result.status === 'error').length,
  });
  return notice ? { results, notice: notice.text } : { results };
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

/** The permission step alone, for targets outside the registry (MCP connects and calls). */
export async function authorizeTarget(
  context: PipelineContext,
  target: AuthorizeTarget,
): Promise<{ allowed: true } | { allowed: false; error: ToolhostError }> {
  const permitted = await permitCall(context, target, {
    callId: target.callId,
    invocation: target.invocation,
    subject: target.subject,
    preview: target.preview,
    signal: target.signal,
  });
  return permitted.error ? { allowed: false, error: permitted.error } : { allowed: true };
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

/** JSON with object keys sorted at every level, so argument order does not make two calls differ. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
