import {
  type ContentBlock,
  knownTextBytes,
  outputText,
  ToolhostError,
  type ToolResult,
  utf8BoundaryBefore,
} from '@toolhost/contracts';
import {
  contextNote,
  type ExecutionScope,
  executionScope,
  runAfterExtensions,
  runBeforeExtensions,
  runToolHooks,
  toolResponseOf,
} from './call-interceptors.js';
import type { PermissionDecision } from './decide-permission.js';
import type { DispatchOptions, DispatchResult, StopRequest } from './host-types.js';
import { askPerson, permitCall, toolFacts } from './permit-call.js';
import { MAX_CALL_REPLACEMENTS, type PipelineContext } from './pipeline-context.js';
import type { PreparedCall, ReadyCall } from './prepare-call.js';
import { boundedName, resolveCall } from './prepare-call.js';
import { runTool } from './run-tool.js';
import {
  MAX_MODEL_RESULT_BYTES,
  type ShapedResultText,
  type ShapeResultOptions,
  shapeFittingText,
  shapeLongText,
} from './shape-result.js';
import { USE_CAPABILITY } from './select-surface.js';

/** What running a prepared call produced, before shaping. */
export interface ExecutedCall {
  readonly result: ToolResult;
  readonly permission?: PermissionDecision;
  /** The call as it finally stood (after replacements by extensions or hooks); default the prepared one. */
  readonly call?: PreparedCall;
  /** Context and feedback from extensions and hooks, shown to the model after the result. */
  readonly notes?: readonly string[];
  readonly stop?: StopRequest;
}

/** A shaped, recorded call, and the error as raised (with its storm signature) for the breaker. */
export interface FinalizedCall {
  readonly result: DispatchResult;
  readonly error: ToolhostError | undefined;
  /** The call as it finally stood. */
  readonly call: PreparedCall;
}

/** Where a call runs in its batch: alone, or beside other read-only calls. */
export interface CallSlot {
  /** Whether other calls of the batch may run at the same time. */
  readonly shared: boolean;
}

/** The most bytes of notes (hook and extension context) added after a result's text. */
const MAX_NOTES_BYTES = 8 * 1024;

function blocked(message: string, details: Record<string, unknown>): ToolhostError {
  return new ToolhostError({ code: 'HOOK_BLOCKED', message, details });
}

/**
 * Steps 3 to 5 and the interceptors around them, in the seed's order: the extensions' `beforeCall`,
 * the permission step, the PreToolUse hooks, then (evidence is checked by the structured file tools
 * under their mutation lock) the handler within its timeout and the cancellation of the call, the
 * session and the host; then the PostToolUse hooks and the extensions' `afterCall`. A replacement
 * (an extension's `replace`, a hook's `updatedInput`, also one asked for at the capability proxy's
 * seam) re-enters at resolve ({@link resolveCall}) and goes through validation, the extensions and
 * permission again; PreToolUse hooks run once per target of a call. The handler gets the session id,
 * the turn origin and a progress callback. At most
 * {@link MAX_CALL_REPLACEMENTS} replacements, and a call that shares its batch slot with reads may
 * not be replaced by a writer. Emits `call-started`.
 */
export function executePreparedCall(
  context: PipelineContext,
  call: ReadyCall,
  options: DispatchOptions,
  slot: CallSlot = { shared: false },
): Promise<ExecutedCall> {
  const cancel = new CallCancel(
    options.signal === undefined ? [context.closeSignal] : [options.signal, context.closeSignal],
  );
  const work = runCallSteps(context, call, options, slot, cancel);
  // A combined signal made during the call (for extensions and hooks) lets go of the long-lived
  // session signal once the call is over; the release runs before the caller resumes.
  if (cancel.sources.length > 1) {
    const release = () => cancel.release();
    void work.then(release, release);
  }
  return work;
}

