import {
  boundedText,
  parseArguments,
  type RegisteredTool,
  ToolhostError,
  type ToolInvocation,
} from '@toolhost/contracts';
import { closeNames } from './close-names.js';
import type { ToolCall } from './host-types.js';
import type { PipelineContext } from './pipeline-context.js';
import { USE_CAPABILITY } from './select-surface.js';

/** A call that failed before permission (it did not resolve, or its arguments are invalid). */
export interface FailedCall {
  readonly kind: 'failed';
  readonly callId: string;
  readonly name: string;
  readonly toolName: string | null;
  readonly error: ToolhostError;
  readonly startedAt: number;
}

/** A resolved, validated call, ready for the permission step. */
export interface ReadyCall {
  readonly kind: 'ready';
  readonly callId: string;
  /** The name as called (`use_capability`, `tool:glob`, `shell` ...). */
  readonly name: string;
  readonly tool: RegisteredTool;
  readonly args: Record<string, unknown>;
  readonly invocation: ToolInvocation;
  /** Whether it may run beside other read-only calls of its batch. */
  readonly parallel: boolean;
  readonly startedAt: number;
}

/** The outcome of {@link prepareCall}. */
export type PreparedCall = FailedCall | ReadyCall;

const SHELL_SYNONYMS = new Set(['shell', 'powershell', 'bash', 'pwsh']);
const CAPABILITY_ID = /^(tool|mcp-tool|mcp-server|session):|^mcp\//;
const TOOL_CAPABILITY = /^\s*tool:(.+?)\s*$/;
/** A W3C trace context `traceparent` (version 00 and later): version, trace id, parent id, flags. */
const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A name as the model sent it, bounded to 128 characters for messages and the audit log. */
export function boundedName(name: unknown): string {
  return boundedText(typeof name === 'string' ? name : String(name));
}

