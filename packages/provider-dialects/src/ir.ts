import type { JsonObject } from '@toolhost/contracts';
import type { DialectError } from './dialect-error.js';

/** The four wire formats, in their fixed order. */
export const DIALECT_NAMES = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const;

/** One of {@link DIALECT_NAMES}. */
export type DialectName = (typeof DIALECT_NAMES)[number];

/**
 * Provider-specific data a part carries so it can be replayed to the same provider (a Gemini
 * `thoughtSignature`, an Anthropic thinking `signature`, a Responses reasoning item). Keyed by
 * dialect; other dialects ignore it.
 */
export type ProviderData = Readonly<Partial<Record<DialectName, JsonObject>>>;

/** Plain text. */
export interface TextPart {
  readonly type: 'text';
  readonly text: string;
  readonly providerData?: ProviderData;
}

/** An inline image: base64 `data` of the given `mimeType` (no `data:` prefix). */
export interface ImagePart {
  readonly type: 'image';
  readonly mimeType: string;
  readonly data: string;
}

/**
 * A tool call the model made. `arguments` is the JSON text exactly as the provider produced it
 * (object-based providers are serialised with `JSON.stringify`); it may be malformed.
 */
export interface ToolCallPart {
  readonly type: 'tool-call';
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  readonly providerData?: ProviderData;
}

/** Model reasoning (thinking). Replayed only to the dialect that produced it (via `providerData`). */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly providerData?: ProviderData;
}

/**
 * An item only one provider understands (a hosted tool's call or result, such as Anthropic's
 * `server_tool_use` / `web_search_tool_result` or a Responses `web_search_call`). It is replayed
 * verbatim to that dialect and left out (with a report entry) for the others.
 */
export interface ProviderPart {
  readonly type: 'provider';
  readonly dialect: DialectName;
  readonly value: JsonObject;
}

/** What a user message may hold. */
export type UserContentPart = TextPart | ImagePart;
/** What an assistant message may hold. */
export type AssistantContentPart = TextPart | ToolCallPart | ReasoningPart | ProviderPart;
/** What a tool result may hold. */
export type ToolResultContentPart = TextPart | ImagePart;

/** Instructions. Several system messages are joined with a blank line where a provider has one slot. */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

/** A user turn. */
export interface UserMessage {
  readonly role: 'user';
  readonly content: string | readonly UserContentPart[];
}

/** A model turn: text, tool calls, reasoning and provider items in order. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: readonly AssistantContentPart[];
}

/** The result of one tool call. `toolName` is the neutral name; `isError` marks a failed call. */
export interface ToolMessage {
  readonly role: 'tool';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly isError: boolean;
  readonly content: readonly ToolResultContentPart[];
}

/** One message of the neutral conversation. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * Which tools the model may call: `auto` (its choice), `none`, `required` (at least one call) or
 * one named tool (neutral name).
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly type: 'tool'; readonly name: string };

/**
 * Token usage, normalised: `inputTokens` counts every prompt token including cached ones (OpenAI's
 * meaning; Anthropic's `input_tokens + cache_read + cache_creation`), `outputTokens` includes
 * reasoning tokens, `totalTokens` is their sum unless the provider reports its own total.
 */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
  readonly reasoningTokens?: number;
}

/** Why the model stopped, normalised across providers. The raw value is kept beside it. */
export type StopReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'refusal' | 'pause' | 'other';

/** A complete model response in the neutral IR. */
export interface ModelResponse {
  readonly id?: string;
  readonly model?: string;
  readonly message: AssistantMessage;
  readonly stopReason: StopReason;
  readonly rawStopReason?: string;
  readonly usage?: Usage;
  /** The provider's usage object as sent. */
  readonly rawUsage?: JsonObject;
}

/** One server-sent event as `eventsource-parser` (or any SSE reader) yields it. */
export interface SseEvent {
  readonly event?: string | undefined;
  readonly data: string;
}

/**
 * What a stream parser emits. `tool-call` is the commit point of one call (its arguments are
 * complete); `finish` carries the whole response and is emitted exactly once on success; `error`
 * ends the stream.
 */
export type StreamEvent =
  | { readonly type: 'response-start'; readonly id?: string; readonly model?: string }
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  | { readonly type: 'tool-call-start'; readonly index: number; readonly id: string; readonly name: string }
  | {
      readonly type: 'tool-call-delta';
      readonly index: number;
      readonly id: string;
      readonly argumentsDelta: string;
    }
  | { readonly type: 'tool-call'; readonly index: number; readonly call: ToolCallPart }
  | { readonly type: 'usage'; readonly usage: Usage }
  | { readonly type: 'finish'; readonly response: ModelResponse }
  | { readonly type: 'error'; readonly error: DialectError };