async function runCallSteps(
  context: PipelineContext,
  call: ReadyCall,
  options: DispatchOptions,
  slot: CallSlot,
  cancel: CallCancel,
): Promise<ExecutedCall> {
  const notes: string[] = [];
  const scope: ExecutionScope = { callId: call.callId, hooked: new Set(), mcpTargets: [], notes };
  let current: ReadyCall = call;
  let permission: PermissionDecision | undefined;
  let replacements = 0;
  let pendingAsk: { readonly reason: string; readonly source: 'hook' | 'extension' } | undefined;
  const done = (
    result: ToolResult,
    extra: { stop?: StopRequest; call?: PreparedCall } = {},
  ): ExecutedCall => ({
    result,
    ...(permission ? { permission } : {}),
    call: extra.call ?? current,
    ...(notes.length > 0 ? { notes } : {}),
    ...(extra.stop ? { stop: extra.stop } : {}),
  });
  /** Re-enters the pipeline at resolve with a replacement; `undefined` when the caller may go on. */
  const replace = (name: string, args: unknown, by: string): ExecutedCall | undefined => {
    replacements++;
    // The replacement has not been permitted yet: the earlier decision was about another call.
    permission = undefined;
    if (replacements > MAX_CALL_REPLACEMENTS) {
      return done({
        ok: false,
        error: blocked(
          `the call was replaced more than ${MAX_CALL_REPLACEMENTS} times by extensions and hooks; nothing was run`,
          { toolName: current.tool.name, replacedBy: by },
        ),
      });
    }
    const next = resolveCall(context, {
      callId: call.callId,
      name,
      arguments: args,
      startedAt: call.startedAt,
      replacement: { round: replacements, by },
    });
    if (next.kind === 'failed') return done({ ok: false, error: next.error }, { call: next });
    if (slot.shared && !next.parallel) {
      return done(
        {
          ok: false,
          error: blocked(
            `"${by}" replaced a read-only call with "${next.tool.name}", which must run alone; it was not run beside the other calls of this turn`,
            { toolName: next.tool.name, replacedBy: by },
          ),
        },
        { call: next },
      );
    }
    current = next;
    return undefined;
  };

  for (;;) {
    const { tool, callId } = current;
    // Extensions: between validation and permission.
    if (context.extensions.length > 0) {
      const before = await runBeforeExtensions(context, current, cancel.signal);
      if (before.kind === 'deny') {
        return done(
          { ok: false, error: blocked(before.reason, { toolName: tool.name, blockedBy: before.by }) },
          before.stop ? { stop: before.stop } : {},
        );
      }
      // A replacement equal to the call (an idempotent rewriter seeing its own result) changes nothing.
      if (
        before.kind === 'replace' &&
        !(before.name === tool.name && sameJson(before.arguments, current.args))
      ) {
        const refused = replace(before.name, before.arguments, before.by);
        if (refused) return refused;
        continue;
      }
      if (before.kind === 'continue') notes.push(...before.notes);
      if (before.kind === 'continue' && before.ask !== undefined)
        pendingAsk ??= { reason: before.ask, source: 'extension' };
    }
    const facts = toolFacts(tool);
    const permitted = await permitCall(context, facts, {
      callId,
      invocation: current.invocation,
      tool,
      args: current.args,
      signal: options.signal,
    });
    permission = permitted.decision;
    if (permitted.error) return done({ ok: false, error: permitted.error });
    // PreToolUse hooks: after the permission step, once per target of the call.
    if (!scope.hooked.has(tool.name)) {
      scope.hooked.add(tool.name);
      // Awaited only when a hook matches (runToolHooks answers undefined otherwise, a turn later).
      const pre = context.hooks?.matches('PreToolUse', tool.name)
        ? await runToolHooks(
            context,
            'PreToolUse',
            { toolName: tool.name, toolInput: current.args, callId },
            cancel.signal,
          )
        : undefined;
      if (pre) {
        for (const text of pre.additionalContext) notes.push(contextNote('PreToolUse hook', text));
        if (pre.stop) {
          return done(
            {
              ok: false,
              error: blocked(`a PreToolUse hook stopped the session's work; "${tool.name}" was not run`, {
                toolName: tool.name,
                blockedBy: 'hook:PreToolUse',
              }),
            },
            { stop: { reason: pre.stop.reason, by: 'hook:PreToolUse' } },
          );
        }
        if (pre.decision === 'deny' || pre.invalid) {
          const reasons = pre.denyReasons.filter((reason) => reason !== '');
          return done({
            ok: false,
            error: blocked(
              `a PreToolUse hook refused "${tool.name}": ${reasons.join('; ') || (pre.invalid ?? 'no reason given')}`,
              { toolName: tool.name, blockedBy: 'hook:PreToolUse' },
            ),
          });
        }
        if (pre.decision === 'ask') pendingAsk ??= { reason: pre.askReasons.join('; '), source: 'hook' };
        if (pre.updatedInput && !sameJson(pre.updatedInput, current.args)) {
          const refused = replace(tool.name, pre.updatedInput, 'hook:PreToolUse');
          if (refused) return refused;
          continue;
        }
      }
    }
    if (pendingAsk) {
      const asked = await askPerson(
        context,
        facts,
        {
          type: 'ask',
          source: pendingAsk.source,
          reason: pendingAsk.reason || `a ${pendingAsk.source} asks a person to confirm this call`,
        },
        {
          callId,
          invocation: current.invocation,
          subject: safely(() => tool.definition.permission?.subject?.(current.args)),
          preview: safely(() => tool.definition.permission?.preview?.(current.args)),
          paths: [],
          signal: options.signal,
        },
      );
      pendingAsk = undefined;
      if (asked.error) {
        permission = asked.decision;
        return done({ ok: false, error: asked.error });
      }
    }
    if (cancel.aborted) {
      return done({
        ok: false,
        error: new ToolhostError({
          code: 'ABORTED',
          message: `"${tool.name}" was cancelled before it started`,
        }),
      });
    }
    if (context.audit.enabled) {
      context.audit.emit('call-started', {
        callId,
        toolName: tool.name,
        mode: tool.definition.execution.mode,
        timeoutMs: tool.definition.execution.timeoutMs,
        abortable: tool.definition.execution.abortable,
      });
    }
    const progress = options.onProgress;
    delete scope.replacement;
    scope.mcpTargets.length = 0;
    if (tool.name === USE_CAPABILITY) scope.envelope = current.args;
    else delete scope.envelope;
    const running = () =>
      runTool({
        tool: tool.definition,
        args: current.args,
        callId,
        invocation: current.invocation,
        // The call's own signal and the session's, watched apiece: no combined AbortSignal is made.
        signals: cancel.sources,
        sessionId: context.sessionId,
        ...(options.turn ? { turn: options.turn } : {}),
        ...(permitted.resolvedPaths?.length ? { resolvedPaths: permitted.resolvedPaths } : {}),
        ...(progress ? { onProgress: (report) => progress({ ...report, callId }) } : {}),
        ...(context.onStraggler ? { onStraggler: context.onStraggler } : {}),
      });
    // Only hooks read the scope at the capability proxy's seam (their PreToolUse runs there, their
    // replacements, stops and notes come back through it, their PostToolUse needs the MCP targets):
    // without hooks the call skips AsyncLocalStorage, whose promise hooks would otherwise tax every
    // promise of the process from the first call on (issue 25: pipeline overhead).
    const outcome = context.hooks ? await executionScope.run(scope, running) : await running();
    // Set by the seam while the handler ran (read through the type, not the narrowed `delete`).
    const seam: Pick<ExecutionScope, 'replacement' | 'stop'> = scope;
    if (seam.stop) return done(outcome.result, { stop: seam.stop });
    if (seam.replacement && tool.name === USE_CAPABILITY) {
      // A hook at the capability proxy's seam rewrote the MCP call: nothing reached the server.
      const refused = replace(USE_CAPABILITY, seam.replacement.arguments, seam.replacement.by);
      if (refused) return refused;
      continue;
    }
    // No PostToolUse hooks and no extension's afterCall: nothing runs after the handler (and no
    // async step is taken for nothing).
    if (!context.hooks && !context.extensions.some((extension) => extension.afterCall !== undefined))
      return done(outcome.result);
    return finishCall(context, current, outcome.result, { notes, scope, cancel: cancel.signal, done });
  }
}

