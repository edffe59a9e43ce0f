import { randomBytes } from 'node:crypto';
import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { isJsonObject, own, recordOf, tryParseJson } from './json-utils.js';
import type { DialectError } from './dialect-error.js';
import type {
  AssistantContentPart,
  DialectName,
  Message,
  ModelResponse,
  ReasoningPart,
  StopReason,
  StreamEvent,
  ToolCallPart,
  ToolMessage,
  Usage,
} from './ir.js';
import { fromWireName, normalizeToolCallId, toWireName } from './names.js';
import type { BuildRequestOptions, ParseOptions, RequestReportEntry } from './request.js';

/** Maps neutral tool-call ids to the dialect's rules and remembers the changes. */
export class IdMapper {
  readonly #changed = new Map<string, string>();
  constructor(readonly dialect: DialectName) {}

  toWire(id: string): string {
    const wire = normalizeToolCallId(id, this.dialect);
    if (wire !== id) this.#changed.set(wire, id);
    return wire;
  }

  /** Wire id → neutral id for the ids that changed. */
  record(): Record<string, string> {
    return recordOf([...this.#changed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

/** Collects request report entries. */
export class RequestReporter {
  readonly entries: RequestReportEntry[] = [];
  add(message: number, action: RequestReportEntry['action'], reason: string): void {
    this.entries.push({ message, action, reason });
  }
}

/** The neutral id of a wire id. */
export function fromWireId(options: ParseOptions | undefined, id: string): string {
  return (options?.toolCallIds && own(options.toolCallIds, id)) ?? id;
}

/** The neutral name of a wire tool name. */
export function neutralName(options: ParseOptions | undefined, name: string): string {
  return fromWireName(options?.tools?.nameMap, name);
}

/** The wire name of a neutral tool name for this request. */
export function wireName(options: BuildRequestOptions, name: string): string {
  return toWireName(options.tools?.nameMap, name);
}

/** A default id for calls that arrive without one. */
export function defaultGenerateId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/** System messages joined with a blank line (one provider slot). */
export function joinedSystem(messages: readonly Message[]): string | undefined {
  const texts = messages.filter((message) => message.role === 'system').map((message) => message.content);
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

/** Whether the conversation already contains tool calls or tool results. */
export function hasToolTraffic(messages: readonly Message[]): boolean {
  return messages.some(
    (message) =>
      message.role === 'tool' ||
      (message.role === 'assistant' && message.content.some((part) => part.type === 'tool-call')),
  );
}

/**
 * Whether tools go into the request: there are compiled tools, and either the choice is not
 * `none` or the history holds tool traffic (providers reject tool blocks without tool
 * definitions), in which case tools stay and the dialect's `none` choice is sent.
 */
export function sendsTools(options: BuildRequestOptions): boolean {
  if (!options.tools || options.tools.tools.length === 0) return false;
  if (options.toolChoice === 'none') return hasToolTraffic(options.messages);
  return true;
}

/** A `data:` URL. */
export function dataUrl(mimeType: string, data: string): string {
  return `data:${mimeType};base64,${data}`;
}

/** Splits a base64 `data:` URL. */
export function parseDataUrl(url: string): { mimeType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mimeType: match[1]!, data: match[2]! } : undefined;
}

/** Arguments text as an object, or `undefined` when it is not a JSON object (empty text is `{}`). */
export function argumentsObject(text: string): JsonObject | undefined {
  if (text.trim() === '') return {};
  const parsed = tryParseJson(text);
  return isJsonObject(parsed) ? parsed : undefined;
}

/** The text parts of a tool result joined with newlines. */
export function toolResultText(message: ToolMessage): string {
  return message.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** A number or undefined. */
export function numberOr(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Builds a usage record from raw numbers. */
export function makeUsage(values: {
  input: number;
  output: number;
  total?: number | undefined;
  cached?: number | undefined;
  cacheWrite?: number | undefined;
  reasoning?: number | undefined;
}): Usage {
  const usage: {
    inputTokens: number;
    outputTokens: number;
    totalTokens: number;
    cachedInputTokens?: number;
    cacheWriteInputTokens?: number;
    reasoningTokens?: number;
  } = {
    inputTokens: values.input,
    outputTokens: values.output,
    totalTokens: values.total ?? values.input + values.output,
  };
  if (values.cached !== undefined) usage.cachedInputTokens = values.cached;
  if (values.cacheWrite !== undefined) usage.cacheWriteInputTokens = values.cacheWrite;
  if (values.reasoning !== undefined) usage.reasoningTokens = values.reasoning;
  return usage;
}

/**
 * Assembles an assistant message part by part, as responses and streams arrive: consecutive text
 * (and reasoning) deltas join one part; tool calls keep their slot in order.
 */
export class MessageBuilder {
  readonly parts: AssistantContentPart[] = [];
  #boundary = false;

  /**
   * Text deltas join the last text part when they carry the same provider data (none, or equal
   * data such as one Responses message's `phase`) and no {@link MessageBuilder.boundary} came
   * between them.
   */
  text(delta: string, providerData?: JsonObject, dialect?: DialectName): void {
    const last = this.parts.at(-1);
    const data = providerData && dialect ? { [dialect]: providerData } : undefined;
    if (!this.#boundary && last?.type === 'text' && sameJson(last.providerData, data)) {
      this.parts[this.parts.length - 1] = data
        ? { type: 'text', text: last.text + delta, providerData: data }
        : { type: 'text', text: last.text + delta };
    } else if (delta !== '' || data !== undefined) {
      this.parts.push(
        data ? { type: 'text', text: delta, providerData: data } : { type: 'text', text: delta },
      );
      this.#boundary = false;
    }
  }

  /** The next text starts a new part (a new message of the provider's: they are not run together). */
  boundary(): void {
    if (this.parts.at(-1)?.type === 'text') this.#boundary = true;
  }

  /**
   * Gives the last part, when it is a text part without provider data, this provider data (a
   * Gemini thought signature that arrives on a later empty text part belongs to the text before
   * it). Returns whether it did.
   */
  annotateLastText(providerData: JsonObject, dialect: DialectName): boolean {
    const last = this.parts.at(-1);
    if (last?.type !== 'text' || last.providerData !== undefined || last.text === '') return false;
    this.parts[this.parts.length - 1] = {
      type: 'text',
      text: last.text,
      providerData: { [dialect]: providerData },
    };
    return true;
  }

  reasoning(delta: string, dialect: DialectName, raw?: JsonObject): void {
    const last = this.parts.at(-1);
    if (raw === undefined && last?.type === 'reasoning' && last.providerData === undefined) {
      this.parts[this.parts.length - 1] = { type: 'reasoning', text: last.text + delta };
      return;
    }
    const part: ReasoningPart =
      raw === undefined
        ? { type: 'reasoning', text: delta }
        : { type: 'reasoning', text: delta, providerData: { [dialect]: raw } };
    this.parts.push(part);
  }

  /** Replaces the last reasoning part (when the complete item arrives after its deltas). */
  replaceLastReasoning(part: ReasoningPart): void {
    const index = this.parts.findLastIndex((item) => item.type === 'reasoning');
    if (index >= 0 && index === this.parts.length - 1) this.parts[index] = part;
    else this.parts.push(part);
  }

  toolCall(call: ToolCallPart): void {
    this.parts.push(call);
  }

  provider(dialect: DialectName, value: JsonObject): void {
    this.parts.push({ type: 'provider', dialect, value });
  }

  hasToolCalls(): boolean {
    return this.parts.some((part) => part.type === 'tool-call');
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));
}

/** A complete response from its pieces. */
export function makeResponse(values: {
  id?: string | undefined;
  model?: string | undefined;
  parts: readonly AssistantContentPart[];
  stopReason: StopReason;
  rawStopReason?: string | undefined;
  usage?: Usage | undefined;
  rawUsage?: JsonObject | undefined;
}): ModelResponse {
  const response: {
    id?: string;
    model?: string;
    message: ModelResponse['message'];
    stopReason: StopReason;
    rawStopReason?: string;
    usage?: Usage;
    rawUsage?: JsonObject;
  } = {
    message: { role: 'assistant', content: values.parts },
    stopReason: values.stopReason,
  };
  if (values.id !== undefined) response.id = values.id;
  if (values.model !== undefined) response.model = values.model;
  if (values.rawStopReason !== undefined) response.rawStopReason = values.rawStopReason;
  if (values.usage !== undefined) response.usage = values.usage;
  if (values.rawUsage !== undefined) response.rawUsage = values.rawUsage;
  return response;
}

/** The state every stream parser shares: done/failed flags and the error event. */
export abstract class StreamParserBase {
  #finished = false;

  get done(): boolean {
    return this.#finished;
  }

  protected finish(events: StreamEvent[], event: StreamEvent): void {
    if (this.#finished) return;
    this.#finished = true;
    events.push(event);
  }

  protected fail(events: StreamEvent[], error: DialectError): void {
    this.finish(events, { type: 'error', error });
  }

  /** Feeds one server-sent event; returns the neutral events it produced. */
  push(event: { readonly event?: string | undefined; readonly data: string }): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (this.#finished) return events;
    this.handle(event, events);
    return events;
  }

  /** Ends the stream: emits `finish`, or an `error` when the provider never completed it. */
  end(): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (this.#finished) return events;
    this.handleEnd(events);
    return events;
  }

  protected abstract handle(
    event: { readonly event?: string | undefined; readonly data: string },
    events: StreamEvent[],
  ): void;
  protected abstract handleEnd(events: StreamEvent[]): void;
}

/** Parses one SSE `data` payload as a JSON object. */
export function parseEventData(data: string): JsonObject | undefined {
  const parsed = tryParseJson(data);
  return isJsonObject(parsed) ? parsed : undefined;
}
