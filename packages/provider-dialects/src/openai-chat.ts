import type { JsonObject, JsonValue, Result } from '@toolhost/contracts';
import { isJsonObject } from './json-utils.js';
import { namedChoice } from './anthropic.js';
import {
  dataUrl,
  fromWireId,
  IdMapper,
  MessageBuilder,
  makeResponse,
  makeUsage,
  neutralName,
  numberOr,
  parseDataUrl,
  parseEventData,
  RequestReporter,
  StreamParserBase,
  sendsTools,
  toolResultText,
  wireName,
} from './dialect-common.js';
import { type DialectError, providerError } from './dialect-error.js';
import type {
  AssistantContentPart,
  ImagePart,
  Message,
  ModelResponse,
  StopReason,
  StreamEvent,
  ToolCallPart,
  ToolMessage,
  ToolResultContentPart,
  UserContentPart,
  Usage,
} from './ir.js';
import type { BuildRequestOptions, BuiltRequest, ParseOptions, StreamParser } from './request.js';

const DIALECT = 'openai-chat';

/** The text that introduces the images of a tool result in the user message that carries them. */
export function chatToolImagesMarker(wireCallId: string): string {
  return `[images from tool result ${wireCallId}]`;
}
const MARKER_PATTERN = /^\[images from tool result (.+)\]$/;

/**
 * Builds an OpenAI Chat Completions request. Tool results become `role: "tool"` messages with
 * the text of the result; Chat tool messages cannot hold images, so a result's images follow the
 * run of tool messages in one user message, each group introduced by
 * `[images from tool result <id>]` (reported). Chat has no error flag for tool results: the text
 * carries the error (reported). Reasoning and other providers' items are left out (reported).
 * Streaming requests ask for usage (`stream_options.include_usage`). Throws `DialectError`
 * `CONFIG_INVALID` when the tool choice names a tool that is not in `tools`.
 */
export function buildOpenAIChatRequest(options: BuildRequestOptions): BuiltRequest {
  const ids = new IdMapper(DIALECT);
  const reporter = new RequestReporter();
  const messages: JsonObject[] = [];
  let pendingImages: JsonObject[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) messages.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  options.messages.forEach((message, index) => {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content });
        return;
      case 'user':
        messages.push({ role: 'user', content: userContent(message.content) });
        return;
      case 'assistant': {
        const encoded = assistantMessage(message.content, index, options, ids, reporter);
        if (encoded) messages.push(encoded);
        else reporter.add(index, 'dropped', 'an assistant message without text or tool calls was left out');
        return;
      }
      case 'tool': {
        const [toolMessage, images] = encodeChatToolResult(message, ids);
        messages.push(toolMessage);
        if (images) {
          pendingImages.push(...images);
          reporter.add(
            index,
            'moved',
            'Chat tool messages hold only text; the images follow in a user message',
          );
        }
        if (message.isError) {
          reporter.add(
            index,
            'dropped',
            'Chat Completions has no error flag for tool results; the result text states the failure',
          );
        }
        return;
      }
    }
  });
  flushImages();

  const body: JsonObject = { model: options.model, messages };
  if (sendsTools(options)) {
    body.tools = [...options.tools!.tools];
    const choice = options.toolChoice ?? 'auto';
    body.tool_choice =
      typeof choice === 'string'
        ? choice
        : { type: 'function', function: { name: namedChoice(options, choice.name) } };
    if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
  }
  if (options.maxOutputTokens !== undefined) body.max_completion_tokens = options.maxOutputTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  if (options.extra) Object.assign(body, options.extra);
  return { path: '/chat/completions', body, toolCallIds: ids.record(), report: reporter.entries };
}

function userContent(content: string | readonly UserContentPart[]): JsonValue {
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: dataUrl(part.mimeType, part.data) } },
  );
}

