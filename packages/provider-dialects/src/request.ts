import type { JsonObject } from '@toolhost/contracts';
import type { CompiledTools } from './compile-tools.js';
import type { Message, SseEvent, StreamEvent, ToolChoice } from './ir.js';

/** Options of every dialect's `buildRequest`. */
export interface BuildRequestOptions {
  /** The model id (Gemini: with or without the `models/` prefix). */
  readonly model: string;
  readonly messages: readonly Message[];
  /** The dialect's compiled tools (`compileTools`); without it no tools are sent. */
  readonly tools?: CompiledTools;
  /** Default `auto` when tools are sent. */
  readonly toolChoice?: ToolChoice;
  /** `false` asks for at most one tool call per turn (OpenAI `parallel_tool_calls`, Anthropic `disable_parallel_tool_use`). */
  readonly parallelToolCalls?: boolean;
  /** Ask for server-sent events. Default false. */
  readonly stream?: boolean;
  /** Output token cap. Anthropic requires one and defaults to 4096. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** Anthropic only: place prompt-cache breakpoints (default true); see `applyAnthropicCacheBreakpoints`. */
  readonly cacheBreakpoints?: boolean;
  /** Anthropic only: cache TTL of the breakpoints, `5m` (default) or `1h`. */
  readonly cacheTtl?: '5m' | '1h';
  /**
   * Gemini only: images of a tool result go inside `functionResponse.parts` (Gemini 3 and later;
   * default true) or, when false, follow as separate `inlineData` parts.
   */
  readonly functionResponseParts?: boolean;
  /** Extra top-level body fields (provider knobs such as `reasoning`, `safetySettings`), merged last. */
  readonly extra?: JsonObject;
}

/** One lossy step of turning messages into a request body. */
export interface RequestReportEntry {
  /** Index into `messages`; `-1` for the request as a whole (an option the provider cannot take). */
  readonly message: number;
  readonly action: 'dropped' | 'moved' | 'rewritten' | 'added';
  readonly reason: string;
}

/** A request ready to send: the path (relative to the provider's base URL) and the JSON body. */
export interface BuiltRequest {
  /** `/chat/completions`, `/responses`, `/messages`, or `/models/<model>:generateContent` (`:streamGenerateContent?alt=sse` when streaming). */
  readonly path: string;
  readonly body: JsonObject;
  /** Tool-call ids changed to fit the provider: wire id → neutral id (pass to `parseResponse`). */
  readonly toolCallIds: Readonly<Record<string, string>>;
  readonly report: readonly RequestReportEntry[];
}

/** Options of every dialect's `parseResponse`, `createStreamParser` and `parseRequest`. */
export interface ParseOptions {
  /** The compiled tools the request used: wire names are mapped back to neutral names. */
  readonly tools?: CompiledTools;
  /** Wire id → neutral id, as `buildRequest` returned it. */
  readonly toolCallIds?: Readonly<Record<string, string>>;
  /**
   * Makes an id for a tool call the provider sent without one (Gemini). Default: `call_` plus 24
   * random hex characters.
   */
  readonly generateId?: () => string;
}

/**
 * A streaming parser: feed it every server-sent event in order (`{ event?, data }`, as
 * `eventsource-parser` yields them) and call `end()` when the body ends. It never throws on
 * provider input: failures come out as one `error` event, after which it ignores further input.
 */
export interface StreamParser {
  push(event: SseEvent): StreamEvent[];
  end(): StreamEvent[];
  /** Whether `finish` or `error` has been emitted. */
  readonly done: boolean;
}
