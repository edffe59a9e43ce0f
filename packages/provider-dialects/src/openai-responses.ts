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
  wireName,
} from './dialect-common.js';
import { type DialectError, providerError } from './dialect-error.js';
import type {
  AssistantContentPart,
  ImagePart,
  Message,
  ModelResponse,
  ReasoningPart,
  StopReason,
  StreamEvent,
  ToolCallPart,
  ToolMessage,
  ToolResultContentPart,
  UserContentPart,
  Usage,
} from './ir.js';
import { openAIError } from './openai-chat.js';
import type { BuildRequestOptions, BuiltRequest, ParseOptions, StreamParser } from './request.js';

const DIALECT = 'openai-responses';

/**
 * Builds an OpenAI Responses request: `input` items in order (system and user messages, assistant
 * `output_text` messages, `function_call` items, `function_call_output` items whose `output` is
 * the text or, with images, a list of `input_text` / `input_image` parts), `store: false`.
 * Reasoning items are replayed only when they carry `encrypted_content` (reported otherwise);
 * other providers' items are left out (reported). Throws `DialectError` `CONFIG_INVALID` when the
 * tool choice names a tool that is not in `tools`.
 */
export function buildOpenAIResponsesRequest(options: BuildRequestOptions): BuiltRequest {
  const ids = new IdMapper(DIALECT);
  const reporter = new RequestReporter();
  const input: JsonObject[] = [];
  // Neutral call id → the client-executed item type it answers (custom_tool_call, shell_call, ...).
  const clientCalls = new Map<string, JsonObject>();
  // Neutral call id → the caller of a call made from a program; its output names it too.
  const callers = new Map<string, JsonObject>();
  options.messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        input.push({ role: 'system', content: message.content });
        return;
      case 'user':
        input.push({ role: 'user', content: userContent(message.content) });
        return;
      case 'assistant': {
        let text: string | undefined;
        let phase: string | undefined;
        const flush = () => {
          // An input message with string content (EasyInputMessage): `output_text` parts are only
          // valid inside an output message, which needs the id and status of a stored item. The
          // message's phase goes back with it ("dropping it can degrade performance").
          if (text !== undefined && text !== '')
            input.push(
              phase === undefined
                ? { role: 'assistant', content: text }
                : { role: 'assistant', content: text, phase },
            );
          text = undefined;
          phase = undefined;
        };
        for (const part of message.content) {
          if (part.type === 'text') {
            const partPhase = part.providerData?.[DIALECT]?.phase;
            const next = typeof partPhase === 'string' ? partPhase : undefined;
            if (text !== undefined && next !== phase) flush();
            phase = next;
            text = (text ?? '') + part.text;
            continue;
          }
          flush();
          const clientItem = part.type === 'tool-call' ? clientCallItem(part) : undefined;
          if (part.type === 'tool-call' && clientItem) {
            clientCalls.set(part.id, clientItem);
            input.push(replayedClientItem(clientItem));
          } else if (part.type === 'tool-call') {
            const item: JsonObject = {
              type: 'function_call',
              call_id: ids.toWire(part.id),
              name: wireName(options, part.name),
              arguments: part.arguments,
            };
            const replay = part.providerData?.[DIALECT];
            if (isJsonObject(replay?.caller)) {
              item.caller = replay.caller;
              callers.set(part.id, replay.caller);
            }
            if (typeof replay?.namespace === 'string') item.namespace = replay.namespace;
            input.push(item);
          } else if (part.type === 'reasoning') {
            const raw = part.providerData?.[DIALECT];
            if (raw && typeof raw.encrypted_content === 'string') input.push(raw);
            else
              reporter.add(
                index,
                'dropped',
                'reasoning without encrypted_content cannot be replayed with store: false',
              );
          } else if (part.dialect === DIALECT) {
            input.push(part.value);
          } else {
            reporter.add(index, 'dropped', `a ${part.dialect} item cannot be replayed to Responses`);
          }
        }
        flush();
        return;
      }
      case 'tool': {
        const clientItem = clientCalls.get(message.toolCallId);
        if (clientItem) {
          input.push(clientOutputItem(message, clientItem, index, reporter));
          return;
        }
        const output = toolOutputItem(message, ids);
        const caller = callers.get(message.toolCallId);
        input.push(caller ? { ...output, caller } : output);
        if (message.isError) {
          reporter.add(
            index,
            'dropped',
            'Responses has no error flag for function_call_output; the output text states the failure',
          );
        }
        return;
      }
    }
  });

  const body: JsonObject = { model: options.model, input };
  if (sendsTools(options)) {
    body.tools = [...options.tools!.tools];
    const choice = options.toolChoice ?? 'auto';
    body.tool_choice =
      typeof choice === 'string' ? choice : { type: 'function', name: namedChoice(options, choice.name) };
    if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
  }
  if (options.maxOutputTokens !== undefined) body.max_output_tokens = options.maxOutputTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  body.store = false;
  if (options.stream) {
    body.stream = true;
    body.stream_options = { include_obfuscation: false };
  }
  if (options.extra) Object.assign(body, options.extra);
  return { path: '/responses', body, toolCallIds: ids.record(), report: reporter.entries };
}

