import type { ToolhostError } from './errors.js';
import type { JsonObject } from './json.js';

/** Where a tool comes from. `hosted` tools are executed by the provider and never dispatched locally. */
export type ToolSource = 'builtin' | 'dynamic' | 'mcp' | 'hosted';

/** The built-in groups, in their fixed listing order. */
export const TOOL_GROUPS = [
  'utility_builtins',
  'read_only_builtins',
  'editing_builtins',
  'shell_builtins',
] as const;

/** One of {@link TOOL_GROUPS}. */
export type ToolGroup = (typeof TOOL_GROUPS)[number];

/** What kind of work a tool does; drives permission rules. */
export type ToolCategory = 'utility' | 'read' | 'search' | 'write' | 'shell';

/**
 * Facts a tool states about itself (MCP's four hints). A missing hint means unknown, not false:
 * the permission step treats unknown as risky.
 */
export interface ToolAnnotations {
  readonly readOnly?: boolean;
  readonly destructive?: boolean;
  readonly openWorld?: boolean;
  readonly idempotent?: boolean;
}

/**
 * How a call runs. `parallel` tools may run beside other parallel calls of the same batch;
 * `abortable` tools receive a signal and must stop when it fires, while a non-abortable tool is
 * allowed to finish before its timeout is reported (so a write never lands after `TIMEOUT`).
 */
export interface ToolExecution {
  readonly mode: 'parallel' | 'sequential';
  readonly timeoutMs: number;
  readonly abortable: boolean;
}

/** Which paths a tool may reach; the run's sandbox can widen or narrow it. */
export type PathAccess = 'none' | 'current_project' | 'allowed_roots' | 'danger_full_access';

/** `hidden` marks a legacy alias: it runs when called by name and is listed nowhere. */
export type ToolVisibility = 'listed' | 'hidden';

declare const argumentType: unique symbol;

/**
 * A JSON Schema for a tool's arguments that remembers the TypeScript type it was generated from,
 * so {@link defineTool} can type the handler's arguments. The phantom key never exists at run time.
 */
export type ArgumentSchema<TArgs = unknown> = JsonObject & { readonly [argumentType]?: TArgs };

/** The provider-neutral model view of a tool: the only part any provider ever sees. */
export interface ModelTool<TArgs = unknown> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ArgumentSchema<TArgs>;
}

/** How a call reached the tool; it changes the guidance in argument errors. */
export type ToolInvocation =
  | { readonly kind: 'direct' }
  | { readonly kind: 'capability'; readonly capabilityId: string };

/**
 * Who started the turn a call belongs to: a person's direct turn, or an automatic round of a goal
 * that the embedding loop drives (`goalId` names the goal the round belongs to). Session tools decide
 * their authority by it (only a person creates a goal; a goal round may only finish its own goal).
 */
export interface TurnOrigin {
  readonly origin: 'human' | 'goal_round';
  /** The goal an automatic round belongs to. */
  readonly goalId?: string;
}

/** Progress reported by a long-running call. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What a handler receives besides its arguments. Host services are injected when tools are built. */
export interface ToolCallContext {
  readonly callId: string;
  readonly toolName: string;
  /** Fires on timeout or cancellation; abortable tools must stop promptly. */
  readonly signal: AbortSignal;
  /**
   * Whether the call was stopped (timeout or cancellation): the same as `signal.aborted`, when the
   * host provides it, without making the signal (an AbortSignal costs a few µs, a measurable part of
   * a small call, and a tool that only polls needs none). Absent: read `signal.aborted`.
   */
  readonly stopped?: boolean;
  readonly invocation: ToolInvocation;
  readonly onProgress?: (progress: ToolProgress) => void;
  /**
   * The agent session the call belongs to, when the host runs several over one tool set: tools that
   * keep per-agent state (file observations, jobs) pick that session's state by it.
   */
  readonly sessionId?: string;
  /** Who started the turn of this call; absent means a person's direct turn. */
  readonly turn?: TurnOrigin;
  /**
   * The paths the host's permission step already resolved for this call (see {@link ResolvedToolPath}),
   * so a handler can use that resolution instead of resolving the same argument a second time.
   */
  readonly resolvedPaths?: readonly ResolvedToolPath[];
}

/**
 * A path argument as the permission step resolved it through a path policy, handed to the handler.
 * A handler may use it in place of its own `resolve` only when it asks exactly the same question:
 * the same argument, the same input string, the same access, and `resolvedBy` is the policy object
 * the handler itself would ask. Anything the handler does with the path afterwards (pinning the
 * directory, re-checking it right before a commit) it still does: a resolution is a decision about
 * a moment, not a hold on the file system.
 */
export interface ResolvedToolPath {
  /** The argument the path came from. */
  readonly argument: string;
  /** The input exactly as the call gave it. */
  readonly input: string | undefined;
  readonly access: 'read' | 'write' | 'list';
  /** The real absolute path the policy resolved. */
  readonly path: string;
  /** The path as shown to the model. */
  readonly displayPath: string;
  /** Whether the target existed when it was resolved. */
  readonly exists: boolean;
  /** The policy that resolved it (compared by identity). */
  readonly resolvedBy: object;
}

/** One block of a tool's output. */
export type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mimeType: string; readonly data: string }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name?: string;
      readonly mimeType?: string;
      readonly description?: string;
    };

/** A tool's output: content for the model plus value-free details for hosts and audits. */
export interface ToolOutput {
  readonly content: readonly ContentBlock[];
  readonly details?: Readonly<Record<string, unknown>>;
  /** Structured content as an MCP server returned it, kept as is. */
  readonly structuredContent?: unknown;
  /** Third-party text (for example from an MCP server) that the model must not treat as instructions. */
  readonly untrusted?: boolean;
}