function assistantMessage(
  parts: readonly AssistantContentPart[],
  index: number,
  options: BuildRequestOptions,
  ids: IdMapper,
  reporter: RequestReporter,
): JsonObject | undefined {
  let text = '';
  const calls: JsonObject[] = [];
  for (const part of parts) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call') {
      calls.push({
        id: ids.toWire(part.id),
        type: 'function',
        function: { name: wireName(options, part.name), arguments: part.arguments },
      });
    } else if (part.type === 'reasoning') {
      reporter.add(index, 'dropped', 'reasoning cannot be replayed to Chat Completions');
    } else {
      reporter.add(index, 'dropped', `a ${part.dialect} item cannot be replayed to Chat Completions`);
    }
  }
  if (text === '' && calls.length === 0) return undefined;
  const message: JsonObject = { role: 'assistant', content: text === '' ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function encodeChatToolResult(message: ToolMessage, ids: IdMapper): [JsonObject, JsonObject[] | undefined] {
  const id = ids.toWire(message.toolCallId);
  const images = message.content.filter((part): part is ImagePart => part.type === 'image');
  const toolMessage: JsonObject = { role: 'tool', tool_call_id: id, content: toolResultText(message) };
  if (images.length === 0) return [toolMessage, undefined];
  return [
    toolMessage,
    [
      { type: 'text', text: chatToolImagesMarker(id) },
      ...images.map((image) => ({
        type: 'image_url',
        image_url: { url: dataUrl(image.mimeType, image.data) },
      })),
    ],
  ];
}

/**
 * Encodes one tool result the Chat Completions way: a `role: "tool"` message with the result's
 * text, followed (when the result has images) by a user message with the marker and image parts.
 */
export function encodeOpenAIChatToolResult(message: ToolMessage): JsonObject[] {
  const [toolMessage, images] = encodeChatToolResult(message, new IdMapper(DIALECT));
  return images ? [toolMessage, { role: 'user', content: images }] : [toolMessage];
}

const RETRYABLE = new Set([
  'server_error',
  'rate_limit_exceeded',
  'rate_limit_error',
  'overloaded',
  'timeout',
]);

/** A provider error from an OpenAI-style `error` object. */
export function openAIError(
  dialect: 'openai-chat' | 'openai-responses',
  error: JsonValue | undefined,
): DialectError {
  const object = isJsonObject(error) ? error : {};
  const code =
    typeof object.code === 'string' ? object.code : typeof object.type === 'string' ? object.type : 'error';
  const type = typeof object.type === 'string' ? object.type : code;
  const message = typeof object.message === 'string' ? object.message : 'unknown error';
  return providerError(dialect, `OpenAI returned ${code}: ${message}`, {
    providerCode: code,
    retryable: RETRYABLE.has(code) || RETRYABLE.has(type),
  });
}

/** Maps Chat Completions' `finish_reason`. */
export function chatStopReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case 'stop':
      return hasToolCalls ? 'tool-calls' : 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return hasToolCalls ? 'tool-calls' : 'other';
  }
}

/** Normalises OpenAI Chat usage (`prompt_tokens` includes cached tokens). */
export function chatUsage(raw: JsonObject): Usage {
  const promptDetails = isJsonObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completionDetails = isJsonObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  return makeUsage({
    input: numberOr(raw.prompt_tokens) ?? 0,
    output: numberOr(raw.completion_tokens) ?? 0,
    total: numberOr(raw.total_tokens),
    cached: numberOr(promptDetails.cached_tokens),
    cacheWrite: numberOr(promptDetails.cache_write_tokens),
    reasoning: numberOr(completionDetails.reasoning_tokens),
  });
}

/**
 * The reasoning text of a message or delta from an OpenAI-compatible server: `reasoning_content`
 * (DeepSeek, older vLLM) or `reasoning` (Groq, OpenRouter, newer vLLM; a server that sends both
 * sends the same text twice, so `reasoning_content` wins).
 */
