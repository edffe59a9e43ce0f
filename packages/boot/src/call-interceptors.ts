import { AsyncLocalStorage } from 'node:async_hooks';
import { deepFreeze, outputText, type ToolResult } from '@toolhost/contracts';
import {
  EXTENSION_TIMEOUT_MS,
  type ExtensionAfterResult,
  type ExtensionCall,
  type ExtensionDecision,
  type ExtensionToolResponse,
  type HostExtension,
} from './host-extension.js';
import type { StopRequest } from './host-types.js';
import type { PipelineContext } from './pipeline-context.js';
import type { ReadyCall } from './prepare-call.js';
import { boundHookText, type HookInput, type HooksOutcome } from './run-hooks.js';

/**
 * What one call's execution shares with the seams it passes through while its handler runs (the
 * capability proxy's `authorize`, reached from inside `use_capability`): a replacement a hook asked
 * for there, which MCP targets it reached (for PostToolUse), and what those hooks added.
 */
export interface ExecutionScope {
  readonly callId: string;
  /** A rewritten `use_capability` envelope: the call goes back through resolve, validate and permission. */
  replacement?: { readonly arguments: Record<string, unknown>; readonly by: string };
  /** Target names whose PreToolUse hooks already ran for this call (they run once per call). */
  readonly hooked: Set<string>;
  /** The MCP tool calls made in the current round, for their PostToolUse hooks. */
  readonly mcpTargets: { readonly name: string; readonly input: unknown }[];
  readonly notes: string[];
  stop?: StopRequest;
  /** The validated arguments of the running `use_capability` call, for a rewrite at the seam. */
  envelope?: Record<string, unknown>;
}

/** The scope of the call whose handler is running now (AsyncLocalStorage follows its awaits). */
export const executionScope = new AsyncLocalStorage<ExecutionScope>();

/** What the extensions' `beforeCall` decided together. */
export type BeforeOutcome =
  | { readonly kind: 'continue'; readonly notes: readonly string[]; readonly ask?: string }
  | { readonly kind: 'deny'; readonly reason: string; readonly by: string; readonly stop?: StopRequest }
  | { readonly kind: 'replace'; readonly name: string; readonly arguments: unknown; readonly by: string };

/** A frozen deep copy: what an extension or hook sees can never change the validated call in place. */
function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

/** One frozen copy per call, however many extensions look at it. */
const frozenArguments = new WeakMap<ReadyCall, Readonly<Record<string, unknown>>>();

function extensionCall(context: PipelineContext, call: ReadyCall, signal: AbortSignal): ExtensionCall {
  let args = frozenArguments.get(call);
  if (!args) {
    args = frozenCopy(call.args);
    frozenArguments.set(call, args);
  }
  return {
    sessionId: context.sessionId,
    callId: call.callId,
    calledName: call.name,
    toolName: call.tool.name,
    arguments: args,
    invocation: call.invocation,
    planning: context.plan?.active === true,
    signal,
  };
}