/** PostToolUse hooks (the call's tool, then each MCP tool it reached) and the extensions' `afterCall`. */
async function finishCall(
  context: PipelineContext,
  call: ReadyCall,
  result: ToolResult,
  input: {
    readonly notes: string[];
    readonly scope: ExecutionScope;
    readonly cancel: AbortSignal;
    readonly done: (result: ToolResult, extra?: { stop?: StopRequest }) => ExecutedCall;
  },
): Promise<ExecutedCall> {
  const { notes, scope } = input;
  let stop: StopRequest | undefined;
  const targets = [
    { name: call.tool.name, input: call.args },
    ...scope.mcpTargets.map((target) => ({ name: target.name, input: target.input })),
  ].filter((target) => context.hooks?.matches('PostToolUse', target.name) === true);
  const observed = context.extensions.some((extension) => extension.afterCall !== undefined);
  // The response is built only when someone reads it.
  const response = targets.length > 0 || observed ? toolResponseOf(result) : undefined;
  for (const target of targets) {
    const post = await runToolHooks(
      context,
      'PostToolUse',
      { toolName: target.name, toolInput: target.input, callId: call.callId, toolResponse: response },
      // The call ran: its hooks still run when the call itself was cancelled at the end.
      context.closeSignal,
    );
    if (!post) continue;
    for (const reason of post.denyReasons)
      if (reason) notes.push(contextNote('PostToolUse hook feedback', reason));
    for (const text of post.additionalContext) notes.push(contextNote('PostToolUse hook', text));
    if (post.stop) stop ??= { reason: post.stop.reason, by: 'hook:PostToolUse' };
  }
  if (observed && response) {
    const after = await runAfterExtensions(context, call, response, input.cancel);
    notes.push(...after.notes);
    stop ??= after.stop;
  }
  return input.done(result, stop ? { stop } : {});
}

