import {
  type AnyToolDefinition,
  type ResolvedToolPath,
  type ToolCallContext,
  ToolhostError,
  type ToolInvocation,
  type ToolProgress,
  type ToolResult,
  toToolhostError,
  type TurnOrigin,
} from '@toolhost/contracts';

/**
 * How long an abortable tool may take to settle after its signal fired before the host reports
 * the timeout or abort without it. Its late result is then ignored (an abortable tool promises to
 * stop, so nothing it does afterwards is reported as the call's outcome).
 */
export const ABORT_GRACE_MS = 500;

/** Options of {@link runTool}. */
export interface RunToolOptions {
  readonly tool: AnyToolDefinition;
  readonly args: unknown;
  readonly callId: string;
  readonly invocation: ToolInvocation;
  /** Cancels the call (a batch or the whole host); reported as `ABORTED`. */
  readonly signal?: AbortSignal | undefined;
  /** More signals that cancel the call, each like `signal` (watched apiece, never combined). */
  readonly signals?: readonly AbortSignal[] | undefined;
  /** Receives the tool's progress reports. */
  readonly onProgress?: ((progress: ToolProgress) => void) | undefined;
  /** The session the call belongs to (tools with per-agent state pick it by this). */
  readonly sessionId?: string | undefined;
  /** Who started the call's turn (the session tools' authority); absent means a person's turn. */
  readonly turn?: TurnOrigin | undefined;
  /** The paths the permission step resolved, handed to the handler (`ToolCallContext.resolvedPaths`). */
  readonly resolvedPaths?: readonly ResolvedToolPath[] | undefined;
  /** Overrides the tool's own `execution.timeoutMs`. */
  readonly timeoutMs?: number;
  /** Called with every handler promise still running after the call was reported (close() waits for them). */
  readonly onStraggler?: (settled: Promise<unknown>) => void;
}

/** What ran and how it ended. */
export interface RunToolOutcome {
  readonly result: ToolResult;
  /** `timeout` / `aborted`: the host stopped the call; `completed`: the handler's own result. */
  readonly ending: 'completed' | 'timeout' | 'aborted';
  /** For a stopped non-abortable tool: whether its handler succeeded after all. */
  readonly lateOutcome?: 'succeeded' | 'failed';
}

/**
 * Runs one handler within its bounds. The handler always gets an abort signal; when the timeout
 * elapses or `signal` fires, the signal is fired and:
 * - an abortable tool has {@link ABORT_GRACE_MS} to settle, then `TIMEOUT` / `ABORTED` is reported
 *   whether or not it did (so the call ends promptly);
 * - a non-abortable tool is awaited to the end before `TIMEOUT` / `ABORTED` is reported, so a write
 *   never lands after the report; the report says whether it succeeded after all and carries its output.
 * A handler that throws yields its `ToolhostError` or `EXECUTION_ERROR`; a malformed result is
 * `EXECUTION_ERROR`. Never rejects.
 */