async function withinBudget<T>(
  work: () => T | Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; why: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const value = await Promise.race([
      Promise.resolve().then(work),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), EXTENSION_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, value };
  } catch (error) {
    return {
      ok: false,
      why: error instanceof Error && error.message === 'timed out' ? 'timed out' : 'threw',
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The extensions step (after validation, before permission): each extension's `beforeCall` in order;
 * the first that denies, stops or replaces decides. An extension that throws or overruns its budget
 * fails the call closed. Emits one `extension-decided` per extension that answered.
 */
export async function runBeforeExtensions(
  context: PipelineContext,
  call: ReadyCall,
  signal: AbortSignal,
): Promise<BeforeOutcome> {
  const notes: string[] = [];
  let ask: string | undefined;
  for (const extension of context.extensions) {
    if (!extension.beforeCall) continue;
    const before = extension.beforeCall;
    const answer = await withinBudget(() => before(extensionCall(context, call, signal)));
    const emit = (decision: string, extra: Record<string, unknown> = {}) =>
      context.audit.emit('extension-decided', {
        callId: call.callId,
        toolName: call.tool.name,
        extension: extension.name,
        phase: 'before',
        decision,
        ...extra,
      });
    if (!answer.ok) {
      emit('error', { problem: answer.why });
      return {
        kind: 'deny',
        by: `extension:${extension.name}`,
        reason: `the host extension "${extension.name}" failed (${answer.why}), so the call was not run`,
      };
    }
    const decision = (answer.value ?? { action: 'continue' }) as ExtensionDecision;
    switch (decision.action) {
      case 'deny':
      case 'stop': {
        const reason = textOf(decision.reason) ?? `the host extension "${extension.name}" refused this call`;
        emit(decision.action);
        return {
          kind: 'deny',
          by: `extension:${extension.name}`,
          reason,
          ...(decision.action === 'stop' ? { stop: { reason, by: `extension:${extension.name}` } } : {}),
        };
      }
      case 'replace': {
        let replacement: unknown;
        try {
          // A copy: the extension keeps no handle on what is validated next.
          replacement = structuredClone(decision.arguments);
        } catch {
          emit('error', { problem: 'replacement arguments are not plain data' });
          return {
            kind: 'deny',
            by: `extension:${extension.name}`,
            reason: `the host extension "${extension.name}" replaced the call with arguments that are not plain data, so nothing was run`,
          };
        }
        emit('replace', { replacedName: typeof decision.name === 'string' ? decision.name : call.tool.name });
        return {
          kind: 'replace',
          name: typeof decision.name === 'string' && decision.name !== '' ? decision.name : call.tool.name,
          arguments: replacement,
          by: `extension:${extension.name}`,
        };
      }
      case 'ask':
        emit('ask');
        ask ??= textOf(decision.reason) ?? `the host extension "${extension.name}" asks a person to confirm`;
        if (textOf(decision.additionalContext))
          notes.push(contextNote(`extension ${extension.name}`, decision.additionalContext as string));
        break;
      case 'continue':
        emit('continue', textOf(decision.additionalContext) ? { additionalContext: true } : {});
        if (textOf(decision.additionalContext))
          notes.push(contextNote(`extension ${extension.name}`, decision.additionalContext as string));
        break;
      default:
        emit('error', { problem: 'unknown action' });
        return {
          kind: 'deny',
          by: `extension:${extension.name}`,
          reason: `the host extension "${extension.name}" answered with an unknown action, so the call was not run`,
        };
    }
  }
  return ask === undefined ? { kind: 'continue', notes } : { kind: 'continue', notes, ask };
}

/** The extensions' `afterCall` (audited only when one fails: the call already ran). */
export async function runAfterExtensions(
  context: PipelineContext,
  call: ReadyCall,
  response: ExtensionToolResponse,
  signal: AbortSignal,
): Promise<{ readonly notes: readonly string[]; readonly stop?: StopRequest }> {
  const notes: string[] = [];
  let stop: StopRequest | undefined;
  for (const extension of context.extensions) {
    if (!extension.afterCall) continue;
    const after = extension.afterCall;
    const answer = await withinBudget(() => after({ ...extensionCall(context, call, signal), response }));
    const value = answer.ok ? ((answer.value ?? {}) as ExtensionAfterResult) : {};
    context.audit.emit('extension-decided', {
      callId: call.callId,
      toolName: call.tool.name,
      extension: extension.name,
      phase: 'after',
      decision: !answer.ok ? 'error' : value.stop ? 'stop' : 'continue',
      ...(!answer.ok ? { problem: answer.why } : {}),
      ...(textOf(value.additionalContext) ? { additionalContext: true } : {}),
    });
    if (textOf(value.additionalContext))
      notes.push(contextNote(`extension ${extension.name}`, value.additionalContext as string));
    if (textOf(value.stop)) stop ??= { reason: value.stop as string, by: `extension:${extension.name}` };
  }
  return stop ? { notes, stop } : { notes };
}

/** A tool's result as hooks (`tool_response`) and extensions see it, before shaping. */
export function toolResponseOf(result: ToolResult): ExtensionToolResponse & { readonly truncated?: true } {
  const bounded = boundHookText(outputText(result.output));
  return {
    status: result.ok ? 'ok' : 'error',
    output: bounded.text,
    error: result.ok ? null : { code: result.error.code, message: result.error.message },
    ...(bounded.truncated ? { truncated: true as const } : {}),
  };
}

/** The common part of a tool hook's stdin. */
export function hookInput(
  context: PipelineContext,
  event: 'PreToolUse' | 'PostToolUse',
  fields: {
    readonly toolName: string;
    readonly toolInput: unknown;
    readonly callId: string;
    readonly toolResponse?: unknown;
  },
): HookInput {
  return {
    session_id: context.sessionId,
    cwd: context.root,
    hook_event_name: event,
    permission_mode: context.plan?.active === true ? 'plan' : 'default',
    tool_name: fields.toolName,
    tool_input: fields.toolInput,
    tool_use_id: fields.callId,
    ...(fields.toolResponse === undefined ? {} : { tool_response: fields.toolResponse }),
  };
}

/** Runs the PreToolUse or PostToolUse hooks of one target, or says none matched. */
export async function runToolHooks(
  context: PipelineContext,
  event: 'PreToolUse' | 'PostToolUse',
  fields: {
    readonly toolName: string;
    readonly toolInput: unknown;
    readonly callId: string;
    readonly toolResponse?: unknown;
  },
  signal: AbortSignal | undefined,
): Promise<HooksOutcome | undefined> {
  const hooks = context.hooks;
  if (!hooks?.matches(event, fields.toolName)) return undefined;
  return hooks.run(event, fields.toolName, hookInput(context, event, fields), {
    audit: context.audit,
    callId: fields.callId,
    signal,
  });
}

/** A line of context for the model, after the result. */
export function contextNote(from: string, text: string): string {
  return `[${from}] ${text.trim()}`;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 4096) : undefined;
}

export type { HostExtension };