/** Whether two JSON values are equal whatever the order of their object keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

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

function safely<T>(work: () => T): T | undefined {
  try {
    return work();
  } catch {
    return undefined;
  }
}

/** {@link executePreparedCall}, with a bug in the pipeline itself failing only this call. */
export async function runPreparedCall(
  context: PipelineContext,
  call: PreparedCall,
  options: DispatchOptions,
  batchId: string | undefined,
  slot: CallSlot = { shared: false },
): Promise<FinalizedCall> {
  if (call.kind === 'failed')
    return finalizeExecutedCall(context, call, { result: { ok: false, error: call.error } }, batchId);
  let executed: ExecutedCall;
  try {
    executed = await executePreparedCall(context, call, options, slot);
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
export function finalizeExecutedCall(
  context: PipelineContext,
  proposed: PreparedCall,
  executed: ExecutedCall,
  batchId: string | undefined,
): FinalizedCall | Promise<FinalizedCall> {
  const { result } = executed;
  const call = executed.call ?? proposed;
  const toolName = call.kind === 'ready' ? call.tool.name : call.toolName;
  const shapeKind = call.kind === 'ready' ? (call.tool.definition.resultShape ?? 'default') : 'default';
  const notesText = boundNotes(executed.notes);
  const notesBytes = notesText === '' ? 0 : Buffer.byteLength(notesText, 'utf8') + 2;
  const bodyText = outputText(result.output);
  const text = result.ok
    ? bodyText
    : bodyText
      ? `${result.error.toModelText()}\n\n${bodyText}`
      : result.error.toModelText();
  const shaping: ShapeResultOptions = {
    text,
    // Counted by the tool when it built a text it read (read_file): not counted again.
    textBytes: result.ok ? knownTextBytes(result.output) : undefined,
    shape: shapeKind,
    failed: !result.ok,
    callId: call.callId,
    toolName: toolName ?? boundedName(call.name),
    store: context.resultStore,
    // Notes from hooks and extensions follow the result, within the model's budget.
    ...(notesBytes > 0 ? { maxBytes: MAX_MODEL_RESULT_BYTES - notesBytes } : {}),
  };
  // A text that fits is shaped (and the call finalized) synchronously, without a turn of the
  // microtask queue; only one that must be cut (and stored) waits.
  const fitting = shapeFittingText(shaping);
  if (fitting) return recordShapedCall(context, proposed, executed, batchId, call, fitting, notesText);
  return shapeLongText(shaping).then((shaped) =>
    recordShapedCall(context, proposed, executed, batchId, call, shaped, notesText),
  );
}

/** The rest of {@link finalizeExecutedCall} once the text is shaped: the record and the result. */
function recordShapedCall(
  context: PipelineContext,
  proposed: PreparedCall,
  executed: ExecutedCall,
  batchId: string | undefined,
  call: PreparedCall,
  shaped: ShapedResultText,
  notesText: string,
): FinalizedCall {
  const { result } = executed;
  const { audit } = context;
  const toolName = call.kind === 'ready' ? call.tool.name : call.toolName;
  const modelText =
    notesText === '' ? shaped.text : shaped.text === '' ? notesText : `${shaped.text}\n\n${notesText}`;
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
    modelText !== '' || otherBlocks.length === 0
      ? [{ type: 'text', text: modelText }, ...otherBlocks]
      : [...otherBlocks];
  const durationMs = Math.round((performance.now() - call.startedAt) * 1000) / 1000;
  const error = result.ok ? null : result.error.toJSON();
  if (audit.enabled)
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
      ...(call !== proposed ? { replaced: true } : {}),
      ...(executed.stop ? { stop: executed.stop.by } : {}),
    });
  const details = result.output?.details;
  const dispatched: DispatchResult = {
    id: call.callId,
    name: proposed.name,
    toolName,
    status: result.ok ? 'ok' : 'error',
    output: modelText,
    content,
    error,
    resultRef: shaped.resultRef,
    truncated: shaped.truncated,
    ...(details ? { details } : {}),
    ...(result.output?.untrusted ? { untrusted: true } : {}),
    ...(executed.permission ? { permission: executed.permission } : {}),
    ...(executed.stop ? { stop: executed.stop } : {}),
    durationMs,
  };
  return { result: dispatched, error: result.ok ? undefined : result.error, call };
}