function reasoningText(message: JsonObject): string | undefined {
  for (const key of ['reasoning_content', 'reasoning'] as const) {
    const value = message[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function callOf(raw: JsonObject, options: ParseOptions | undefined): ToolCallPart | undefined {
  const fn = isJsonObject(raw.function) ? raw.function : {};
  if (typeof raw.id !== 'string' || typeof fn.name !== 'string') return undefined;
  return {
    type: 'tool-call',
    id: fromWireId(options, raw.id),
    name: neutralName(options, fn.name),
    arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
  };
}

/**
 * Parses a Chat Completions response body (the first choice) into the neutral response. An
 * `error` body, a missing choice, or a tool call without id or name is a `PROVIDER_ERROR` value.
 * `reasoning_content` (OpenAI-compatible servers) becomes a reasoning part; `refusal` becomes text
 * with stop reason `refusal`.
 */
export function parseOpenAIChatResponse(
  body: unknown,
  options?: ParseOptions,
): Result<ModelResponse, DialectError> {
  if (!isJsonObject(body))
    return { ok: false, error: providerError(DIALECT, 'the response body is not a JSON object') };
  if (body.error !== undefined && body.error !== null)
    return { ok: false, error: openAIError(DIALECT, body.error) };
  const choice = Array.isArray(body.choices) ? body.choices.find(isJsonObject) : undefined;
  if (!choice || !isJsonObject(choice.message)) {
    return { ok: false, error: providerError(DIALECT, 'the response has no choices[0].message') };
  }
  const message = choice.message;
  const builder = new MessageBuilder();
  const reasoning = reasoningText(message);
  if (reasoning !== undefined) builder.reasoning(reasoning, DIALECT);
  if (typeof message.content === 'string' && message.content !== '') builder.text(message.content);
  const refusal = typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : undefined;
  if (refusal) builder.text(refusal);
  for (const raw of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isJsonObject(raw)) continue;
    const call = callOf(raw, options);
    if (!call)
      return { ok: false, error: providerError(DIALECT, 'a tool call has no id or no function name') };
    builder.toolCall(call);
  }
  const rawStop = typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
  const rawUsage = isJsonObject(body.usage) ? body.usage : undefined;
  return {
    ok: true,
    value: makeResponse({
      id: typeof body.id === 'string' ? body.id : undefined,
      model: typeof body.model === 'string' ? body.model : undefined,
      parts: builder.parts,
      stopReason: refusal ? 'refusal' : chatStopReason(rawStop, builder.hasToolCalls()),
      rawStopReason: rawStop,
      usage: rawUsage ? chatUsage(rawUsage) : undefined,
      rawUsage,
    }),
  };
}

interface CallState {
  id: string | undefined;
  name: string | undefined;
  arguments: string;
  started: boolean;
  committed: boolean;
}

class ChatStreamParser extends StreamParserBase {
  readonly #options: ParseOptions | undefined;
  readonly #builder = new MessageBuilder();
  readonly #calls = new Map<number, CallState>();
  #started = false;
  #id: string | undefined;
  #model: string | undefined;
  #stopReason: string | undefined;
  #usage: JsonObject | undefined;
  #refusal = false;

  constructor(options?: ParseOptions) {
    super();
    this.#options = options;
  }

  protected handle(event: { event?: string | undefined; data: string }, events: StreamEvent[]): void {
    if (event.data.trim() === '[DONE]') {
      this.#complete(events);
      return;
    }
    const data = parseEventData(event.data);
    if (!data) {
      this.fail(events, providerError(DIALECT, 'a stream chunk is not a JSON object'));
      return;
    }
    if (data.error !== undefined && data.error !== null) {
      this.fail(events, openAIError(DIALECT, data.error));
      return;
    }
    // Azure sends a prompt-filter report first, with an empty id and model and no choices: the
    // response starts at the first chunk that names it or carries a choice.
    const id = typeof data.id === 'string' && data.id !== '' ? data.id : undefined;
    const model = typeof data.model === 'string' && data.model !== '' ? data.model : undefined;
    const hasChoice = Array.isArray(data.choices) && data.choices.length > 0;
    if (!this.#started && (id !== undefined || hasChoice)) {
      this.#id = id;
      this.#model = model;
      this.#start(events);
    }
    this.#id ??= id;
    this.#model ??= model;
    if (isJsonObject(data.usage)) {
      this.#usage = data.usage;
      events.push({ type: 'usage', usage: chatUsage(data.usage) });
    }
    const choice = Array.isArray(data.choices) ? data.choices.find(isJsonObject) : undefined;
    if (!choice) return;
    const delta = isJsonObject(choice.delta) ? choice.delta : {};
    const reasoning = reasoningText(delta);
    if (reasoning !== undefined) {
      this.#builder.reasoning(reasoning, DIALECT);
      events.push({ type: 'reasoning-delta', text: reasoning });
    }
    for (const key of ['content', 'refusal'] as const) {
      const text = delta[key];
      if (typeof text === 'string' && text !== '') {
        if (key === 'refusal') this.#refusal = true;
        this.#builder.text(text);
        events.push({ type: 'text-delta', text });
      }
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((raw, position) => {
        if (!isJsonObject(raw)) return;
        const index = numberOr(raw.index) ?? position;
        let state = this.#calls.get(index);
        if (!state) {
          state = { id: undefined, name: undefined, arguments: '', started: false, committed: false };
          this.#calls.set(index, state);
        }
        const fn = isJsonObject(raw.function) ? raw.function : {};
        if (typeof raw.id === 'string' && raw.id !== '') state.id = raw.id;
        // Some compatible servers repeat the name in every delta: the first one wins.
        if (state.name === undefined && typeof fn.name === 'string' && fn.name !== '') state.name = fn.name;
        if (!state.started && state.id !== undefined && state.name !== undefined) {
          state.started = true;
          events.push({
            type: 'tool-call-start',
            index,
            id: fromWireId(this.#options, state.id),
            name: neutralName(this.#options, state.name),
          });
          if (state.arguments !== '') {
            events.push({
              type: 'tool-call-delta',
              index,
              id: fromWireId(this.#options, state.id),
              argumentsDelta: state.arguments,
            });
          }
        }
        if (typeof fn.arguments === 'string' && fn.arguments !== '') {
          state.arguments += fn.arguments;
          if (state.started) {
            events.push({
              type: 'tool-call-delta',
              index,
              id: fromWireId(this.#options, state.id!),
              argumentsDelta: fn.arguments,
            });
          }
        }
      });
    }
    if (typeof choice.finish_reason === 'string') {
      this.#stopReason = choice.finish_reason;
      this.#commitCalls(events);
    }
  }

  #commitCalls(events: StreamEvent[]): boolean {
    for (const index of [...this.#calls.keys()].sort((a, b) => a - b)) {
      const state = this.#calls.get(index)!;
      if (state.committed) continue;
      if (state.id === undefined || state.name === undefined) {
        this.fail(events, providerError(DIALECT, 'a streamed tool call has no id or no function name'));
        return false;
      }
      state.committed = true;
      const call: ToolCallPart = {
        type: 'tool-call',
        id: fromWireId(this.#options, state.id),
        name: neutralName(this.#options, state.name),
        arguments: state.arguments,
      };
      this.#builder.toolCall(call);
      events.push({ type: 'tool-call', index, call });
    }
    return true;
  }

  #start(events: StreamEvent[]): void {
    this.#started = true;
    events.push({
      type: 'response-start',
      ...(this.#id !== undefined ? { id: this.#id } : {}),
      ...(this.#model !== undefined ? { model: this.#model } : {}),
    });
  }

  #complete(events: StreamEvent[]): void {
    if (!this.#started) this.#start(events);
    if (!this.#commitCalls(events)) return;
    this.finish(events, {
      type: 'finish',
      response: makeResponse({
        id: this.#id,
        model: this.#model,
        parts: this.#builder.parts,
        stopReason: this.#refusal
          ? 'refusal'
          : chatStopReason(this.#stopReason, this.#builder.hasToolCalls()),
        rawStopReason: this.#stopReason,
        usage: this.#usage ? chatUsage(this.#usage) : undefined,
        rawUsage: this.#usage,
      }),
    });
  }

  protected handleEnd(events: StreamEvent[]): void {
    if (this.#stopReason !== undefined) this.#complete(events);
    else
      this.fail(
        events,
        providerError(DIALECT, 'the stream ended before a finish_reason', { retryable: true }),
      );
  }
}

/**
 * A parser for Chat Completions chunks (`choices[].delta` with `content` and `tool_calls[]`
 * assembled by `index`, `finish_reason`, a final usage chunk, `data: [DONE]`, and `error`
 * chunks). Calls are committed when `finish_reason` arrives; `finish` comes at `[DONE]` (or at the
 * end of a stream that had a `finish_reason`).
 */
export function createOpenAIChatStreamParser(options?: ParseOptions): StreamParser {
  return new ChatStreamParser(options);
}

/**
 * Decodes a Chat Completions request body back into neutral messages; image marker messages are
 * folded back into the tool results they belong to. Tool results come back with `isError: false`
 * (Chat has no flag for it).
 */
export function parseOpenAIChatRequest(body: unknown, options?: ParseOptions): { messages: Message[] } {
  const messages: Message[] = [];
  if (!isJsonObject(body) || !Array.isArray(body.messages)) return { messages };
  const names = new Map<string, string>();
  const toolMessages = new Map<string, number>();
  for (const raw of body.messages) {
    if (!isJsonObject(raw)) continue;
    switch (raw.role) {
      case 'system':
      case 'developer':
        messages.push({ role: 'system', content: textOf(raw.content) });
        break;
      case 'user': {
        if (Array.isArray(raw.content) && foldImages(raw.content, toolMessages, messages)) break;
        messages.push({
          role: 'user',
          content: typeof raw.content === 'string' ? raw.content : partsOf(raw.content),
        });
        break;
      }
      case 'assistant': {
        const parts: AssistantContentPart[] = [];
        const text = textOf(raw.content);
        if (text !== '') parts.push({ type: 'text', text });
        for (const call of Array.isArray(raw.tool_calls) ? raw.tool_calls : []) {
          if (!isJsonObject(call)) continue;
          const part = callOf(call, options);
          if (!part) continue;
          names.set(part.id, part.name);
          parts.push(part);
        }
        messages.push({ role: 'assistant', content: parts });
        break;
      }
      case 'tool': {
        const id = fromWireId(options, String(raw.tool_call_id ?? ''));
        const text = textOf(raw.content);
        toolMessages.set(String(raw.tool_call_id ?? ''), messages.length);
        messages.push({
          role: 'tool',
          toolCallId: id,
          toolName: names.get(id) ?? '',
          isError: false,
          content: text === '' ? [] : [{ type: 'text', text }],
        });
        break;
      }
    }
  }
  return { messages };
}

function foldImages(content: JsonValue[], toolMessages: Map<string, number>, messages: Message[]): boolean {
  const first = content[0];
  if (
    !isJsonObject(first) ||
    first.type !== 'text' ||
    typeof first.text !== 'string' ||
    !MARKER_PATTERN.test(first.text)
  ) {
    return false;
  }
  let target: number | undefined;
  for (const part of content) {
    if (!isJsonObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') {
      const match = MARKER_PATTERN.exec(part.text);
      target = match ? toolMessages.get(match[1]!) : undefined;
      continue;
    }
    const image = imageOf(part);
    if (image && target !== undefined) {
      const message = messages[target] as ToolMessage;
      messages[target] = { ...message, content: [...message.content, image] as ToolResultContentPart[] };
    }
  }
  return true;
}

function textOf(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter(isJsonObject)
      .map((part) => (typeof part.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}

function imageOf(part: JsonObject): ImagePart | undefined {
  if (part.type !== 'image_url') return undefined;
  const url = isJsonObject(part.image_url) ? part.image_url.url : part.image_url;
  const parsed = typeof url === 'string' ? parseDataUrl(url) : undefined;
  return parsed ? { type: 'image', ...parsed } : undefined;
}

function partsOf(content: JsonValue | undefined): UserContentPart[] {
  if (!Array.isArray(content)) return [];
  const parts: UserContentPart[] = [];
  for (const part of content) {
    if (!isJsonObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
    const image = imageOf(part);
    if (image) parts.push(image);
  }
  return parts;
}
