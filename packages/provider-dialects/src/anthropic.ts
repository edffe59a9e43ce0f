import type { JsonObject, JsonValue, Result } from '@toolhost/contracts';
import { isJsonObject, own } from './json-utils.js';
import {
  argumentsObject,
  fromWireId,
  IdMapper,
  MessageBuilder,
  makeResponse,
  makeUsage,
  neutralName,
  numberOr,
  parseEventData,
  RequestReporter,
  StreamParserBase,
  sendsTools,
  wireName,
} from './dialect-common.js';
import { DialectError, providerError } from './dialect-error.js';
import type {
  AssistantContentPart,
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

const DIALECT = 'anthropic';
/** `max_tokens` when the caller gives none (Anthropic requires it). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
/** Anthropic allows at most this many `cache_control` breakpoints per request. */
export const ANTHROPIC_MAX_CACHE_BREAKPOINTS = 4;

/**
 * Builds an Anthropic Messages request (PD-ANT-1 in REQUIREMENTS.md): system messages are
 * hoisted into one top-level `system` joined by a blank line; tool results become `tool_result`
 * blocks (with `is_error` for failures and image blocks) in a user message, and adjacent messages
 * of one role are merged; assistant tool calls become `tool_use` blocks (malformed argument JSON
 * becomes `{}`, reported); `max_tokens` defaults to 4096; tool choice `none` omits the tools unless
 * the history holds tool traffic. Cache breakpoints are placed by default
 * ({@link applyAnthropicCacheBreakpoints}). Throws `DialectError` `CONFIG_INVALID` when the tool
 * choice names a tool that is not in `tools`.
 */
export function buildAnthropicRequest(options: BuildRequestOptions): BuiltRequest {
  const ids = new IdMapper(DIALECT);
  const reporter = new RequestReporter();
  const messages: { role: 'user' | 'assistant'; content: JsonObject[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: JsonObject[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  const systemTexts: string[] = [];
  options.messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        systemTexts.push(message.content);
        return;
      case 'user': {
        const blocks = userBlocks(message.content, index, reporter);
        if (blocks.length === 0)
          reporter.add(index, 'dropped', 'a user message without content was left out');
        push('user', blocks);
        return;
      }
      case 'assistant': {
        const blocks = assistantBlocks(message.content, index, options, ids, reporter);
        if (blocks.length === 0)
          reporter.add(index, 'dropped', 'an assistant message without content was left out');
        push('assistant', blocks);
        return;
      }
      case 'tool':
        push('user', [toolResultBlock(message, ids)]);
        return;
    }
  });

  const body: JsonObject = {
    model: options.model,
    max_tokens: options.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
  };
  const system = systemTexts.filter((text) => text !== '').join('\n\n');
  if (system !== '') body.system = system;
  body.messages = messages;
  if (sendsTools(options)) {
    // Copies: cache breakpoints are set on these objects, and compiled tools are shared and cached.
    body.tools = options.tools!.tools.map((tool) => ({ ...tool }));
    const choice = toolChoice(options);
    if (choice) body.tool_choice = choice;
  }
  if (options.temperature !== undefined) {
    // The request definition of the SDK for the API version sent (@anthropic-ai/sdk 1.x,
    // MessageCreateParams) has no `temperature` any more; a caller who still needs it for an
    // older model passes it in `extra`.
    reporter.add(
      -1,
      'dropped',
      'Anthropic requests carry no `temperature`; pass it in `extra` for a model that still takes it',
    );
  }
  if (options.stream) body.stream = true;
  if (options.extra) Object.assign(body, options.extra);
  if (options.cacheBreakpoints !== false) {
    applyAnthropicCacheBreakpoints(body, options.cacheTtl === undefined ? {} : { ttl: options.cacheTtl });
  }
  return { path: '/messages', body, toolCallIds: ids.record(), report: reporter.entries };
}

function toolChoice(options: BuildRequestOptions): JsonObject | undefined {
  const choice = options.toolChoice ?? 'auto';
  const disable = options.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'auto')
    return options.parallelToolCalls === false ? { type: 'auto', ...disable } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disable };
  return { type: 'tool', name: namedChoice(options, choice.name), ...disable };
}