/** The notes of a call as one text block, at most {@link MAX_NOTES_BYTES} (cut on a character boundary). */
function boundNotes(notes: readonly string[] | undefined): string {
  if (!notes || notes.length === 0) return '';
  const text = notes.join('\n');
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_NOTES_BYTES) return text;
  const end = utf8BoundaryBefore(bytes, MAX_NOTES_BYTES - 3);
  return `${bytes.subarray(0, end).toString('utf8')}...`;
}

/**
 * A call's cancellation: its own signal (if it has one) and the session's close signal. `aborted`
 * asks them; `signal`, one AbortSignal that fires when any does, is made only when something asks for
 * it (extensions and hooks): making an AbortSignal costs a few µs, a measurable part of a small call
 * through serve, where every request has its own signal. Combined by hand rather than
 * `AbortSignal.any`, whose weakly held dependants cost about 2% of a read through serve; `release`
 * removes its listeners from the long-lived session signal, so none accumulate.
 */
class CallCancel {
  #combined: AbortSignal | undefined;
  #listeners: (readonly [AbortSignal, () => void])[] | undefined;

  constructor(readonly sources: readonly AbortSignal[]) {}

  get aborted(): boolean {
    for (const source of this.sources) if (source.aborted) return true;
    return false;
  }

  get signal(): AbortSignal {
    if (this.#combined) return this.#combined;
    const fired = this.sources.find((source) => source.aborted);
    if (this.sources.length === 1) this.#combined = this.sources[0] as AbortSignal;
    else if (fired) this.#combined = AbortSignal.abort(fired.reason);
    else {
      const controller = new AbortController();
      this.#listeners = this.sources.map((source) => {
        const listener = () => controller.abort(source.reason);
        source.addEventListener('abort', listener, { once: true });
        return [source, listener] as const;
      });
      this.#combined = controller.signal;
    }
    return this.#combined;
  }

  /** Detaches the combined signal (if one was made) from its sources. */
  release(): void {
    for (const [source, listener] of this.#listeners ?? []) source.removeEventListener('abort', listener);
    this.#listeners = undefined;
  }
}