export async function runTool(options: RunToolOptions): Promise<RunToolOutcome> {
  const { tool } = options;
  // setTimeout overflows above 2^31-1 ms (and would fire at once), so longer limits are clamped.
  const timeoutMs = Math.min(options.timeoutMs ?? tool.execution.timeoutMs, 2_147_483_647);
  // The handler's signal is made the first time the handler reads it (an AbortSignal costs a few µs,
  // a measurable part of a small call, and many handlers never look at it); one read after the call
  // was stopped gets a signal that has already fired with the same reason.
  let controller: AbortController | undefined;
  let stopReason: ToolhostError | undefined;
  const context: ToolCallContext = {
    callId: options.callId,
    toolName: tool.name,
    get signal(): AbortSignal {
      if (!controller) {
        controller = new AbortController();
        if (stopReason) controller.abort(stopReason);
      }
      return controller.signal;
    },
    get stopped(): boolean {
      return stopReason !== undefined;
    },
    invocation: options.invocation,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.turn === undefined ? {} : { turn: options.turn }),
    ...(options.resolvedPaths === undefined ? {} : { resolvedPaths: options.resolvedPaths }),
  };
  const signals = options.signal ? [options.signal, ...(options.signals ?? [])] : (options.signals ?? []);
  for (const signal of signals)
    if (signal.aborted) return { result: stopped(tool, 'aborted', timeoutMs), ending: 'aborted' };
  // The handler's promise (a throw before it returned one counts as its rejection), normalised; no
  // async wrapper around it, whose extra promise and turns of the microtask queue every call paid.
  let started: Promise<unknown>;
  try {
    started = Promise.resolve(tool.execute(options.args, context));
  } catch (error) {
    started = Promise.reject(error);
  }
  const handler: Promise<ToolResult> = started.then(
    (value) => normaliseResult(tool.name, value),
    (error: unknown) => ({ ok: false as const, error: toToolhostError(error) }),
  );
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let stopWatching: (() => void) | undefined;
  // One promise settled by whichever comes first (not a race of two derived promises: fewer
  // promises per call).
  type First =
    | { readonly kind: 'completed'; readonly result: ToolResult }
    | { readonly kind: 'timeout' | 'aborted' };
  const first = await new Promise<First>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
    onAbort = () => resolve({ kind: 'aborted' });
    if (signals.length === 1) stopWatching = watchAbort(signals[0] as AbortSignal, onAbort);
    else if (signals.length > 1) {
      const stops = signals.map((signal) => watchAbort(signal, onAbort as () => void));
      stopWatching = () => {
        for (const stop of stops) stop();
      };
    }
    void handler.then((result) => resolve({ kind: 'completed', result }));
  });
  clearTimeout(timer);
  stopWatching?.();
  if (first.kind === 'completed') return { result: first.result, ending: 'completed' };

  const ending = first.kind;
  stopReason = new ToolhostError({
    code: ending === 'timeout' ? 'TIMEOUT' : 'ABORTED',
    message:
      ending === 'timeout'
        ? `"${tool.name}" exceeded its ${timeoutMs} ms limit`
        : `"${tool.name}" was cancelled`,
  });
  controller?.abort(stopReason);
  if (tool.execution.abortable) {
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise<undefined>((resolve) => {
      graceTimer = setTimeout(() => resolve(undefined), ABORT_GRACE_MS);
    });
    const settled = await Promise.race([handler, grace]);
    clearTimeout(graceTimer);
    if (settled === undefined) options.onStraggler?.(handler);
    const output = settled?.output;
    return { result: stopped(tool, ending, timeoutMs, undefined, output), ending };
  }
  // Not interruptible: wait it out, so nothing it does lands after the report.
  const late = await handler;
  return {
    result: stopped(tool, ending, timeoutMs, late.ok ? 'succeeded' : late.error, late.output),
    ending,
    lateOutcome: late.ok ? 'succeeded' : 'failed',
  };
}

/** The calls waiting on each cancellation signal (a session's lives as long as the session). */
const abortWatchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` when `signal` fires, until the returned function is called. One listener per
 * signal, and a set entry per call: adding and removing an EventTarget listener on the session's
 * long-lived signal for every call cost more than the set (issue 25: pipeline overhead).
 */
function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
  let watchers = abortWatchers.get(signal);
  if (!watchers) {
    const created = new Set<() => void>();
    watchers = created;
    abortWatchers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        for (const watcher of [...created]) watcher();
        created.clear();
      },
      { once: true },
    );
  }
  const mine = watchers;
  mine.add(onAbort);
  return () => {
    mine.delete(onAbort);
  };
}

function stopped(
  tool: AnyToolDefinition,
  ending: 'timeout' | 'aborted',
  timeoutMs: number,
  late?: 'succeeded' | ToolhostError,
  output?: ToolResult['output'],
): ToolResult {
  const what =
    ending === 'timeout'
      ? `"${tool.name}" did not finish within its ${timeoutMs} ms limit`
      : `"${tool.name}" was cancelled`;
  let message: string;
  if (late === undefined) {
    message = tool.execution.abortable ? `${what} and was stopped` : what;
  } else if (late === 'succeeded') {
    message = `${what}; it cannot be interrupted, so the host waited for it: it completed after the limit and its effects (if any) are in place`;
  } else {
    message = `${what}; it cannot be interrupted, so the host waited for it: it then failed with ${late.code}: ${late.message}`;
  }
  const error = new ToolhostError({
    code: ending === 'timeout' ? 'TIMEOUT' : 'ABORTED',
    message,
    details: {
      toolName: tool.name,
      timeoutMs,
      abortable: tool.execution.abortable,
      ...(late === undefined ? {} : { lateOutcome: late === 'succeeded' ? 'succeeded' : late.code }),
    },
  });
  return output === undefined ? { ok: false, error } : { ok: false, error, output };
}

function normaliseResult(toolName: string, value: unknown): ToolResult {
  if (typeof value === 'object' && value !== null) {
    const result = value as { ok?: unknown; output?: unknown; error?: unknown };
    if (result.ok === true && isOutput(result.output)) return value as ToolResult;
    if (result.ok === false && ToolhostError.isInstance(result.error)) {
      return result.output === undefined || isOutput(result.output)
        ? (value as ToolResult)
        : { ok: false, error: result.error };
    }
  }
  return {
    ok: false,
    error: new ToolhostError({
      code: 'EXECUTION_ERROR',
      message: `"${toolName}" returned a malformed result (expected { ok, output } or { ok: false, error })`,
      recovery: 'report it; the tool must be fixed',
    }),
  };
}

function isOutput(output: unknown): boolean {
  return (
    typeof output === 'object' && output !== null && Array.isArray((output as { content?: unknown }).content)
  );
}
