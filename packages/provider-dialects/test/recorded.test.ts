// Recorded real provider traffic (test/fixtures/recorded/, SOURCES.md there): every recording
// parses to the neutral outcome written out by hand in expected.json, and the body and the stream
// of one scenario agree.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import type { JsonObject } from '@toolhost/contracts';
import { createParser } from 'eventsource-parser';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import {
  type AssistantContentPart,
  type DialectError,
  type DialectName,
  getDialect,
  type Message,
  type ModelResponse,
  type SseEvent,
  type StreamEvent,
  type Usage,
} from '../src/index.js';
import { violations } from './authority-validators.js';
import { testPath } from './helpers.js';

const root = testPath('fixtures', 'recorded');

/** What a recording must parse to: a response, or a provider error. */
type Outcome =
  | {
      readonly id?: string;
      readonly model?: string;
      readonly stopReason: string;
      readonly rawStopReason?: string;
      /** The kinds of the message parts in order: `text`, `reasoning`, `tool-call`, `provider:<type>`. */
      readonly parts: readonly string[];
      /** The text parts joined. */
      readonly text: string;
      readonly calls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
      readonly usage?: Usage;
    }
  | {
      readonly error: { readonly code: string; readonly providerCode?: string; readonly retryable: boolean };
    };

/** How the body and the stream of one scenario are compared (by default: last stream step, everything). */
interface Pair {
  /** The stream step the body is the counterpart of (default: the last). */
  readonly step?: number;
  /** Aspects that differ between the two recordings because they are two runs, with the reason. */
  readonly skip?: readonly AgreementKey[];
  readonly reason?: string;
}
type AgreementKey = 'stopReason' | 'rawStopReason' | 'parts' | 'callNames' | 'callArguments';
const AGREEMENT_KEYS: readonly AgreementKey[] = [
  'stopReason',
  'rawStopReason',
  'parts',
  'callNames',
  'callArguments',
];

const expected = JSON.parse(readFileSync(`${root}/expected.json`, 'utf8')) as {
  readonly outcomes: Record<string, Outcome | readonly Outcome[]>;
  readonly pairs: Record<string, Pair>;
  /** Responses streams whose deltas the source trimmed (their response.completed is whole), with the reason. */
  readonly completedExceptions: Record<string, string>;
};