/** The wire name of a named tool choice; throws when the tool is not compiled. */
export function namedChoice(options: BuildRequestOptions, name: string): string {
  const map = options.tools?.nameMap;
  const wire = map ? own(map.toWire, name) : undefined;
  if (wire === undefined || !options.tools?.tools.length) {
    throw new DialectError({
      code: 'CONFIG_INVALID',
      message: 'the tool choice names a tool that is not in the compiled tools',
      details: { toolName: name },
    });
  }
  return wire;
}

function userBlocks(
  content: string | readonly UserContentPart[],
  index: number,
  reporter: RequestReporter,
): JsonObject[] {
  if (typeof content === 'string') {
    if (content === '') return [];
    return [{ type: 'text', text: content }];
  }
  const blocks: JsonObject[] = [];
  for (const part of content) {
    if (part.type === 'text') {
      if (part.text === '')
        reporter.add(
          index,
          'dropped',
          'an empty text part was left out (Anthropic rejects empty text blocks)',
        );
      else blocks.push({ type: 'text', text: part.text });
    } else {
      blocks.push(imageBlock(part.mimeType, part.data));
    }
  }
  return blocks;
}

function imageBlock(mimeType: string, data: string): JsonObject {
  return { type: 'image', source: { type: 'base64', media_type: mimeType, data } };
}

function assistantBlocks(
  parts: readonly AssistantContentPart[],
  index: number,
  options: BuildRequestOptions,
  ids: IdMapper,
  reporter: RequestReporter,
): JsonObject[] {
  const blocks: JsonObject[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        if (part.text !== '') blocks.push({ type: 'text', text: part.text });
        break;
      case 'tool-call': {
        const input = argumentsObject(part.arguments);
        if (input === undefined) {
          reporter.add(
            index,
            'rewritten',
            `the arguments of call ${part.id} are not a JSON object; they were sent as {}`,
          );
        }
        const block: JsonObject = {
          type: 'tool_use',
          id: ids.toWire(part.id),
          name: wireName(options, part.name),
          input: input ?? {},
        };
        const caller = part.providerData?.anthropic?.caller;
        if (isJsonObject(caller)) block.caller = caller;
        blocks.push(block);
        break;
      }
      case 'reasoning': {
        const raw = part.providerData?.anthropic;
        if (raw) blocks.push({ ...raw });
        else
          reporter.add(index, 'dropped', 'reasoning from another provider cannot be replayed to Anthropic');
        break;
      }
      case 'provider':
        if (part.dialect !== DIALECT)
          reporter.add(index, 'dropped', `a ${part.dialect} item cannot be replayed to Anthropic`);
        else if (part.value.type === 'fallback')
          // The marker of a model hop (fallbacks) carries nothing the model reads, and the API
          // rejects it in a request ("Input tag 'fallback' ... does not match any of the expected
          // tags", recorded in test/fixtures/recorded/anthropic/).
          reporter.add(index, 'dropped', 'a fallback marker is not replayed (the API does not take it back)');
        else blocks.push({ ...part.value });
        break;
    }
  }
  return blocks;
}

function toolResultBlock(message: ToolMessage, ids: IdMapper): JsonObject {
  const block: JsonObject = { type: 'tool_result', tool_use_id: ids.toWire(message.toolCallId) };
  const content = message.content
    .filter((part) => part.type !== 'text' || part.text !== '')
    .map((part) =>
      part.type === 'text' ? { type: 'text', text: part.text } : imageBlock(part.mimeType, part.data),
    );
  if (content.length > 0) block.content = content;
  if (message.isError) block.is_error = true;
  return block;
}

/**
 * Encodes one tool result the Anthropic way: a `tool_result` block (`tool_use_id`, text and image
 * blocks, `is_error: true` for failures) to place first in the next user message.
 */