/** An `input_image` part; the definition requires `detail`, and `auto` lets the model choose. */
function inputImage(part: ImagePart): JsonObject {
  return { type: 'input_image', detail: 'auto', image_url: dataUrl(part.mimeType, part.data) };
}

function userContent(content: string | readonly UserContentPart[]): JsonValue {
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type === 'text' ? { type: 'input_text', text: part.text } : inputImage(part),
  );
}

/**
 * The item types of tools the Responses API asks the client to execute (besides
 * `function_call`), with the neutral name their calls get and the field that holds the input.
 */
const CLIENT_CALLS: Readonly<
  Record<string, { readonly name?: string; readonly input: string; readonly replayed: readonly string[] }>
> = {
  // `replayed`: the members the item's input definition has (the output item carries others,
  // such as `status` on a custom tool call, which an input item must not).
  custom_tool_call: {
    input: 'input',
    replayed: ['type', 'id', 'call_id', 'name', 'input', 'caller', 'namespace', 'async'],
  },
  local_shell_call: {
    name: 'local_shell',
    input: 'action',
    replayed: ['type', 'id', 'call_id', 'action', 'status'],
  },
  shell_call: {
    name: 'shell',
    input: 'action',
    replayed: ['type', 'id', 'call_id', 'action', 'caller', 'environment', 'status'],
  },
  apply_patch_call: {
    name: 'apply_patch',
    input: 'operation',
    replayed: ['type', 'id', 'call_id', 'operation', 'caller', 'status'],
  },
  tool_search_call: {
    name: 'tool_search',
    input: 'arguments',
    replayed: ['type', 'id', 'call_id', 'arguments', 'execution', 'status'],
  },
};

