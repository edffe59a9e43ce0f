import type { JsonObject, JsonValue, Result } from '@toolhost/contracts';
import { isJsonObject } from './json-utils.js';
import { namedChoice } from './anthropic.js';
import {
  argumentsObject,
  defaultGenerateId,
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
  toolResultText,
  wireName,
} from './dialect-common.js';
import { type DialectError, providerError } from './dialect-error.js';
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

const DIALECT = 'gemini';

/**
 * The value Google documents for replaying a Gemini 3 `functionCall` whose `thoughtSignature` is
 * not available (for example history from another provider).
 */
export const GEMINI_SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** The request path of a Gemini model (`models/` added when the id has no collection prefix). */
export function geminiModelPath(model: string, stream: boolean): string {
  const name = model.includes('/') ? model : `models/${model}`;
  return `/${name}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

/**
 * Builds a Gemini `generateContent` request: system messages become `systemInstruction`,
 * assistant turns `model` contents with `functionCall` parts (ids sent when the provider gave
 * them; `thoughtSignature` replayed, and Google's documented skip value added for a Gemini 3
 * model turn that has none, reported), tool results `functionResponse` parts with
 * `response.output` or, for failures, `response.error`, images inside `functionResponse.parts`
 * (or as separate `inlineData` parts when `functionResponseParts: false`, reported). Consecutive
 * turns of one role are merged (parallel results go back in one turn). Tool choice maps to
 * `toolConfig.functionCallingConfig` (`AUTO` / `ANY` / `NONE`, `allowedFunctionNames` for a named
 * tool). Throws `DialectError` `CONFIG_INVALID` when the tool choice names a tool that is not in
 * `tools`.
 */
export function buildGeminiRequest(options: BuildRequestOptions): BuiltRequest {
  const ids = new IdMapper(DIALECT);
  const reporter = new RequestReporter();
  const contents: { role: 'user' | 'model'; parts: JsonObject[] }[] = [];
  const push = (role: 'user' | 'model', parts: JsonObject[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  const calls = new Map<string, { synthetic: boolean; name: string }>();
  const gemini3 = /gemini-3/i.test(options.model);
  const systemTexts: string[] = [];
  options.messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        systemTexts.push(message.content);
        return;
      case 'user':
        push('user', userParts(message.content));
        return;
      case 'assistant': {
        const parts: JsonObject[] = [];
        let signed = false;
        for (const part of message.content) {
          const parsed = modelPart(part, index, options, ids, reporter);
          if (!parsed) continue;
          if (typeof parsed.thoughtSignature === 'string') signed = true;
          if (part.type === 'tool-call') {
            calls.set(part.id, {
              synthetic: part.providerData?.gemini?.syntheticId === true,
              name: part.name,
            });
            if (gemini3 && !signed) {
              parsed.thoughtSignature = GEMINI_SKIP_THOUGHT_SIGNATURE;
              signed = true;
              reporter.add(
                index,
                'added',
                'a Gemini 3 function call without a thought signature got the documented skip value',
              );
            }
          }
          parts.push(parsed);
        }
        if (parts.length === 0)
          reporter.add(index, 'dropped', 'an assistant message without content was left out');
        push('model', parts);
        return;
      }
      case 'tool': {
        const call = calls.get(message.toolCallId);
        const name = wireName(options, message.toolName || call?.name || '');
        const [response, extra] = functionResponseParts(
          message,
          name,
          call?.synthetic === true ? undefined : ids.toWire(message.toolCallId),
          options.functionResponseParts !== false,
        );
        if (extra.length > 0)
          reporter.add(index, 'moved', 'the images follow the functionResponse as separate inlineData parts');
        push('user', [response, ...extra]);
        return;
      }
    }
  });

  const body: JsonObject = {};
  const system = systemTexts.filter((text) => text !== '').join('\n\n');
  if (system !== '') body.systemInstruction = { parts: [{ text: system }] };
  body.contents = contents;
  if (sendsTools(options)) {
    body.tools = [...options.tools!.tools];
    const choice = options.toolChoice ?? 'auto';
    const config: JsonObject =
      choice === 'auto'
        ? { mode: 'AUTO' }
        : choice === 'none'
          ? { mode: 'NONE' }
          : choice === 'required'
            ? { mode: 'ANY' }
            : { mode: 'ANY', allowedFunctionNames: [namedChoice(options, choice.name)] };
    body.toolConfig = { functionCallingConfig: config };
  }
  const generationConfig: JsonObject = {};
  if (options.maxOutputTokens !== undefined) generationConfig.maxOutputTokens = options.maxOutputTokens;
  if (options.temperature !== undefined) generationConfig.temperature = options.temperature;
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  if (options.extra) Object.assign(body, options.extra);
  return {
    path: geminiModelPath(options.model, options.stream === true),
    body,
    toolCallIds: ids.record(),
    report: reporter.entries,
  };
}

function userParts(content: string | readonly UserContentPart[]): JsonObject[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.map((part) =>
    part.type === 'text' ? { text: part.text } : { inlineData: { mimeType: part.mimeType, data: part.data } },
  );
}

function modelPart(
  part: AssistantContentPart,
  index: number,
  options: BuildRequestOptions,
  ids: IdMapper,
  reporter: RequestReporter,
): JsonObject | undefined {
  const signature =
    (part.type === 'text' || part.type === 'tool-call') && part.providerData?.gemini?.thoughtSignature;
  switch (part.type) {
    case 'text': {
      if (part.text === '' && typeof signature !== 'string') return undefined;
      const out: JsonObject = { text: part.text };
      if (typeof signature === 'string') out.thoughtSignature = signature;
      return out;
    }
    case 'tool-call': {
      const args = argumentsObject(part.arguments);
      if (args === undefined) {
        reporter.add(
          index,
          'rewritten',
          `the arguments of call ${part.id} are not a JSON object; they were sent as {}`,
        );
      }
      const call: JsonObject = { name: wireName(options, part.name), args: args ?? {} };
      if (part.providerData?.gemini?.syntheticId !== true) call.id = ids.toWire(part.id);
      const out: JsonObject = { functionCall: call };
      if (typeof signature === 'string') out.thoughtSignature = signature;
      return out;
    }
    case 'reasoning': {
      const raw = part.providerData?.gemini;
      if (raw) return raw;
      reporter.add(index, 'dropped', 'reasoning from another provider cannot be replayed to Gemini');
      return undefined;
    }
    case 'provider':
      if (part.dialect === DIALECT) return part.value;
      reporter.add(index, 'dropped', `a ${part.dialect} item cannot be replayed to Gemini`);
      return undefined;
  }
}

function functionResponseParts(
  message: ToolMessage,
  name: string,
  id: string | undefined,
  inside: boolean,
): [JsonObject, JsonObject[]] {
  const text = toolResultText(message);
  const response: JsonObject = message.isError ? { error: text } : { output: text };
  const functionResponse: JsonObject = {};
  if (id !== undefined) functionResponse.id = id;
  functionResponse.name = name;
  functionResponse.response = response;
  const images = message.content
    .filter((part) => part.type === 'image')
    .map((part) => ({ inlineData: { mimeType: part.mimeType, data: part.data } }));
  if (images.length > 0 && inside) functionResponse.parts = images;
  return [{ functionResponse }, inside ? [] : images];
}

/**
 * Encodes one tool result the Gemini way: a `functionResponse` part (`name`, `id` when known,
 * `response.output` or `response.error`) with the images in `parts` (Gemini 3 multimodal function
 * responses). The neutral tool name and id are used as they are.
 */
export function encodeGeminiToolResult(message: ToolMessage): JsonObject[] {
  const [part] = functionResponseParts(
    message,
    message.toolName,
    new IdMapper(DIALECT).toWire(message.toolCallId),
    true,
  );
  return [part];
}

const RETRYABLE_STATUS = new Set(['RESOURCE_EXHAUSTED', 'UNAVAILABLE', 'INTERNAL', 'DEADLINE_EXCEEDED']);

function errorFrom(error: JsonValue | undefined): DialectError {
  const object = isJsonObject(error) ? error : {};
  const status = typeof object.status === 'string' ? object.status : 'ERROR';
  const code = numberOr(object.code);
  const message = typeof object.message === 'string' ? object.message : 'unknown error';
  return providerError(DIALECT, `Gemini returned ${status}: ${message}`, {
    providerCode: status,
    ...(code !== undefined ? { status: code } : {}),
    retryable: RETRYABLE_STATUS.has(status) || code === 429 || code === 500 || code === 503 || code === 504,
  });
}

/** Maps Gemini's `finishReason`. */
export function geminiStopReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case 'STOP':
      return hasToolCalls ? 'tool-calls' : 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content-filter';
    default:
      return hasToolCalls ? 'tool-calls' : 'other';
  }
}

/**
 * Gemini usage: thoughts are output tokens (`reasoningTokens` too); `toolUsePromptTokenCount`
 * (the prompt of code execution and other tool use, which `promptTokenCount` leaves out) counts
 * as input, so input and output add up to `totalTokenCount`.
 */
function usageOf(raw: JsonObject): Usage {
  const thoughts = numberOr(raw.thoughtsTokenCount);
  return makeUsage({
    input: (numberOr(raw.promptTokenCount) ?? 0) + (numberOr(raw.toolUsePromptTokenCount) ?? 0),
    output: (numberOr(raw.candidatesTokenCount) ?? 0) + (thoughts ?? 0),
    total: numberOr(raw.totalTokenCount),
    cached: numberOr(raw.cachedContentTokenCount),
    reasoning: thoughts,
  });
}

/** A call whose arguments arrive in pieces (`partialArgs`, Vertex `streamFunctionCallArguments`). */
interface PendingCall {
  readonly index: number;
  readonly call: Omit<ToolCallPart, 'arguments'>;
  readonly args: JsonObject;
  /** The path whose string value continues in the next piece. */
  continuing: string | undefined;
}

class PartReader {
  readonly builder = new MessageBuilder();
  #calls = 0;
  #pending: PendingCall | undefined;
  constructor(
    readonly options: ParseOptions | undefined,
    readonly generateId: () => string,
  ) {}

  /** Adds one response part; returns the stream events it produces. */
  read(part: JsonObject, events: StreamEvent[] | undefined): DialectError | undefined {
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
    if (isJsonObject(part.functionCall)) {
      const fc = part.functionCall;
      const streamed = fc.partialArgs !== undefined || fc.willContinue === true;
      const empty = fc.name === undefined && fc.args === undefined;
      if (streamed || (this.#pending && empty)) return this.#partial(fc, signature, events);
      if (empty) return undefined; // a closing `{}` with no call open says nothing
      this.flush(events);
      const call = this.#start(fc, signature);
      const arguments_ = JSON.stringify(isJsonObject(fc.args) ? fc.args : {});
      const index = this.#calls++;
      const complete: ToolCallPart = { ...call, arguments: arguments_ };
      this.builder.toolCall(complete);
      events?.push(
        { type: 'tool-call-start', index, id: call.id, name: call.name },
        { type: 'tool-call-delta', index, id: call.id, argumentsDelta: arguments_ },
        { type: 'tool-call', index, call: complete },
      );
      return undefined;
    }
    this.flush(events);
    if (typeof part.text === 'string') {
      if (part.thought === true) {
        this.builder.reasoning(part.text, DIALECT, signature !== undefined ? part : undefined);
        if (part.text !== '') events?.push({ type: 'reasoning-delta', text: part.text });
      } else {
        // Streams send the signature of the text before it on a final empty text part; a body
        // carries it on that text itself. Either way it is one signed text part.
        const signedBefore =
          part.text === '' &&
          signature !== undefined &&
          this.builder.annotateLastText({ thoughtSignature: signature }, DIALECT);
        if (!signedBefore)
          this.builder.text(
            part.text,
            signature !== undefined ? { thoughtSignature: signature } : undefined,
            DIALECT,
          );
        if (part.text !== '') events?.push({ type: 'text-delta', text: part.text });
      }
      return undefined;
    }
    this.builder.provider(DIALECT, part);
    return undefined;
  }

  /** Commits a call whose arguments were streamed in pieces, if one is open. */
  flush(events: StreamEvent[] | undefined): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    const arguments_ = JSON.stringify(pending.args);
    const call: ToolCallPart = { ...pending.call, arguments: arguments_ } as ToolCallPart;
    this.builder.toolCall(call);
    events?.push(
      { type: 'tool-call-delta', index: pending.index, id: call.id, argumentsDelta: arguments_ },
      { type: 'tool-call', index: pending.index, call },
    );
  }

  #start(fc: JsonObject, signature: string | undefined): Omit<ToolCallPart, 'arguments'> {
    const synthetic = typeof fc.id !== 'string' || fc.id === '';
    const providerData: JsonObject = {};
    if (signature !== undefined) providerData.thoughtSignature = signature;
    if (synthetic) providerData.syntheticId = true;
    return {
      type: 'tool-call',
      id: synthetic ? this.generateId() : fromWireId(this.options, fc.id as string),
      name: neutralName(this.options, String(fc.name ?? '')),
      ...(Object.keys(providerData).length > 0 ? { providerData: { gemini: providerData } } : {}),
    };
  }

  /**
   * One piece of a streamed call: a `functionCall` with a `name` (and `willContinue`) opens it,
   * `partialArgs` entries set values by JSON path (a string value continues across pieces while
   * its entry says `willContinue`), and a piece without `willContinue` (or an empty
   * `functionCall`) closes it.
   */
  #partial(
    fc: JsonObject,
    signature: string | undefined,
    events: StreamEvent[] | undefined,
  ): DialectError | undefined {
    if (typeof fc.name === 'string' && fc.name !== '') {
      this.flush(events);
      const call = this.#start(fc, signature);
      const index = this.#calls++;
      this.#pending = {
        index,
        call,
        args: isJsonObject(fc.args) ? { ...fc.args } : {},
        continuing: undefined,
      };
      events?.push({ type: 'tool-call-start', index, id: call.id, name: call.name });
    }
    const pending = this.#pending;
    if (!pending) {
      return providerError(
        DIALECT,
        'streamed function-call arguments arrived before the call they belong to',
      );
    }
    for (const entry of Array.isArray(fc.partialArgs) ? fc.partialArgs : []) {
      if (!isJsonObject(entry) || typeof entry.jsonPath !== 'string') {
        return providerError(DIALECT, 'a streamed function-call argument has no jsonPath');
      }
      const path = parseJsonPath(entry.jsonPath);
      if (!path)
        return providerError(DIALECT, 'a streamed function-call argument has an unsupported jsonPath');
      const value = partialValue(entry);
      if (value === undefined) continue;
      if (typeof value === 'string' && pending.continuing === entry.jsonPath) {
        const current = getPath(pending.args, path);
        setPath(pending.args, path, (typeof current === 'string' ? current : '') + value);
      } else if (!setPath(pending.args, path, value)) {
        return providerError(DIALECT, 'a streamed function-call argument path conflicts with an earlier one');
      }
      pending.continuing =
        typeof value === 'string' && entry.willContinue === true ? entry.jsonPath : undefined;
    }
    if (fc.willContinue !== true) this.flush(events);
    return undefined;
  }
}

function partialValue(entry: JsonObject): JsonValue | undefined {
  if (typeof entry.stringValue === 'string') return entry.stringValue;
  if (typeof entry.numberValue === 'number') return entry.numberValue;
  if (typeof entry.boolValue === 'boolean') return entry.boolValue;
  if (entry.nullValue !== undefined) return null;
  if (isJsonObject(entry.structValue)) return entry.structValue;
  if (Array.isArray(entry.listValue)) return entry.listValue;
  return undefined;
}

/** `$.a.b[0]['c']` → `['a', 'b', 0, 'c']`; `undefined` for anything else. */
function parseJsonPath(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const out: (string | number)[] = [];
  const pattern = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  let offset = 1;
  while (offset < path.length) {
    pattern.lastIndex = offset;
    const match = pattern.exec(path);
    if (!match) return undefined;
    if (match[1] !== undefined) out.push(match[1]);
    else if (match[2] !== undefined) out.push(Number(match[2]));
    else out.push((match[3] ?? match[4] ?? '').replace(/\\(.)/g, '$1'));
    offset = pattern.lastIndex;
  }
  return out.length > 0 && out.length <= 64 ? out : undefined;
}

function getPath(root: JsonValue, path: readonly (string | number)[]): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const key of path) {
    if (typeof key === 'number') node = Array.isArray(node) ? node[key] : undefined;
    else node = isJsonObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  }
  return node;
}

/** Sets a value at a path, creating objects and arrays on the way; false when a step is not a container. */
function setPath(root: JsonObject, path: readonly (string | number)[], value: JsonValue): boolean {
  let node: JsonValue = root;
  for (const [position, key] of path.entries()) {
    const last = position === path.length - 1;
    const next = path[position + 1];
    const child: JsonValue = typeof next === 'number' ? [] : {};
    if (typeof key === 'number') {
      if (!Array.isArray(node) || key > node.length + 1024) return false;
      while (node.length < key) node.push(null);
      if (last) node[key] = value;
      else {
        if (node[key] === undefined || node[key] === null) node[key] = child;
        node = node[key]!;
      }
    } else {
      if (!isJsonObject(node)) return false;
      if (last)
        Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
      else {
        if (!Object.hasOwn(node, key) || node[key] === null)
          Object.defineProperty(node, key, {
            value: child,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        node = node[key]!;
      }
    }
    if (!last && typeof node !== 'object') return false;
  }
  return true;
}

/**
 * Parses a Gemini `generateContent` response (the first candidate) into the neutral response:
 * `functionCall` parts become tool calls (an id is generated when Gemini sends none, marked
 * `syntheticId` so it is not sent back), `thoughtSignature`s are kept for replay, thought parts
 * become reasoning. An `error` body or a response without candidates (unless the prompt was
 * blocked, which maps to `content-filter`) is a `PROVIDER_ERROR` value.
 */
export function parseGeminiResponse(
  body: unknown,
  options?: ParseOptions,
): Result<ModelResponse, DialectError> {
  if (!isJsonObject(body))
    return { ok: false, error: providerError(DIALECT, 'the response body is not a JSON object') };
  if (body.error !== undefined) return { ok: false, error: errorFrom(body.error) };
  const reader = new PartReader(options, options?.generateId ?? defaultGenerateId);
  const candidate = Array.isArray(body.candidates) ? body.candidates.find(isJsonObject) : undefined;
  const blocked = isJsonObject(body.promptFeedback) && typeof body.promptFeedback.blockReason === 'string';
  if (!candidate && !blocked)
    return { ok: false, error: providerError(DIALECT, 'the response has no candidates') };
  const content = candidate && isJsonObject(candidate.content) ? candidate.content : {};
  for (const part of Array.isArray(content.parts) ? content.parts : []) {
    if (!isJsonObject(part)) continue;
    const error = reader.read(part, undefined);
    if (error) return { ok: false, error };
  }
  reader.flush(undefined);
  const rawStop =
    candidate && typeof candidate.finishReason === 'string' ? candidate.finishReason : undefined;
  const rawUsage = isJsonObject(body.usageMetadata) ? body.usageMetadata : undefined;
  return {
    ok: true,
    value: makeResponse({
      id: typeof body.responseId === 'string' ? body.responseId : undefined,
      model: typeof body.modelVersion === 'string' ? body.modelVersion : undefined,
      parts: reader.builder.parts,
      stopReason:
        !candidate && blocked ? 'content-filter' : geminiStopReason(rawStop, reader.builder.hasToolCalls()),
      rawStopReason:
        rawStop ?? (blocked ? String((body.promptFeedback as JsonObject).blockReason) : undefined),
      usage: rawUsage ? usageOf(rawUsage) : undefined,
      rawUsage,
    }),
  };
}

class GeminiStreamParser extends StreamParserBase {
  readonly #reader: PartReader;
  #started = false;
  #id: string | undefined;
  #model: string | undefined;
  #stopReason: string | undefined;
  #blockReason: string | undefined;
  #usage: JsonObject | undefined;

  constructor(options?: ParseOptions) {
    super();
    this.#reader = new PartReader(options, options?.generateId ?? defaultGenerateId);
  }

  protected handle(event: { event?: string | undefined; data: string }, events: StreamEvent[]): void {
    const data = parseEventData(event.data);
    if (!data) {
      this.fail(events, providerError(DIALECT, 'a stream chunk is not a JSON object'));
      return;
    }
    if (data.error !== undefined) {
      this.fail(events, errorFrom(data.error));
      return;
    }
    if (!this.#started) {
      this.#started = true;
      this.#id = typeof data.responseId === 'string' ? data.responseId : undefined;
      this.#model = typeof data.modelVersion === 'string' ? data.modelVersion : undefined;
      events.push({
        type: 'response-start',
        ...(this.#id !== undefined ? { id: this.#id } : {}),
        ...(this.#model !== undefined ? { model: this.#model } : {}),
      });
    }
    if (isJsonObject(data.promptFeedback) && typeof data.promptFeedback.blockReason === 'string') {
      this.#blockReason = data.promptFeedback.blockReason;
    }
    const candidate = Array.isArray(data.candidates) ? data.candidates.find(isJsonObject) : undefined;
    if (candidate) {
      const content = isJsonObject(candidate.content) ? candidate.content : {};
      for (const part of Array.isArray(content.parts) ? content.parts : []) {
        if (!isJsonObject(part)) continue;
        const error = this.#reader.read(part, events);
        if (error) {
          this.fail(events, error);
          return;
        }
      }
      if (typeof candidate.finishReason === 'string') this.#stopReason = candidate.finishReason;
    }
    if (isJsonObject(data.usageMetadata) && numberOr(data.usageMetadata.promptTokenCount) !== undefined) {
      this.#usage = data.usageMetadata;
      events.push({ type: 'usage', usage: usageOf(data.usageMetadata) });
    }
  }

  protected handleEnd(events: StreamEvent[]): void {
    if (this.#stopReason === undefined && this.#blockReason === undefined) {
      this.fail(
        events,
        providerError(DIALECT, 'the stream ended without a finishReason', { retryable: true }),
      );
      return;
    }
    this.#reader.flush(events);
    const builder = this.#reader.builder;
    this.finish(events, {
      type: 'finish',
      response: makeResponse({
        id: this.#id,
        model: this.#model,
        parts: builder.parts,
        stopReason:
          this.#stopReason === undefined
            ? 'content-filter'
            : geminiStopReason(this.#stopReason, builder.hasToolCalls()),
        rawStopReason: this.#stopReason ?? this.#blockReason,
        usage: this.#usage ? usageOf(this.#usage) : undefined,
        rawUsage: this.#usage,
      }),
    });
  }
}

/**
 * A parser for `streamGenerateContent?alt=sse` chunks (each a `GenerateContentResponse` with
 * `candidates[].content.parts[]`, `finishReason`, `usageMetadata`, or an `error`). Gemini sends
 * each function call whole, so a call is started, given its arguments and committed within one
 * chunk; parallel calls may span chunks. Gemini has no end-of-stream event: `end()` emits
 * `finish` when a `finishReason` was seen and a retryable `PROVIDER_ERROR` otherwise.
 */
export function createGeminiStreamParser(options?: ParseOptions): StreamParser {
  return new GeminiStreamParser(options);
}

/**
 * Decodes a Gemini request body back into neutral messages: `functionResponse` parts become tool
 * messages (`response.error` marks a failure), `functionCall` parts tool calls. Calls sent without
 * an id get `gemini_call_<n>` and are matched to their responses by name and order.
 */
export function parseGeminiRequest(body: unknown, options?: ParseOptions): { messages: Message[] } {
  const messages: Message[] = [];
  if (!isJsonObject(body)) return { messages };
  const system = isJsonObject(body.systemInstruction) ? body.systemInstruction.parts : undefined;
  if (Array.isArray(system)) {
    const text = system
      .filter(isJsonObject)
      .map((part) => (typeof part.text === 'string' ? part.text : ''))
      .join('\n\n');
    if (text !== '') messages.push({ role: 'system', content: text });
  }
  let counter = 0;
  const pending: { id: string; name: string }[] = [];
  for (const content of Array.isArray(body.contents) ? body.contents : []) {
    if (!isJsonObject(content)) continue;
    const parts = Array.isArray(content.parts) ? content.parts.filter(isJsonObject) : [];
    if (content.role === 'model') {
      const reader = new PartReader(options, () => `gemini_call_${counter++}`);
      for (const part of parts) reader.read(part, undefined);
      reader.flush(undefined);
      for (const part of reader.builder.parts)
        if (part.type === 'tool-call') pending.push({ id: part.id, name: part.name });
      messages.push({ role: 'assistant', content: reader.builder.parts });
      continue;
    }
    const userContent: UserContentPart[] = [];
    for (const part of parts) {
      if (isJsonObject(part.functionResponse)) {
        const fr = part.functionResponse;
        const name = neutralName(options, String(fr.name ?? ''));
        const matchIndex =
          typeof fr.id === 'string'
            ? pending.findIndex((call) => call.id === fromWireId(options, fr.id as string))
            : pending.findIndex((call) => call.name === name);
        const match = matchIndex >= 0 ? pending.splice(matchIndex, 1)[0] : undefined;
        const response = isJsonObject(fr.response) ? fr.response : {};
        const isError = response.error !== undefined && response.output === undefined;
        const value = isError ? response.error : response.output;
        const text =
          typeof value === 'string'
            ? value
            : value === undefined
              ? JSON.stringify(response)
              : JSON.stringify(value);
        const result: ToolResultContentPart[] = text === '' ? [] : [{ type: 'text', text }];
        for (const inner of Array.isArray(fr.parts) ? fr.parts.filter(isJsonObject) : []) {
          if (isJsonObject(inner.inlineData)) {
            result.push({
              type: 'image',
              mimeType: String(inner.inlineData.mimeType ?? ''),
              data: String(inner.inlineData.data ?? ''),
            });
          }
        }
        messages.push({
          role: 'tool',
          toolCallId:
            typeof fr.id === 'string'
              ? fromWireId(options, fr.id)
              : (match?.id ?? `gemini_call_${counter++}`),
          toolName: name,
          isError,
          content: result,
        });
      } else if (typeof part.text === 'string') {
        userContent.push({ type: 'text', text: part.text });
      } else if (isJsonObject(part.inlineData)) {
        userContent.push({
          type: 'image',
          mimeType: String(part.inlineData.mimeType ?? ''),
          data: String(part.inlineData.data ?? ''),
        });
      }
    }
    if (userContent.length > 0) messages.push({ role: 'user', content: userContent });
  }
  return { messages };
}