export function encodeAnthropicToolResult(message: ToolMessage): JsonObject[] {
  return [toolResultBlock(message, new IdMapper(DIALECT))];
}

/** Options of {@link applyAnthropicCacheBreakpoints}. */
export interface AnthropicCacheOptions {
  /** `5m` (default, the API's default TTL) or `1h`. */
  readonly ttl?: '5m' | '1h';
}

/**
 * Places prompt-cache breakpoints on an Anthropic request body in place (PD-ANT-2 in
 * REQUIREMENTS.md): one on the last system block, or on the last tool when there is no system
 * prompt (the prefix order is tools → system → messages, so either covers the tools), and one on
 * the last cacheable block of the last message. Breakpoints already in the body count towards
 * Anthropic's limit of 4, and none is added past it. A string `system` becomes one text block.
 * Returns how many breakpoints the body now holds.
 */
export function applyAnthropicCacheBreakpoints(
  body: JsonObject,
  options: AnthropicCacheOptions = {},
): number {
  const marker: JsonObject = options.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  let count = countBreakpoints(body);
  const place = (block: JsonObject | undefined) => {
    if (!block || block.cache_control !== undefined || count >= ANTHROPIC_MAX_CACHE_BREAKPOINTS) return;
    block.cache_control = { ...marker };
    count += 1;
  };
  if (typeof body.system === 'string' && body.system !== '')
    body.system = [{ type: 'text', text: body.system }];
  const system = Array.isArray(body.system) ? body.system.filter(isJsonObject) : [];
  const tools = Array.isArray(body.tools) ? body.tools.filter(isJsonObject) : [];
  if (system.length > 0) place(system.at(-1));
  else place(tools.at(-1));
  const messages = Array.isArray(body.messages) ? body.messages.filter(isJsonObject) : [];
  const last = messages.at(-1);
  if (last) {
    if (typeof last.content === 'string' && last.content !== '')
      last.content = [{ type: 'text', text: last.content }];
    const blocks = Array.isArray(last.content) ? last.content.filter(isJsonObject) : [];
    place(blocks.findLast((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking'));
  }
  return count;
}

function countBreakpoints(value: JsonValue): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countBreakpoints(item), 0);
  if (!isJsonObject(value)) return 0;
  let count = value.cache_control !== undefined ? 1 : 0;
  for (const key of ['system', 'tools', 'messages', 'content']) {
    const item = own(value, key);
    if (item !== undefined && key !== 'cache_control') count += countBreakpoints(item);
  }
  return count;
}

const RETRYABLE_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error']);

function errorFrom(error: JsonValue | undefined): DialectError {
  const type = isJsonObject(error) && typeof error.type === 'string' ? error.type : 'error';
  const message = isJsonObject(error) && typeof error.message === 'string' ? error.message : 'unknown error';
  return providerError(DIALECT, `Anthropic returned ${type}: ${message}`, {
    providerCode: type,
    retryable: RETRYABLE_TYPES.has(type),
  });
}

/**
 * Maps Anthropic's `stop_reason`. `end_turn` and `stop_sequence` are `stop` even when the content
 * holds `tool_use` blocks: Anthropic ends a turn with `tool_use` whenever the client has calls to
 * run, so `tool_use` blocks in an ended turn were already resolved by the provider (programmatic
 * tool calling), and a loop that re-ran them would run them twice.
 */
export function anthropicStopReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'refusal';
    case 'pause_turn':
      return 'pause';
    default:
      return hasToolCalls ? 'tool-calls' : 'other';
  }
}

/**
 * Anthropic usage, normalised. With `iterations` (compaction, advisor, fallback), the top-level
 * `input_tokens` / `output_tokens` leave out the compaction iterations, so the executor
 * iterations (`message`, `compaction`) are summed; `advisor_message` iterations bill at another
 * model's rates and are left out; a turn served by a `fallback_message` already has the served
 * answer's totals at the top level, which are used as they are. Cache tokens come from the top
 * level; `output_tokens_details.thinking_tokens` is the reasoning count.
 */