/** A client-executed call item as an input item: the members its input definition has. */
function replayedClientItem(item: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of CLIENT_CALLS[String(item.type)]!.replayed) {
    const value = item[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

/** Whether an output item is a call the client must execute (a client `tool_search_call` only). */
function isClientCall(item: JsonObject): boolean {
  if (typeof item.type !== 'string' || !Object.hasOwn(CLIENT_CALLS, item.type)) return false;
  if (item.type === 'tool_search_call') return item.execution === 'client';
  // A shell call in an OpenAI-hosted container (`environment: { type: "container_reference" }`)
  // ran on the provider's side; only a local (or unset) environment is the client's to run.
  if (item.type === 'shell_call') {
    const environment = item.environment;
    return (
      environment === undefined ||
      environment === null ||
      (isJsonObject(environment) && environment.type === 'local')
    );
  }
  return true;
}

/** The item a client-executed call was parsed from, kept in its `providerData` for replay. */
function clientCallItem(part: ToolCallPart): JsonObject | undefined {
  const item = part.providerData?.[DIALECT]?.item;
  return isJsonObject(item) && isClientCall(item) ? item : undefined;
}

/** The output item that answers a client-executed call, in the form its type requires. */
function clientOutputItem(
  message: ToolMessage,
  call: JsonObject,
  index: number,
  reporter: RequestReporter,
): JsonObject {
  const output = clientOutputOf(message, call, index, reporter);
  // The output of a call made from a program names the same caller (local shell and tool search
  // outputs have no caller member).
  if (isJsonObject(call.caller) && OUTPUTS_WITH_CALLER.has(String(output.type))) output.caller = call.caller;
  return output;
}

const OUTPUTS_WITH_CALLER: ReadonlySet<string> = new Set([
  'shell_call_output',
  'apply_patch_call_output',
  'custom_tool_call_output',
]);

function clientOutputOf(
  message: ToolMessage,
  call: JsonObject,
  index: number,
  reporter: RequestReporter,
): JsonObject {
  const text = message.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
  const callId = String(call.call_id ?? call.id ?? '');
  switch (call.type) {
    case 'local_shell_call':
      return { type: 'local_shell_call_output', id: callId, output: text };
    case 'shell_call':
      return {
        type: 'shell_call_output',
        call_id: callId,
        output: [
          {
            stdout: message.isError ? '' : text,
            stderr: message.isError ? text : '',
            outcome: { type: 'exit', exit_code: message.isError ? 1 : 0 },
          },
        ],
      };
    case 'apply_patch_call':
      return {
        type: 'apply_patch_call_output',
        call_id: callId,
        status: message.isError ? 'failed' : 'completed',
        output: text,
      };
    case 'tool_search_call': {
      let tools: JsonValue = [];
      try {
        const parsed = JSON.parse(text) as JsonValue;
        if (Array.isArray(parsed)) tools = parsed;
        else
          reporter.add(
            index,
            'dropped',
            'a client tool_search result that is not a JSON array of tools was sent as no tools',
          );
      } catch {
        reporter.add(
          index,
          'dropped',
          'a client tool_search result that is not a JSON array of tools was sent as no tools',
        );
      }
      return { type: 'tool_search_output', call_id: callId, execution: 'client', tools };
    }
    default: {
      const hasImages = message.content.some((part) => part.type === 'image');
      return {
        type: 'custom_tool_call_output',
        call_id: callId,
        output: hasImages
          ? message.content.map((part) =>
              part.type === 'text' ? { type: 'input_text', text: part.text } : inputImage(part),
            )
          : text,
      };
    }
  }
}

function toolOutputItem(message: ToolMessage, ids: IdMapper): JsonObject {
  const hasImages = message.content.some((part) => part.type === 'image');
  const output: JsonValue = hasImages
    ? message.content.map((part) =>
        part.type === 'text' ? { type: 'input_text', text: part.text } : inputImage(part),
      )
    : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return { type: 'function_call_output', call_id: ids.toWire(message.toolCallId), output };
}

/**
 * Encodes one tool result the Responses way: a `function_call_output` item whose `output` is the
 * text, or a list of `input_text` / `input_image` parts when the result has images.
 */
export function encodeOpenAIResponsesToolResult(message: ToolMessage): JsonObject[] {
  return [toolOutputItem(message, new IdMapper(DIALECT))];
}

function usageOf(raw: JsonObject): Usage {
  const inputDetails = isJsonObject(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const outputDetails = isJsonObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  return makeUsage({
    input: numberOr(raw.input_tokens) ?? 0,
    output: numberOr(raw.output_tokens) ?? 0,
    total: numberOr(raw.total_tokens),
    cached: numberOr(inputDetails.cached_tokens),
    cacheWrite: numberOr(inputDetails.cache_write_tokens),
    reasoning: numberOr(outputDetails.reasoning_tokens),
  });
}

function stopReasonOf(
  response: JsonObject,
  hasToolCalls: boolean,
  refusal: boolean,
): { reason: StopReason; raw?: string } {
  const status = typeof response.status === 'string' ? response.status : undefined;
  if (status === 'incomplete') {
    const detail = isJsonObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    const raw = typeof detail === 'string' ? detail : 'incomplete';
    return {
      reason: raw === 'max_output_tokens' ? 'length' : raw === 'content_filter' ? 'content-filter' : 'other',
      raw,
    };
  }
  if (refusal) return { reason: 'refusal', ...(status ? { raw: status } : {}) };
  return {
    reason: hasToolCalls ? 'tool-calls' : status === 'completed' ? 'stop' : 'other',
    ...(status ? { raw: status } : {}),
  };
}

function reasoningOf(item: JsonObject): ReasoningPart {
  const summary = Array.isArray(item.summary) ? item.summary.filter(isJsonObject) : [];
  const text = summary.map((entry) => (typeof entry.text === 'string' ? entry.text : '')).join('\n\n');
  return { type: 'reasoning', text, providerData: { [DIALECT]: item } };
}

function callOf(item: JsonObject, options: ParseOptions | undefined): ToolCallPart {
  const call: ToolCallPart = {
    type: 'tool-call',
    id: fromWireId(options, String(item.call_id ?? item.id ?? '')),
    name: neutralName(options, String(item.name ?? '')),
    arguments: typeof item.arguments === 'string' ? item.arguments : '',
  };
  const replay = callReplayFields(item);
  return replay ? { ...call, providerData: { [DIALECT]: replay } } : call;
}

/**
 * What a `function_call` must carry when it is replayed: the `caller` of a call made from a
 * program (programmatic tool calling; its output names the same caller) and the `namespace` of
 * a function found through tool search.
 */
function callReplayFields(item: JsonObject): JsonObject | undefined {
  const out: JsonObject = {};
  if (isJsonObject(item.caller)) out.caller = item.caller;
  if (typeof item.namespace === 'string' && item.namespace !== '') out.namespace = item.namespace;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The phase (`commentary` / `final_answer`) of an assistant message, which replays must keep. */
function phaseData(item: JsonObject): JsonObject | undefined {
  return typeof item.phase === 'string' ? { phase: item.phase } : undefined;
}

/** Adds one output item to a message; returns whether it was a refusal. */
function addItem(builder: MessageBuilder, item: JsonObject, options: ParseOptions | undefined): boolean {
  let refusal = false;
  switch (item.type) {
    case 'message': {
      // Each output message is its own text part: messages are not run together, and a
      // message's phase goes back with it.
      builder.boundary();
      const phase = phaseData(item);
      for (const part of Array.isArray(item.content) ? item.content.filter(isJsonObject) : []) {
        if (part.type === 'output_text' && typeof part.text === 'string')
          builder.text(part.text, phase, DIALECT);
        else if (part.type === 'refusal' && typeof part.refusal === 'string') {
          builder.text(part.refusal, phase, DIALECT);
          refusal = true;
        }
      }
      return refusal;
    }
    case 'function_call':
      builder.toolCall(callOf(item, options));
      return false;
    case 'reasoning':
      builder.parts.push(reasoningOf(item));
      return false;
    default:
      if (isClientCall(item)) builder.toolCall(clientCallOf(item, options));
      else builder.provider(DIALECT, item);
      return false;
  }
}

/**
 * A call of a client-executed tool (`custom_tool_call`, `local_shell_call`, `shell_call`,
 * `apply_patch_call`, a client `tool_search_call`) as a tool call: the host runs it. The name is
 * the custom tool's name or the tool type; the arguments are the custom input text or the JSON of
 * the action; the item is kept for replay.
 */
function clientCallOf(item: JsonObject, options: ParseOptions | undefined): ToolCallPart {
  const kind = CLIENT_CALLS[String(item.type)]!;
  const input = item[kind.input];
  return {
    type: 'tool-call',
    id: fromWireId(options, String(item.call_id ?? item.id ?? '')),
    name: kind.name ?? neutralName(options, String(item.name ?? '')),
    arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}),
    providerData: { [DIALECT]: { item: replayedClientItem(item) } },
  };
}

/**
 * Parses a Responses API response body into the neutral response: `message` items become text,
 * `function_call` items tool calls (the `call_id` is the id), `reasoning` items reasoning parts,
 * hosted-tool items (`web_search_call`, ...) provider parts. An `error`, a `failed` status or a
 * malformed body is a `PROVIDER_ERROR` value. `incomplete` maps to `length` / `content-filter`.
 */
export function parseOpenAIResponsesResponse(
  body: unknown,
  options?: ParseOptions,
): Result<ModelResponse, DialectError> {
  if (!isJsonObject(body))
    return { ok: false, error: providerError(DIALECT, 'the response body is not a JSON object') };
  if ((body.error !== undefined && body.error !== null) || body.status === 'failed') {
    return { ok: false, error: openAIError(DIALECT, body.error ?? undefined) };
  }
  if (!Array.isArray(body.output))
    return { ok: false, error: providerError(DIALECT, 'the response has no output array') };
  const builder = new MessageBuilder();
  let refusal = false;
  for (const item of body.output) if (isJsonObject(item) && addItem(builder, item, options)) refusal = true;
  const stop = stopReasonOf(body, builder.hasToolCalls(), refusal);
  const rawUsage = isJsonObject(body.usage) ? body.usage : undefined;
  return {
    ok: true,
    value: makeResponse({
      id: typeof body.id === 'string' ? body.id : undefined,
      model: typeof body.model === 'string' ? body.model : undefined,
      parts: builder.parts,
      stopReason: stop.reason,
      rawStopReason: stop.raw,
      usage: rawUsage ? usageOf(rawUsage) : undefined,
      rawUsage,
    }),
  };
}

interface CallState {
  readonly index: number;
  readonly outputIndex: number | undefined;
  readonly itemIds: Set<string>;
  readonly callId: string;
  readonly name: string;
  arguments: string;
  /** The item as last seen (added, then done): its replay fields (caller, namespace). */
  item: JsonObject;
  committed: boolean;
}

/**
 * Items are matched by `output_index` first and by item id second: some gateways (recorded from a
 * real one) give every event of an item a new `item_id`, so an id alone would split one item
 * into several.
 */
class ResponsesStreamParser extends StreamParserBase {
  readonly #options: ParseOptions | undefined;
  readonly #builder = new MessageBuilder();
  readonly #calls: CallState[] = [];
  readonly #textOutputs = new Set<number>();
  readonly #textItems = new Set<string>();
  /** Output message phases by output index and by item id. */
  readonly #phases = new Map<number | string, JsonObject>();
  #callCount = 0;
  #refusal = false;

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
    const type = typeof data.type === 'string' ? data.type : event.event;
    const outputIndex = numberOr(data.output_index);
    switch (type) {
      case 'response.created': {
        const response = isJsonObject(data.response) ? data.response : {};
        events.push({
          type: 'response-start',
          ...(typeof response.id === 'string' ? { id: response.id } : {}),
          ...(typeof response.model === 'string' ? { model: response.model } : {}),
        });
        return;
      }
      case 'response.output_item.added': {
        const item = isJsonObject(data.item) ? data.item : {};
        if (item.type === 'message') {
          this.#builder.boundary();
          const phase = phaseData(item);
          if (phase && outputIndex !== undefined) this.#phases.set(outputIndex, phase);
          if (phase && typeof item.id === 'string') this.#phases.set(item.id, phase);
          return;
        }
        if (item.type !== 'function_call') return;
        const state: CallState = {
          index: this.#callCount++,
          outputIndex,
          itemIds: new Set(typeof item.id === 'string' ? [item.id] : []),
          callId: String(item.call_id ?? item.id ?? ''),
          name: String(item.name ?? ''),
          arguments: typeof item.arguments === 'string' ? item.arguments : '',
          item,
          committed: false,
        };
        this.#calls.push(state);
        events.push({
          type: 'tool-call-start',
          index: state.index,
          id: fromWireId(this.#options, state.callId),
          name: neutralName(this.#options, state.name),
        });
        return;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        if (typeof data.delta !== 'string' || data.delta === '') return;
        if (outputIndex !== undefined) this.#textOutputs.add(outputIndex);
        if (typeof data.item_id === 'string') this.#textItems.add(data.item_id);
        if (type === 'response.refusal.delta') this.#refusal = true;
        const phase =
          (outputIndex !== undefined ? this.#phases.get(outputIndex) : undefined) ??
          (typeof data.item_id === 'string' ? this.#phases.get(data.item_id) : undefined);
        this.#builder.text(data.delta, phase, DIALECT);
        events.push({ type: 'text-delta', text: data.delta });
        return;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        if (typeof data.delta !== 'string' || data.delta === '') return;
        this.#builder.reasoning(data.delta, DIALECT);
        events.push({ type: 'reasoning-delta', text: data.delta });
        return;
      }
      case 'response.function_call_arguments.delta': {
        const state = this.#call(outputIndex, data.item_id);
        if (!state || state.committed || typeof data.delta !== 'string') return;
        state.arguments += data.delta;
        events.push({
          type: 'tool-call-delta',
          index: state.index,
          id: fromWireId(this.#options, state.callId),
          argumentsDelta: data.delta,
        });
        return;
      }
      case 'response.function_call_arguments.done': {
        const state = this.#call(outputIndex, data.item_id);
        if (state && !state.committed && typeof data.arguments === 'string') state.arguments = data.arguments;
        return;
      }
      case 'response.output_item.done': {
        const item = isJsonObject(data.item) ? data.item : {};
        if (item.type === 'function_call') {
          const state = this.#call(outputIndex, item.id);
          if (state) {
            // The complete item wins over the assembled deltas, but never with less.
            if (typeof item.arguments === 'string' && item.arguments !== '') state.arguments = item.arguments;
            state.item = item;
            this.#commit(state, events);
          } else {
            const call = callOf(item, this.#options);
            this.#builder.toolCall(call);
            events.push({ type: 'tool-call', index: this.#callCount++, call });
          }
        } else if (item.type === 'reasoning') {
          this.#builder.replaceLastReasoning(reasoningOf(item));
        } else if (item.type === 'message') {
          const streamed =
            (outputIndex !== undefined && this.#textOutputs.has(outputIndex)) ||
            this.#textItems.has(String(item.id ?? ''));
          if (!streamed && addItem(this.#builder, item, this.#options)) this.#refusal = true;
        } else if (isClientCall(item)) {
          const call = clientCallOf(item, this.#options);
          const index = this.#callCount++;
          this.#builder.toolCall(call);
          events.push(
            { type: 'tool-call-start', index, id: call.id, name: call.name },
            { type: 'tool-call-delta', index, id: call.id, argumentsDelta: call.arguments },
            { type: 'tool-call', index, call },
          );
        } else {
          this.#builder.provider(DIALECT, item);
        }
        return;
      }
      case 'response.completed':
      case 'response.incomplete': {
        const response = isJsonObject(data.response) ? data.response : {};
        for (const state of this.#calls) this.#commit(state, events);
        const stop = stopReasonOf(response, this.#builder.hasToolCalls(), this.#refusal);
        const rawUsage = isJsonObject(response.usage) ? response.usage : undefined;
        if (rawUsage) events.push({ type: 'usage', usage: usageOf(rawUsage) });
        this.finish(events, {
          type: 'finish',
          response: makeResponse({
            id: typeof response.id === 'string' ? response.id : undefined,
            model: typeof response.model === 'string' ? response.model : undefined,
            parts: this.#builder.parts,
            stopReason: stop.reason,
            rawStopReason: stop.raw,
            usage: rawUsage ? usageOf(rawUsage) : undefined,
            rawUsage,
          }),
        });
        return;
      }
      case 'response.failed': {
        const response = isJsonObject(data.response) ? data.response : {};
        this.fail(events, openAIError(DIALECT, response.error ?? undefined));
        return;
      }
      case 'error':
        this.fail(events, openAIError(DIALECT, isJsonObject(data.error) ? data.error : data));
        return;
      default:
        return;
    }
  }

  #call(outputIndex: number | undefined, itemId: JsonValue | undefined): CallState | undefined {
    if (outputIndex !== undefined) {
      const state = this.#calls.find((call) => call.outputIndex === outputIndex);
      if (state) return state;
    }
    if (typeof itemId === 'string') return this.#calls.find((call) => call.itemIds.has(itemId));
    return undefined;
  }

  #commit(state: CallState, events: StreamEvent[]): void {
    if (state.committed) return;
    state.committed = true;
    const replay = callReplayFields(state.item);
    const call: ToolCallPart = {
      type: 'tool-call',
      id: fromWireId(this.#options, state.callId),
      name: neutralName(this.#options, state.name),
      arguments: state.arguments,
      ...(replay ? { providerData: { [DIALECT]: replay } } : {}),
    };
    this.#builder.toolCall(call);
    events.push({ type: 'tool-call', index: state.index, call });
  }

  protected handleEnd(events: StreamEvent[]): void {
    this.fail(
      events,
      providerError(DIALECT, 'the stream ended before response.completed', { retryable: true }),
    );
  }
}

/**
 * A parser for Responses streaming events (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.function_call_arguments.delta` / `.done`,
 * `response.output_item.done`, `response.completed` / `response.incomplete`, `response.failed`,
 * `error`). Calls are committed at their `output_item.done`; `finish` comes at
 * `response.completed` or `response.incomplete`.
 */
export function createOpenAIResponsesStreamParser(options?: ParseOptions): StreamParser {
  return new ResponsesStreamParser(options);
}

/**
 * Decodes a Responses request body back into neutral messages: consecutive assistant-side items
 * (messages, function calls, reasoning, hosted items) form one assistant message;
 * `function_call_output` items become tool messages (`isError: false`: Responses has no flag).
 */
export function parseOpenAIResponsesRequest(body: unknown, options?: ParseOptions): { messages: Message[] } {
  const messages: Message[] = [];
  if (!isJsonObject(body)) return { messages };
  if (typeof body.instructions === 'string' && body.instructions !== '') {
    messages.push({ role: 'system', content: body.instructions });
  }
  const names = new Map<string, string>();
  // Call ids of shell calls that ran in an OpenAI-hosted container: their outputs are provider items.
  const hostedCalls = new Set<string>();
  let assistant: AssistantContentPart[] | undefined;
  const closeAssistant = () => {
    if (assistant) messages.push({ role: 'assistant', content: assistant });
    assistant = undefined;
  };
  const items: JsonValue[] =
    typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : Array.isArray(body.input)
        ? body.input
        : [];
  for (const item of items) {
    if (!isJsonObject(item)) continue;
    if (
      item.role === 'assistant' ||
      item.type === 'function_call' ||
      item.type === 'reasoning' ||
      isHostedItem(item) ||
      (item.type === 'shell_call_output' && hostedCalls.has(String(item.call_id)))
    ) {
      assistant ??= [];
      const builder = new MessageBuilder();
      builder.parts.push(...assistant);
      if (item.type === 'shell_call' && !isClientCall(item) && typeof item.call_id === 'string')
        hostedCalls.add(item.call_id);
      if (item.role === 'assistant' && typeof item.content === 'string') {
        builder.boundary();
        builder.text(item.content, phaseData(item), DIALECT);
      } else addItem(builder, item.role === 'assistant' ? { ...item, type: 'message' } : item, options);
      assistant = builder.parts;
      const last = assistant.at(-1);
      if (last?.type === 'tool-call') names.set(last.id, last.name);
      continue;
    }
    closeAssistant();
    if (item.role === 'system' || item.role === 'developer') {
      messages.push({ role: 'system', content: textOf(item.content) });
    } else if (item.role === 'user') {
      messages.push({
        role: 'user',
        content:
          typeof item.content === 'string' ? item.content : (partsOf(item.content) as UserContentPart[]),
      });
    } else if (typeof item.type === 'string' && OUTPUT_TYPES.has(item.type)) {
      const id = fromWireId(options, String(item.call_id ?? item.id ?? ''));
      const output = item.type === 'shell_call_output' ? shellOutputText(item.output) : item.output;
      const content: ToolResultContentPart[] =
        item.type === 'tool_search_output'
          ? [{ type: 'text', text: JSON.stringify(item.tools ?? []) }]
          : typeof output === 'string'
            ? output === ''
              ? []
              : [{ type: 'text', text: output }]
            : partsOf(output);
      const isError =
        (item.type === 'apply_patch_call_output' && item.status === 'failed') ||
        (item.type === 'shell_call_output' && shellFailed(item.output));
      messages.push({ role: 'tool', toolCallId: id, toolName: names.get(id) ?? '', isError, content });
    }
  }
  closeAssistant();
  return { messages };
}

/** Input items that carry a tool result (the outputs of function and client-executed calls). */
const OUTPUT_TYPES: ReadonlySet<string> = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'shell_call_output',
  'apply_patch_call_output',
  'tool_search_output',
]);

function isHostedItem(item: JsonObject): boolean {
  return (
    typeof item.type === 'string' &&
    item.type !== 'message' &&
    !(OUTPUT_TYPES.has(item.type) && (item.type !== 'tool_search_output' || item.execution === 'client')) &&
    item.role === undefined
  );
}

function shellOutputText(output: JsonValue | undefined): string {
  if (!Array.isArray(output)) return '';
  return output
    .filter(isJsonObject)
    .map((entry) =>
      [entry.stdout, entry.stderr].filter((text) => typeof text === 'string' && text !== '').join('\n'),
    )
    .join('\n');
}

function shellFailed(output: JsonValue | undefined): boolean {
  return (
    Array.isArray(output) &&
    output.some(
      (entry) => isJsonObject(entry) && isJsonObject(entry.outcome) && entry.outcome.exit_code !== 0,
    )
  );
}

function textOf(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content
        .filter(isJsonObject)
        .map((part) => (typeof part.text === 'string' ? part.text : ''))
        .join('')
    : '';
}

function partsOf(content: JsonValue | undefined): ToolResultContentPart[] {
  if (!Array.isArray(content)) return [];
  const parts: ToolResultContentPart[] = [];
  for (const part of content.filter(isJsonObject)) {
    if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') {
      parts.push({ type: 'text', text: part.text });
    } else if (part.type === 'input_image' && typeof part.image_url === 'string') {
      const parsed = parseDataUrl(part.image_url);
      if (parsed) parts.push({ type: 'image', ...parsed } satisfies ImagePart);
    }
  }
  return parts;
}