function notFound(context: PipelineContext, name: string, callId: string): ToolhostError {
  const close = closeNames(
    name,
    context.registry.list().map((tool) => tool.name),
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

/**
 * Steps 1 and 2 of the pipeline: resolve the name (exact name, hidden alias, shell synonym, a
 * capability id called as a name) and validate the arguments against the resolved tool's canonical
 * schema. One way through: a `tool:<name>` of the session's catalog, called as a name or through
 * `use_capability(action="call")`, resolves to that tool itself here, so it is validated, permitted,
 * run and shaped once, as itself (its invocation says how it was reached, for argument errors).
 * Other capability ids go to `use_capability`. Emits `call-received`, `call-resolved` and
 * `call-validated`. Never throws for bad input.
 */
export function prepareCall(
  context: PipelineContext,
  call: ToolCall,
  batchId: string | undefined,
  traceparent?: string,
): PreparedCall {
  const startedAt = performance.now();
  const callId = typeof call.id === 'string' && call.id !== '' ? call.id : `call_${++context.counters.call}`;
  const name = typeof call.name === 'string' ? call.name : '';
  if (context.audit.enabled) {
    context.audit.emit('call-received', {
      callId,
      ...(batchId ? { batchId } : {}),
      calledName: boundedName(name),
      ...(traceparent !== undefined && TRACEPARENT.test(traceparent) ? { traceparent } : {}),
    });
  }
  return resolveCall(context, { callId, name, arguments: call.arguments, startedAt });
}

/** What {@link resolveCall} resolves: a call as proposed, or a replacement of one. */
export interface CallProposal {
  readonly callId: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly startedAt: number;
  /** Set for a replacement (by an extension or a hook): which one it is, from 1, and who made it. */
  readonly replacement?: { readonly round: number; readonly by: string };
}

/**
 * Steps 1 and 2 for one proposal: the seam a replaced call re-enters through, so a call an extension
 * or a hook rewrote is resolved and validated exactly as the model's own (one pipeline, not two).
 * Emits `call-resolved` and `call-validated` (with `replacement` and `replacedBy` for a replacement).
 */
export function resolveCall(context: PipelineContext, proposal: CallProposal): PreparedCall {
  const { audit, registry } = context;
  const { callId, name, startedAt } = proposal;
  const replaced = proposal.replacement
    ? { replacement: proposal.replacement.round, replacedBy: proposal.replacement.by }
    : {};
  const fail = (error: ToolhostError, toolName: string | null): FailedCall => {
    audit.emit(toolName === null ? 'call-resolved' : 'call-validated', {
      callId,
      ...(toolName === null ? {} : { toolName }),
      ok: false,
      code: error.code,
      ...(error.code === 'ARGUMENT_VALIDATION' && error.signature ? { validationId: error.signature } : {}),
      ...replaced,
    });
    return { kind: 'failed', callId, name, toolName, error, startedAt };
  };
  // 1. resolve
  let tool: RegisteredTool | undefined;
  let via: 'exact' | 'alias' | 'shell_synonym' | 'capability' = 'exact';
  let rawArguments = proposal.arguments;
  let invocation: ToolInvocation = { kind: 'direct' };
  const lookup = name ? registry.lookup(name) : undefined;
  if (lookup) {
    tool = lookup.tool;
    if (lookup.alias) via = 'alias';
  } else if (SHELL_SYNONYMS.has(name) && context.shellName) {
    tool = registry.get(context.shellName);
    via = 'shell_synonym';
  } else if (CAPABILITY_ID.test(name) && registry.has(USE_CAPABILITY)) {
    // `tool:<name>`, `mcp-tool:...`, `session:tool_result` called as a name.
    const parsed = parseArguments(rawArguments);
    if (!parsed.ok) {
      const checked = context.validator.validate({
        toolName: name,
        source: 'dynamic',
        schema: { type: 'object', properties: {} },
        arguments: rawArguments,
        invocation: { kind: 'capability', capabilityId: name },
      });
      return fail(checked.ok ? notFound(context, name, callId) : checked.error, null);
    }
    const target = catalogTarget(context, name);
    if (target) {
      tool = target;
      rawArguments = parsed.value;
      invocation = { kind: 'capability', capabilityId: name.trim() };
    } else {
      tool = registry.get(USE_CAPABILITY);
      rawArguments = { action: 'call', capability_id: name, arguments: parsed.value };
    }
    via = 'capability';
  }
  if (!tool) return fail(notFound(context, name, callId), null);
  if (tool.definition.source === 'hosted') {
    audit.emit('call-resolved', { callId, toolName: tool.name, ok: true, via, ...replaced });
    return fail(
      new ToolhostError({
        code: 'TOOL_NOT_FOUND',
        message: `"${tool.name}" is executed by the model provider and is never dispatched by this host`,
        recovery: 'call it through the provider, or use another tool',
      }),
      tool.name,
    );
  }
  // 2. validate (the envelope first when the call went through use_capability), after dropping
  // the keys a client injects into every call when this tool does not declare them.
  const injected = dropInjectedKeys(context, tool, rawArguments);
  rawArguments = injected.arguments;
  let checked = context.validator.validate({
    toolName: tool.name,
    source: tool.definition.source,
    schema: tool.canonicalSchema,
    schemaHash: tool.schemaHash,
    arguments: rawArguments,
    invocation,
  });
  if (checked.ok && tool.name === USE_CAPABILITY) {
    const envelope = checked.value.arguments;
    const capabilityId = typeof envelope.capability_id === 'string' ? envelope.capability_id : undefined;
    const target =
      envelope.action === 'call' && capabilityId !== undefined
        ? catalogTarget(context, capabilityId)
        : undefined;
    if (target) {
      // use_capability(action="call", capability_id="tool:<name>"): the target is the call.
      tool = target;
      via = 'capability';
      invocation = { kind: 'capability', capabilityId: (capabilityId as string).trim() };
      checked = context.validator.validate({
        toolName: tool.name,
        source: tool.definition.source,
        schema: tool.canonicalSchema,
        schemaHash: tool.schemaHash,
        arguments: envelope.arguments ?? {},
        invocation,
      });
    }
  }
  if (audit.enabled) {
    audit.emit('call-resolved', {
      callId,
      toolName: tool.name,
      ok: true,
      via,
      ...(invocation.kind === 'capability' ? { capabilityId: invocation.capabilityId } : {}),
      ...replaced,
    });
  }
  if (!checked.ok) return fail(checked.error, tool.name);
  if (audit.enabled) {
    audit.emit('call-validated', {
      callId,
      toolName: tool.name,
      ok: true,
      schemaFingerprint: tool.schemaFingerprint,
      schemaValidated: checked.value.schemaValidated,
      ...(injected.dropped.length > 0 ? { ignoredKeys: injected.dropped } : {}),
      ...replaced,
    });
  }
  const args = checked.value.arguments;
  let parallel = tool.definition.execution.mode === 'parallel';
  if (tool.name === USE_CAPABILITY) parallel = context.capabilityCallIsParallel?.(args) ?? false;
  return { kind: 'ready', callId, name, tool, args, invocation, parallel, startedAt };
}

/** The catalog tool a `tool:<name>` id names, or `undefined` (not such an id, or not in the catalog). */
function catalogTarget(context: PipelineContext, capabilityId: string): RegisteredTool | undefined {
  const match = TOOL_CAPABILITY.exec(capabilityId);
  if (!match || !context.catalogTool) return undefined;
  return context.catalogTool(match[1] as string);
}

/**
 * Drops the client-injected keys (`wait_for_previous` ...) from a call's top-level arguments when
 * the tool's schema does not declare them; everything else is left to validation, unchanged.
 */
function dropInjectedKeys(
  context: PipelineContext,
  tool: RegisteredTool,
  raw: unknown,
): { readonly arguments: unknown; readonly dropped: readonly string[] } {
  if (context.clientInjectedKeys.size === 0) return { arguments: raw, dropped: [] };
  const parsed = typeof raw === 'string' ? parseArguments(raw) : { ok: true as const, value: raw };
  const value = parsed.ok ? parsed.value : undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { arguments: raw, dropped: [] };
  const declared = (tool.canonicalSchema.properties ?? {}) as Record<string, unknown>;
  const dropped = Object.keys(value).filter(
    (key) => context.clientInjectedKeys.has(key) && !Object.hasOwn(declared, key),
  );
  if (dropped.length === 0) return { arguments: raw, dropped };
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (!dropped.includes(key)) kept[key] = item;
  return { arguments: kept, dropped };
}