export function anthropicUsage(raw: JsonObject): Usage {
  let input = numberOr(raw.input_tokens) ?? 0;
  let output = numberOr(raw.output_tokens) ?? 0;
  const iterations = Array.isArray(raw.iterations) ? raw.iterations.filter(isJsonObject) : [];
  const fallback = iterations.some((iteration) => iteration.type === 'fallback_message');
  const executor = iterations.filter(
    (iteration) => iteration.type === 'message' || iteration.type === 'compaction',
  );
  if (!fallback && executor.length > 0) {
    input = executor.reduce((sum, iteration) => sum + (numberOr(iteration.input_tokens) ?? 0), 0);
    output = executor.reduce((sum, iteration) => sum + (numberOr(iteration.output_tokens) ?? 0), 0);
  }
  const cacheRead = numberOr(raw.cache_read_input_tokens);
  const cacheWrite = numberOr(raw.cache_creation_input_tokens);
  const details = isJsonObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const allInput = input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  return makeUsage({
    input: allInput,
    output,
    cached: cacheRead,
    cacheWrite,
    reasoning: numberOr(details.thinking_tokens),
  });
}

const usageOf = anthropicUsage;

function blockToPart(block: JsonObject, options: ParseOptions | undefined): AssistantContentPart | undefined {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? { type: 'text', text: block.text } : undefined;
    case 'tool_use':
      return toolCallOf(block, options);
    case 'thinking':
      return {
        type: 'reasoning',
        text: typeof block.thinking === 'string' ? block.thinking : '',
        providerData: { anthropic: block },
      };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', providerData: { anthropic: block } };
    default:
      return { type: 'provider', dialect: DIALECT, value: block };
  }
}

function toolCallOf(block: JsonObject, options: ParseOptions | undefined, args?: string): ToolCallPart {
  const call: ToolCallPart = {
    type: 'tool-call',
    id: fromWireId(options, String(block.id ?? '')),
    name: neutralName(options, String(block.name ?? '')),
    arguments: args ?? JSON.stringify(isJsonObject(block.input) ? block.input : {}),
  };
  // A call made from code execution (programmatic tool calling) names its caller; it is replayed.
  return isJsonObject(block.caller)
    ? { ...call, providerData: { anthropic: { caller: block.caller } } }
    : call;
}

/**
 * Parses an Anthropic Messages response body into the neutral response. An error body
 * (`{ type: "error", error }`) or a malformed body is a `PROVIDER_ERROR` value, never a throw.
 * Hosted-tool blocks (`server_tool_use`, `web_search_tool_result`, ...) become provider parts.
 */
export function parseAnthropicResponse(
  body: unknown,
  options?: ParseOptions,
): Result<ModelResponse, DialectError> {
  if (!isJsonObject(body))
    return { ok: false, error: providerError(DIALECT, 'the response body is not a JSON object') };
  if (body.type === 'error' || body.error !== undefined) return { ok: false, error: errorFrom(body.error) };
  if (!Array.isArray(body.content)) {
    return { ok: false, error: providerError(DIALECT, 'the response has no content array') };
  }
  const builder = new MessageBuilder();
  for (const block of body.content) {
    if (!isJsonObject(block)) continue;
    const part = blockToPart(block, options);
    if (!part) continue;
    if (part.type === 'text') builder.text(part.text);
    else if (part.type === 'tool-call') builder.toolCall(part);
    else builder.parts.push(part);
  }
  const rawStop = typeof body.stop_reason === 'string' ? body.stop_reason : undefined;
  const rawUsage = isJsonObject(body.usage) ? body.usage : undefined;
  return {
    ok: true,
    value: makeResponse({
      id: typeof body.id === 'string' ? body.id : undefined,
      model: typeof body.model === 'string' ? body.model : undefined,
      parts: builder.parts,
      stopReason: anthropicStopReason(rawStop, builder.hasToolCalls()),
      rawStopReason: rawStop,
      usage: rawUsage ? usageOf(rawUsage) : undefined,
      rawUsage,
    }),
  };
}