const DIALECTS: readonly DialectName[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'];

function partKind(part: AssistantContentPart): string {
  if (part.type !== 'provider') return part.type;
  const value = part.value;
  const kind =
    typeof value.type === 'string'
      ? value.type
      : (Object.keys(value).find((key) => key !== 'thoughtSignature') ?? 'unknown');
  return `provider:${kind}`;
}

function outcomeOf(response: ModelResponse): Outcome {
  const parts = response.message.content;
  return {
    ...(response.id !== undefined ? { id: response.id } : {}),
    ...(response.model !== undefined ? { model: response.model } : {}),
    stopReason: response.stopReason,
    ...(response.rawStopReason !== undefined ? { rawStopReason: response.rawStopReason } : {}),
    parts: parts.map(partKind),
    text: parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
    calls: parts.flatMap((part) =>
      part.type === 'tool-call' ? [{ id: part.id, name: part.name, arguments: part.arguments }] : [],
    ),
    ...(response.usage !== undefined ? { usage: response.usage } : {}),
  };
}

function errorOutcome(error: {
  code: string;
  details?: { providerCode?: unknown; retryable?: unknown } | undefined;
}): Outcome {
  const providerCode = error.details?.providerCode;
  return {
    error: {
      code: error.code,
      ...(typeof providerCode === 'string' ? { providerCode } : {}),
      retryable: error.details?.retryable === true,
    },
  };
}

function dialectOf(file: string): DialectName {
  return file.split('/')[0] as DialectName;
}

/** The SSE events of a stream recording: one `data` payload per line, or raw SSE text (`.sse`). */
function sseEvents(file: string): SseEvent[] {
  const text = readFileSync(`${root}/${file}`, 'utf8');
  if (file.endsWith('.sse')) {
    const events: SseEvent[] = [];
    const parser = createParser({
      onEvent: (event) => events.push({ event: event.event, data: event.data }),
    });
    parser.feed(text);
    parser.reset({ consume: true });
    return events;
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => ({ data: line }));
}

/**
 * Parses a recording. A body gives one outcome; a stream gives one per response it holds (some
 * recordings are several requests' streams one after the other: a stream parser is done at its
 * terminal event, and the events after it are the next request's stream).
 */
function parseRecording(file: string): Outcome[] {
  return parseResults(file).map((result) =>
    result.ok ? outcomeOf(result.value) : errorOutcome(result.error),
  );
}

type ParseResult = { ok: true; value: ModelResponse } | { ok: false; error: DialectError };

function parseResults(file: string): ParseResult[] {
  const dialect = dialectOf(file);
  let n = 0;
  const options = { generateId: () => `generated-${n++}` };
  if (file.endsWith('.json')) {
    const body = JSON.parse(readFileSync(`${root}/${file}`, 'utf8')) as unknown;
    return [getDialect(dialect).parseResponse(body, options)];
  }
  const results: ParseResult[] = [];
  let parser = getDialect(dialect).createStreamParser(options);
  let fed = false;
  const collect = (events: readonly StreamEvent[]) => {
    for (const event of events) {
      if (event.type === 'finish') results.push({ ok: true, value: event.response });
      if (event.type === 'error') results.push({ ok: false, error: event.error });
    }
  };
  for (const event of sseEvents(file)) {
    if (parser.done) {
      if (results.at(-1)?.ok === false) break;
      parser = getDialect(dialect).createStreamParser(options);
      fed = false;
    }
    collect(parser.push(event));
    fed = true;
  }
  if (fed) collect(parser.end());
  return results;
}

function agreementView(outcome: Outcome): Record<AgreementKey, unknown> {
  if ('error' in outcome)
    return {
      stopReason: outcome.error,
      rawStopReason: undefined,
      parts: [],
      callNames: [],
      callArguments: [],
    };
  return {
    stopReason: outcome.stopReason,
    rawStopReason: outcome.rawStopReason,
    parts: outcome.parts,
    callNames: outcome.calls.map((call) => call.name),
    // Arguments as values: a body carries JSON objects, a stream the provider's JSON text.
    callArguments: outcome.calls.map((call) => {
      try {
        return JSON.parse(call.arguments === '' ? '{}' : call.arguments) as unknown;
      } catch {
        return call.arguments;
      }
    }),
  };
}

/**
 * Anthropic blocks that only a beta returns (compaction: context management; MCP connector
 * calls and results): the definition of the API version sent has no such block, the beta that
 * produced them takes them back, so they are replayed and left out of the check.
 */
const ANTHROPIC_BETA_BLOCKS: ReadonlySet<string> = new Set(['compaction', 'mcp_tool_use', 'mcp_tool_result']);

function withoutBetaBlocks(dialect: DialectName, body: JsonObject): JsonObject {
  if (dialect !== 'anthropic' || !Array.isArray(body.messages)) return body;
  return {
    ...body,
    messages: body.messages.map((message) => {
      const { content, ...rest } = message as JsonObject;
      return Array.isArray(content)
        ? {
            ...rest,
            content: content.filter(
              (block) => !ANTHROPIC_BETA_BLOCKS.has(String((block as JsonObject).type)),
            ),
          }
        : message;
    }),
  };
}

/** Recordings the official SDK's stream accumulator does not assemble correctly, and how. */
const SDK_LIMITS: Readonly<Record<string, string>> = {
  'openai-chat/anthropic-fallback-tool-call.sse':
    "openai's ChatCompletionStream throws on a stream whose first tool call has index 1 (a gateway's numbering)",
  'anthropic/anthropic-mcp.1.chunks.txt':
    'the non-beta MessageStream does not assemble the input_json_delta of an mcp_tool_use block (a beta block): its body has input {}',
};

/** The SSE events of a recording split into one list per request (at each terminal event). */
function splitRequests(dialect: DialectName, events: readonly SseEvent[]): SseEvent[][] {
  const out: SseEvent[][] = [[]];
  for (const event of events) {
    out.at(-1)!.push(event);
    const terminal =
      dialect === 'anthropic' ? event.data.includes('"type":"message_stop"') : event.data.trim() === '[DONE]';
    if (terminal) out.push([]);
  }
  return out.filter((request) => request.length > 0);
}

function readable(events: readonly SseEvent[], sse: boolean): ReadableStream<Uint8Array> {
  const text = events
    .filter((event) => event.data.trim() !== '[DONE]')
    .map((event) => (sse ? `data: ${event.data}\n\n` : `${event.data}\n`))
    .join('');
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

/** The response body the official SDK assembles from a stream's events. */
async function assemble(dialect: DialectName, events: readonly SseEvent[]): Promise<unknown> {
  if (dialect === 'anthropic')
    return MessageStream.fromReadableStream(readable(events, false)).finalMessage();
  return ChatCompletionStream.fromReadableStream(readable(events, false)).finalChatCompletion();
}

function sdkView(dialect: DialectName, response: ModelResponse): unknown {
  const parts = response.message.content
    .filter((part) => dialect !== 'openai-chat' || part.type !== 'reasoning')
    .map((part) => {
      if (part.type !== 'tool-call') return part;
      let args: unknown = part.arguments;
      try {
        args = JSON.parse(part.arguments === '' ? '{}' : part.arguments);
      } catch {}
      return { ...part, arguments: args };
    });
  return { ...response, message: { ...response.message, content: parts }, rawUsage: undefined };
}

const files = DIALECTS.flatMap((dialect) =>
  readdirSync(`${root}/${dialect}`)
    .sort()
    .map((file) => `${dialect}/${file}`),
);
const stemOf = (file: string) => file.replace(/\.(json|chunks\.txt|sse)$/, '');

describe('recorded provider traffic', () => {
  it('every recorded fixture has an expected outcome, and every expected outcome a fixture', () => {
    assert.deepEqual([...files].sort(), Object.keys(expected.outcomes).sort());
  });

  it('the corpus covers every dialect with at least 8 recordings', () => {
    for (const dialect of DIALECTS) {
      const count = files.filter((file) => dialectOf(file) === dialect).length;
      assert.ok(count >= 8, `${dialect}: ${count} recordings`);
    }
  });

  for (const file of files) {
    it(`parses ${file} to its expected neutral outcome`, () => {
      const want = expected.outcomes[file]!;
      const got = parseRecording(file);
      assert.deepEqual(got.length === 1 && !Array.isArray(want) ? got[0] : got, want);
    });
  }

  const stems = [...new Set(files.map(stemOf))].filter(
    (stem) =>
      files.includes(`${stem}.json`) &&
      files.some((file) => file !== `${stem}.json` && stemOf(file) === stem),
  );

  it('every pair exception names a scenario recorded in both forms', () => {
    for (const stem of Object.keys(expected.pairs)) assert.ok(stems.includes(stem), stem);
  });

  for (const stem of stems) {
    it(`the body and the stream of ${stem} agree`, () => {
      const pair = expected.pairs[stem] ?? {};
      const streamFile = files.find((file) => file !== `${stem}.json` && stemOf(file) === stem)!;
      const body = agreementView(parseRecording(`${stem}.json`)[0]!);
      const steps = parseRecording(streamFile);
      const stream = agreementView(steps.at(pair.step ?? -1)!);
      const skipped = new Set(pair.skip ?? []);
      assert.ok(skipped.size === 0 || (pair.reason ?? '') !== '', 'a skipped aspect says why');
      for (const key of AGREEMENT_KEYS) {
        if (!skipped.has(key)) assert.deepEqual(stream[key], body[key], `${stem}: ${key}`);
      }
    });
  }

  it('every Responses stream parses like the response its response.completed event carries', () => {
    // The terminal event of a Responses stream holds the complete response object of the same
    // run, which is what the non-streaming endpoint returns: stream and body parsers must agree
    // on it exactly (text, calls with their ids, usage).
    let checked = 0;
    for (const [file, reason] of Object.entries(expected.completedExceptions)) {
      assert.ok(files.includes(file) && reason !== '', file);
    }
    const streams = files.filter(
      (name) =>
        dialectOf(name) === 'openai-responses' &&
        !name.endsWith('.json') &&
        !Object.hasOwn(expected.completedExceptions, name),
    );
    for (const file of streams) {
      const completed = sseEvents(file)
        .map((event) => JSON.parse(event.data) as { type?: string; response?: unknown })
        .filter((event) => event.type === 'response.completed');
      const steps = parseRecording(file);
      for (const [index, event] of completed.entries()) {
        const result = getDialect('openai-responses').parseResponse(event.response, {
          generateId: () => 'unused',
        });
        assert.ok(result.ok, file);
        assert.deepEqual(steps[index], outcomeOf(result.value), `${file} step ${index}`);
        checked += 1;
      }
    }
    assert.ok(checked >= 8, `${checked} completed responses`);
  });
  it("every recorded response, replayed to its provider as history, gives a request the provider's definition accepts", () => {
    let replayed = 0;
    for (const file of files) {
      const dialect = dialectOf(file);
      for (const result of parseResults(file)) {
        if (!result.ok) continue;
        const message = result.value.message;
        const calls = message.content.filter((part) => part.type === 'tool-call');
        const messages: Message[] = [
          { role: 'user', content: 'Go on.' },
          message,
          ...calls.map(
            (call): Message => ({
              role: 'tool',
              toolCallId: call.id,
              toolName: call.name,
              isError: false,
              content: [{ type: 'text', text: 'ok' }],
            }),
          ),
          { role: 'user', content: 'Next.' },
        ];
        const { body } = getDialect(dialect).buildRequest({ model: 'model', messages });
        assert.deepEqual(violations(dialect, withoutBetaBlocks(dialect, body)), [], file);
        replayed += 1;
      }
    }
    assert.ok(replayed >= 100, `${replayed} responses replayed`);
  });
  it("every Anthropic and Chat stream parses like the body the provider's official SDK assembles from it", async () => {
    // @anthropic-ai/sdk's MessageStream and openai's ChatCompletionStream accumulate the same
    // recorded events into a response body (the same run, so everything must agree); that body
    // goes through parseResponse. The OpenAI SDK keeps only the fields OpenAI defines, so the
    // reasoning of compatible servers is compared without; the Anthropic SDK re-serialises tool
    // input, so arguments are compared as values.
    let checked = 0;
    for (const file of files.filter((name) => !name.endsWith('.json'))) {
      const dialect = dialectOf(file);
      if (dialect !== 'anthropic' && dialect !== 'openai-chat') continue;
      const results = parseResults(file);
      const requests = splitRequests(dialect, sseEvents(file));
      if (results.some((result) => !result.ok)) continue;
      assert.equal(requests.length, results.length, file);
      for (const [index, events] of requests.entries()) {
        const limit = Object.hasOwn(SDK_LIMITS, file) ? SDK_LIMITS[file] : undefined;
        let body: unknown;
        try {
          body = await assemble(dialect, events);
        } catch (error) {
          assert.ok(limit, `${file} step ${index}: the SDK failed: ${String(error)}`);
          continue;
        }
        const fromBody = getDialect(dialect).parseResponse(body);
        assert.ok(fromBody.ok, `${file} step ${index}`);
        const ours = results[index]!;
        assert.ok(ours.ok);
        if (limit) {
          // A listed SDK limitation must still show, or the entry is stale.
          assert.notDeepEqual(sdkView(dialect, ours.value), sdkView(dialect, fromBody.value), file);
          continue;
        }
        assert.deepEqual(
          sdkView(dialect, ours.value),
          sdkView(dialect, fromBody.value),
          `${file} step ${index}`,
        );
        checked += 1;
      }
    }
    assert.ok(checked >= 25, `${checked} streams checked`);
  });
});