/**
 * The outcome of one call. A failure may still carry output (a failed command's output, the tail
 * of a timed-out one).
 */
export type ToolResult =
  | { readonly ok: true; readonly output: ToolOutput }
  | { readonly ok: false; readonly error: ToolhostError; readonly output?: ToolOutput };

/** A tool's handler. Arguments are already validated against the tool's schema. */
export type ToolHandler<TArgs> = (args: TArgs, context: ToolCallContext) => Promise<ToolResult>;

/** A path a call touches, for the permission step's path policy check. */
export interface ToolPathTarget {
  /** The argument it came from (for messages and audits). */
  readonly argument: string;
  /** The path as given; `undefined` means the tool's default (`.`). */
  readonly path: string | undefined;
  readonly access: 'read' | 'write' | 'list';
}

/** What the permission step needs to know about a call, derived from its validated arguments. */
export interface ToolPermissionInput<TArgs> {
  /** The paths the call touches. */
  readonly paths?: (args: TArgs) => readonly ToolPathTarget[];
  /** The text that argument-prefix rules such as `bash(git status:*)` match. */
  readonly subject?: (args: TArgs) => string;
  /** A short human preview for an approval prompt. */
  readonly preview?: (args: TArgs) => string;
}

/** How the result shaper cuts an oversized result (head/tail budget by kind). */
export type ResultShape = 'shell' | 'read' | 'search' | 'default';

/** A provider-executed tool's declarations, keyed by dialect name. */
export interface HostedToolDeclarations {
  readonly declarations: Readonly<Record<string, JsonObject>>;
}

/**
 * A tool definition: runtime facts plus one provider-neutral model view. Only `modelTool` ever
 * reaches a provider; everything else is for the host.
 */
export interface ToolDefinition<TArgs = unknown> {
  readonly name: string;
  /** Other names that resolve to this tool (never listed). */
  readonly aliases?: readonly string[];
  readonly source: ToolSource;
  readonly group: ToolGroup;
  readonly category: ToolCategory;
  readonly annotations: ToolAnnotations;
  readonly execution: ToolExecution;
  readonly pathAccess: PathAccess;
  readonly visibility: ToolVisibility;
  readonly modelTool: ModelTool<TArgs>;
  readonly permission?: ToolPermissionInput<TArgs>;
  readonly resultShape?: ResultShape;
  /**
   * The tool changes only the calling session's own bookkeeping (its task list, goal, deliverables,
   * conversation), never files, processes or anything outside the host: a read-only sandbox does not
   * refuse it, and the permission step allows it without asking (deny rules still apply).
   */
  readonly sessionScoped?: boolean;
  readonly hosted?: HostedToolDeclarations;
  readonly execute: ToolHandler<TArgs>;
}

/** A definition whose argument type is erased, as registries and hosts hold them. */
// biome-ignore lint/suspicious/noExplicitAny: handlers are contravariant in their arguments; hosts hold any tool.
export type AnyToolDefinition = ToolDefinition<any>;

/**
 * Declares a tool. The handler's argument type follows the schema's declared argument type (the
 * `ArgumentSchema<T>` generated from a TypeScript type) or the handler's own annotation.
 */
export function defineTool<TArgs>(definition: ToolDefinition<TArgs>): ToolDefinition<TArgs> {
  return definition;
}

/** Builds a successful result holding one text block. */
export function textResult(text: string, details?: Readonly<Record<string, unknown>>): ToolResult {
  return {
    ok: true,
    output:
      details === undefined
        ? { content: [{ type: 'text', text }] }
        : { content: [{ type: 'text', text }], details },
  };
}

// The UTF-8 byte length of a result's only text block, when the tool that built it counted it
// exactly (textResultOfLength): the shaper then skips counting it again, which is a measurable part
// of a large read (issue 25). Kept beside the block, not on it, so no output or record changes.
const knownTextLengths = new WeakMap<object, number>();

/**
 * Like {@link textResult}, for a tool that knows the exact UTF-8 byte length of its text (read_file
 * counts it from the bytes it read). The length is a promise: it must equal
 * `Buffer.byteLength(text, 'utf8')`; the host's result shaper trusts it (within the bounds any UTF-16
 * text has) instead of counting the text again. Read it back with {@link knownTextBytes}.
 */
export function textResultOfLength(
  text: string,
  utf8Bytes: number,
  details?: Readonly<Record<string, unknown>>,
): ToolResult {
  const result = textResult(text, details);
  if (result.ok && Number.isSafeInteger(utf8Bytes) && utf8Bytes >= 0) {
    knownTextLengths.set(result.output.content[0] as object, utf8Bytes);
  }
  return result;
}

/**
 * The exact UTF-8 byte length of an output's text, when it is one text block built by
 * {@link textResultOfLength} (and the length is possible for that text: between its length and three
 * times it); otherwise `undefined`.
 */
export function knownTextBytes(output: ToolOutput | undefined): number | undefined {
  if (output === undefined || output.content.length !== 1) return undefined;
  const block = output.content[0] as ContentBlock;
  if (block.type !== 'text') return undefined;
  const bytes = knownTextLengths.get(block);
  if (bytes === undefined || bytes < block.text.length || bytes > block.text.length * 3) return undefined;
  return bytes;
}

/** Builds a failed result, optionally with output the model should still see. */
export function errorResult(error: ToolhostError, output?: ToolOutput): ToolResult {
  return output === undefined ? { ok: false, error } : { ok: false, error, output };
}

/** Joins the text blocks of an output. */
export function outputText(output: ToolOutput | undefined): string {
  if (!output) return '';
  let text = '';
  for (const block of output.content)
    if (block.type === 'text') text += text ? `\n${block.text}` : block.text;
  return text;
}