function hasBlocks(message: JsonObject): boolean {
  return Array.isArray(message.content) && message.content.length > 0;
}

interface BlockState {
  readonly type: string;
  readonly start: JsonObject;
  text: string;
  json: string;
  signature: string;
  callIndex: number;
}

class AnthropicStreamParser extends StreamParserBase {
  readonly #options: ParseOptions | undefined;
  readonly #builder = new MessageBuilder();
  readonly #blocks = new Map<number, BlockState>();
  #id: string | undefined;
  #model: string | undefined;
  #usage: JsonObject = {};
  #stopReason: string | undefined;
  #calls = 0;
  #started = false;
  #content = false;

  constructor(options?: ParseOptions) {
    super();
    this.#options = options;
  }

  protected handle(event: { event?: string | undefined; data: string }, events: StreamEvent[]): void {
    const data = parseEventData(event.data);
    if (!data) {
      this.fail(events, providerError(DIALECT, 'a stream event is not a JSON object'));
      return;
    }
    switch (data.type ?? event.event) {
      case 'message_start': {
        const message = isJsonObject(data.message) ? data.message : {};
        const id = typeof message.id === 'string' ? message.id : undefined;
        if (this.#started) {
          // A repeated message_start (same id, nothing streamed yet) is harmless; any other is a
          // second message spliced into this one, and merging the two would mix their calls.
          if (id === this.#id && !this.#content && !hasBlocks(message)) return;
          this.fail(
            events,
            providerError(DIALECT, 'a second message_start arrived while a message was open', {
              retryable: true,
            }),
          );
          return;
        }
        this.#started = true;
        this.#id = id;
        this.#model = typeof message.model === 'string' ? message.model : undefined;
        if (isJsonObject(message.usage)) this.#usage = { ...message.usage };
        if (typeof message.stop_reason === 'string') this.#stopReason = message.stop_reason;
        events.push({
          type: 'response-start',
          ...(this.#id !== undefined ? { id: this.#id } : {}),
          ...(this.#model !== undefined ? { model: this.#model } : {}),
        });
        // Programmatic tool calling sends whole blocks (a `tool_use` called from code) inside
        // message_start.content rather than as content_block events.
        for (const block of Array.isArray(message.content) ? message.content.filter(isJsonObject) : []) {
          this.#wholeBlock(block, events);
        }
        return;
      }
      case 'content_block_start': {
        this.#content = true;
        const index = numberOr(data.index) ?? this.#blocks.size;
        const block = isJsonObject(data.content_block) ? data.content_block : {};
        const type = typeof block.type === 'string' ? block.type : 'unknown';
        const state: BlockState = { type, start: block, text: '', json: '', signature: '', callIndex: -1 };
        this.#blocks.set(index, state);
        if (type === 'text' && typeof block.text === 'string' && block.text !== '') {
          state.text = block.text;
          events.push({ type: 'text-delta', text: block.text });
        } else if (type === 'thinking' && typeof block.thinking === 'string') {
          state.text = block.thinking;
          if (block.thinking !== '') events.push({ type: 'reasoning-delta', text: block.thinking });
        } else if (type === 'tool_use') {
          state.callIndex = this.#calls++;
          if (isJsonObject(block.input) && Object.keys(block.input).length > 0)
            state.json = JSON.stringify(block.input);
          events.push({
            type: 'tool-call-start',
            index: state.callIndex,
            id: fromWireId(this.#options, String(block.id ?? '')),
            name: neutralName(this.#options, String(block.name ?? '')),
          });
        }
        return;
      }
      case 'content_block_delta': {
        const state = this.#blocks.get(numberOr(data.index) ?? -1);
        const delta = isJsonObject(data.delta) ? data.delta : {};
        if (!state) return;
        if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          state.text += delta.text;
          events.push({ type: 'text-delta', text: delta.text });
        } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          state.json += delta.partial_json;
          if (state.type === 'tool_use') {
            events.push({
              type: 'tool-call-delta',
              index: state.callIndex,
              id: fromWireId(this.#options, String(state.start.id ?? '')),
              argumentsDelta: delta.partial_json,
            });
          }
        } else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
          state.text += delta.thinking;
          events.push({ type: 'reasoning-delta', text: delta.thinking });
        } else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
          state.signature += delta.signature;
        }
        return;
      }
      case 'content_block_stop': {
        const index = numberOr(data.index) ?? -1;
        const state = this.#blocks.get(index);
        if (!state) return;
        this.#blocks.delete(index);
        this.#closeBlock(state, events);
        return;
      }
      case 'message_delta': {
        const delta = isJsonObject(data.delta) ? data.delta : {};
        if (typeof delta.stop_reason === 'string') this.#stopReason = delta.stop_reason;
        if (isJsonObject(data.usage)) {
          for (const key of Object.keys(data.usage)) {
            const value = data.usage[key];
            if (value !== null && value !== undefined) this.#usage[key] = value;
          }
          events.push({ type: 'usage', usage: usageOf(this.#usage) });
        }
        return;
      }
      case 'message_stop':
        this.#complete(events);
        return;
      case 'error':
        this.fail(events, errorFrom(data.error));
        return;
      default:
        return; // ping and event types added later
    }
  }

  /** A block that arrives complete (inside message_start): started and closed at once. */
  #wholeBlock(block: JsonObject, events: StreamEvent[]): void {
    this.#content = true;
    const type = typeof block.type === 'string' ? block.type : 'unknown';
    const state: BlockState = { type, start: block, text: '', json: '', signature: '', callIndex: -1 };
    if (type === 'text' && typeof block.text === 'string') {
      state.text = block.text;
      if (block.text !== '') events.push({ type: 'text-delta', text: block.text });
    } else if (type === 'thinking') {
      state.text = typeof block.thinking === 'string' ? block.thinking : '';
      state.signature = typeof block.signature === 'string' ? block.signature : '';
      if (state.text !== '') events.push({ type: 'reasoning-delta', text: state.text });
    } else if (type === 'tool_use') {
      state.callIndex = this.#calls++;
      state.json = JSON.stringify(isJsonObject(block.input) ? block.input : {});
      const id = fromWireId(this.#options, String(block.id ?? ''));
      events.push(
        {
          type: 'tool-call-start',
          index: state.callIndex,
          id,
          name: neutralName(this.#options, String(block.name ?? '')),
        },
        { type: 'tool-call-delta', index: state.callIndex, id, argumentsDelta: state.json },
      );
    } else if (isJsonObject(block.input)) {
      state.json = JSON.stringify(block.input);
    }
    this.#closeBlock(state, events);
  }

  #closeBlock(state: BlockState, events: StreamEvent[]): void {
    switch (state.type) {
      case 'text':
        this.#builder.text(state.text);
        return;
      case 'tool_use': {
        const call = toolCallOf(state.start, this.#options, state.json === '' ? '{}' : state.json);
        this.#builder.toolCall(call);
        events.push({ type: 'tool-call', index: state.callIndex, call });
        return;
      }
      case 'thinking': {
        const raw: JsonObject = { type: 'thinking', thinking: state.text, signature: state.signature };
        this.#builder.parts.push({ type: 'reasoning', text: state.text, providerData: { anthropic: raw } });
        return;
      }
      case 'redacted_thinking':
        this.#builder.parts.push({ type: 'reasoning', text: '', providerData: { anthropic: state.start } });
        return;
      default: {
        const value: JsonObject = { ...state.start };
        if (state.json !== '') {
          const input = argumentsObject(state.json);
          if (input) value.input = input;
        }
        this.#builder.provider(DIALECT, value);
      }
    }
  }

  #complete(events: StreamEvent[]): void {
    const hasUsage = Object.keys(this.#usage).length > 0;
    this.finish(events, {
      type: 'finish',
      response: makeResponse({
        id: this.#id,
        model: this.#model,
        parts: this.#builder.parts,
        stopReason: anthropicStopReason(this.#stopReason, this.#builder.hasToolCalls()),
        rawStopReason: this.#stopReason,
        usage: hasUsage ? usageOf(this.#usage) : undefined,
        rawUsage: hasUsage ? this.#usage : undefined,
      }),
    });
  }

  protected handleEnd(events: StreamEvent[]): void {
    this.fail(events, providerError(DIALECT, 'the stream ended before message_stop', { retryable: true }));
  }
}

/**
 * A parser for Anthropic's streaming events (`message_start`, `content_block_start` with
 * `tool_use`, `content_block_delta` with `text_delta` / `input_json_delta` / `thinking_delta`,
 * `content_block_stop`, `message_delta` with `stop_reason` and usage, `message_stop`, `ping`,
 * `error`). Tool calls are committed at their `content_block_stop`; `finish` comes at
 * `message_stop`; a stream that ends without it yields a retryable `PROVIDER_ERROR`.
 */
export function createAnthropicStreamParser(options?: ParseOptions): StreamParser {
  return new AnthropicStreamParser(options);
}

/**
 * Decodes an Anthropic request body back into neutral messages (for transcripts, replays and
 * round-trip checks): `system` becomes one system message, `tool_result` blocks become tool
 * messages (named after their `tool_use`), `tool_use` input is serialised as JSON text.
 */
export function parseAnthropicRequest(body: unknown, options?: ParseOptions): { messages: Message[] } {
  const messages: Message[] = [];
  if (!isJsonObject(body)) return { messages };
  const system = body.system;
  if (typeof system === 'string' && system !== '') messages.push({ role: 'system', content: system });
  else if (Array.isArray(system)) {
    const text = system
      .filter(isJsonObject)
      .map((block) => (typeof block.text === 'string' ? block.text : ''))
      .join('\n\n');
    if (text !== '') messages.push({ role: 'system', content: text });
  }
  const names = new Map<string, string>();
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isJsonObject(message)) continue;
    const blocks: JsonObject[] =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : Array.isArray(message.content)
          ? message.content.filter(isJsonObject)
          : [];
    if (message.role === 'assistant') {
      const parts: AssistantContentPart[] = [];
      for (const block of blocks) {
        const { cache_control: _cache, ...clean } = block;
        const part = blockToPart(clean, options);
        if (!part) continue;
        if (part.type === 'tool-call') names.set(part.id, part.name);
        parts.push(part);
      }
      messages.push({ role: 'assistant', content: parts });
      continue;
    }
    const userParts: UserContentPart[] = [];
    for (const block of blocks) {
      if (block.type === 'tool_result') {
        const id = fromWireId(options, String(block.tool_use_id ?? ''));
        const content: ToolResultContentPart[] = [];
        const raw = block.content;
        if (typeof raw === 'string') content.push({ type: 'text', text: raw });
        else if (Array.isArray(raw)) {
          for (const item of raw.filter(isJsonObject)) {
            const part = contentPart(item);
            if (part) content.push(part);
          }
        }
        messages.push({
          role: 'tool',
          toolCallId: id,
          toolName: names.get(id) ?? '',
          isError: block.is_error === true,
          content,
        });
      } else {
        const part = contentPart(block);
        if (part) userParts.push(part);
      }
    }
    if (userParts.length > 0) messages.push({ role: 'user', content: userParts });
  }
  return { messages };
}

function contentPart(block: JsonObject): UserContentPart | undefined {
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.type === 'image' && isJsonObject(block.source) && block.source.type === 'base64') {
    return {
      type: 'image',
      mimeType: String(block.source.media_type ?? ''),
      data: String(block.source.data ?? ''),
    };
  }
  return undefined;
}
