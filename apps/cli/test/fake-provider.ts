import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from './helpers.js';

/**
 * A loopback stand-in for a model provider that speaks the provider's real wire format: it parses
 * the request bodies the CLI sends (tool results in each API's own shape) and streams answers as
 * that API streams them (OpenAI Chat chunks ending in `[DONE]`, Responses typed events, Anthropic
 * message/content-block events, Gemini `alt=sse` candidates). Only what leaves the machine is fake.
 */

export type FakeDialect = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';

/** One call the fake model makes. */
export interface FakeCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** One fake model turn: some text, then zero or more (parallel) tool calls. */
export interface FakeTurn {
  readonly text?: string;
  readonly calls?: readonly FakeCall[];
}

/** A tool result as the fake read it back from the request, in the dialect's own terms. */
export interface FakeToolResult {
  readonly id: string | undefined;
  readonly name: string | undefined;
  readonly text: string;
  /** Only Anthropic says so on the wire (`is_error`); `undefined` elsewhere. */
  readonly isError: boolean | undefined;
}

/** What the script sees of one request. */
export interface FakeRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Json;
  /** How many model turns the conversation already holds (0 for the first request). */
  readonly turn: number;
  /** The tool results of the latest turn, in order. */
  readonly results: readonly FakeToolResult[];
  /** The wire names of the tools the request offered. */
  readonly toolNames: readonly string[];
}

/** An HTTP failure to answer with instead of a stream. */
export interface FakeFailure {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

/** Options of {@link startFakeProvider}. */
export interface FakeProviderOptions {
  readonly dialect: FakeDialect;
  /** Decides the next turn. */
  readonly script: (request: FakeRequest) => FakeTurn;
  /** Answers these, in order, to the first requests before streaming anything. */
  readonly failures?: readonly FakeFailure[];
  /** Ends the stream of this turn (0-based) with a provider error event instead of a response. */
  readonly streamErrorAtTurn?: number;
  /** Opens the stream of this turn (0-based) and then holds it open until the client goes away. */
  readonly holdAtTurn?: number;
}

/** A running fake provider. */
export interface FakeProvider {
  /** The base URL to pass as `--base-url`. */
  readonly baseUrl: string;
  /** Every request received, failures included. */
  readonly requests: FakeRequest[];
  close(): Promise<void>;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}

function readRequest(dialect: FakeDialect, body: Json): Pick<FakeRequest, 'turn' | 'results' | 'toolNames'> {
  switch (dialect) {
    case 'openai-chat': {
      const messages: Json[] = body.messages ?? [];
      const lastAssistant = messages.map((message) => message.role).lastIndexOf('assistant');
      return {
        turn: messages.filter((message) => message.role === 'assistant').length,
        results: messages
          .slice(lastAssistant + 1)
          .filter((message) => message.role === 'tool')
          .map((message) => ({
            id: message.tool_call_id,
            name: undefined,
            text: textOf(message.content),
            isError: undefined,
          })),
        toolNames: (body.tools ?? []).map((tool: Json) => tool.function.name),
      };
    }
    case 'openai-responses': {
      const input: Json[] = body.input ?? [];
      const lastCall = input.map((item) => item.type).lastIndexOf('function_call');
      return {
        turn: countResponsesTurns(input),
        results:
          lastCall === -1
            ? []
            : input
                .slice(lastCall)
                .filter((item) => item.type === 'function_call_output')
                .map((item) => ({
                  id: item.call_id,
                  name: undefined,
                  text: textOf(item.output),
                  isError: undefined,
                })),
        toolNames: (body.tools ?? []).map((tool: Json) => tool.name),
      };
    }
    case 'anthropic': {
      const messages: Json[] = body.messages ?? [];
      const last = messages[messages.length - 1];
      const blocks: Json[] = Array.isArray(last?.content) ? last.content : [];
      return {
        turn: messages.filter((message) => message.role === 'assistant').length,
        results: blocks
          .filter((block) => block.type === 'tool_result')
          .map((block) => ({
            id: block.tool_use_id,
            name: undefined,
            text: textOf(block.content),
            isError: block.is_error === true,
          })),
        toolNames: (body.tools ?? []).map((tool: Json) => tool.name),
      };
    }
    case 'gemini': {
      const contents: Json[] = body.contents ?? [];
      const last = contents[contents.length - 1];
      const parts: Json[] = last?.role === 'user' ? (last.parts ?? []) : [];
      return {
        turn: contents.filter((content) => content.role === 'model').length,
        results: parts
          .filter((part) => part.functionResponse)
          .map((part) => ({
            id: part.functionResponse.id,
            name: part.functionResponse.name,
            text: JSON.stringify(part.functionResponse.response),
            isError: undefined,
          })),
        toolNames: (body.tools ?? []).flatMap((tool: Json) =>
          (tool.functionDeclarations ?? []).map((fn: Json) => fn.name),
        ),
      };
    }
  }
}

/** Responses input has no turn marker: a turn is a run of assistant messages and function calls. */
function countResponsesTurns(input: readonly Json[]): number {
  let turns = 0;
  let inTurn = false;
  for (const item of input) {
    const assistant =
      item.type === 'function_call' ||
      (item.type === 'message' && item.role === 'assistant') ||
      (item.role === 'assistant' && item.type === undefined);
    if (assistant && !inTurn) turns += 1;
    inTurn = assistant;
  }
  return turns;
}

function sse(response: ServerResponse, data: unknown, event?: string): void {
  response.write(
    `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
  );
}

/** Splits text into a few deltas, so clients must assemble them. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out;
}

function streamOpenAIChat(response: ServerResponse, turn: FakeTurn, number: number, fail: boolean): void {
  const base = {
    id: `chatcmpl-${number}`,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fake-model',
  };
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse(response, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  chunk({ role: 'assistant', content: '' });
  for (const piece of pieces(turn.text ?? '')) chunk({ content: piece });
  if (fail) {
    sse(response, {
      error: { message: 'The server had an error while processing your request.', type: 'server_error' },
    });
    return;
  }
  (turn.calls ?? []).forEach((call, index) => {
    const args = JSON.stringify(call.arguments);
    chunk({
      tool_calls: [
        {
          index,
          id: `call_${number}_${index}`,
          type: 'function',
          function: { name: call.name, arguments: '' },
        },
      ],
    });
    for (const piece of pieces(args)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, (turn.calls ?? []).length > 0 ? 'tool_calls' : 'stop');
  sse(response, {
    ...base,
    choices: [],
    usage: { prompt_tokens: 100 + number, completion_tokens: 10, total_tokens: 110 + number },
  });
  sse(response, '[DONE]');
}

function streamOpenAIResponses(
  response: ServerResponse,
  turn: FakeTurn,
  number: number,
  fail: boolean,
): void {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    sse(response, { type, sequence_number: sequence++, ...data }, type);
  const id = `resp_${number}`;
  const shell = {
    id,
    object: 'response',
    created_at: 1_700_000_000,
    model: 'fake-model',
    output: [] as unknown[],
  };
  event('response.created', { response: { ...shell, status: 'in_progress' } });
  event('response.in_progress', { response: { ...shell, status: 'in_progress' } });
  const output: unknown[] = [];
  let index = 0;
  if (turn.text) {
    const item = {
      id: `msg_${number}`,
      type: 'message',
      status: 'in_progress',
      role: 'assistant',
      content: [] as unknown[],
    };
    event('response.output_item.added', { output_index: index, item });
    event('response.content_part.added', {
      item_id: item.id,
      output_index: index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    for (const piece of pieces(turn.text)) {
      event('response.output_text.delta', {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        delta: piece,
        logprobs: [],
      });
    }
    event('response.output_text.done', {
      item_id: item.id,
      output_index: index,
      content_index: 0,
      text: turn.text,
      logprobs: [],
    });
    const part = { type: 'output_text', text: turn.text, annotations: [] };
    event('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part });
    const done = { ...item, status: 'completed', content: [part] };
    event('response.output_item.done', { output_index: index, item: done });
    output.push(done);
    index += 1;
  }
  if (fail) {
    event('error', {
      code: 'server_error',
      message: 'The model failed to generate a response.',
      param: null,
    });
    return;
  }
  for (const call of turn.calls ?? []) {
    const args = JSON.stringify(call.arguments);
    const item = {
      id: `fc_${number}_${index}`,
      type: 'function_call',
      status: 'in_progress',
      call_id: `call_${number}_${index}`,
      name: call.name,
      arguments: '',
    };
    event('response.output_item.added', { output_index: index, item });
    for (const piece of pieces(args))
      event('response.function_call_arguments.delta', {
        item_id: item.id,
        output_index: index,
        delta: piece,
      });
    event('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: index,
      arguments: args,
    });
    const done = { ...item, status: 'completed', arguments: args };
    event('response.output_item.done', { output_index: index, item: done });
    output.push(done);
    index += 1;
  }
  event('response.completed', {
    response: {
      ...shell,
      status: 'completed',
      output,
      usage: { input_tokens: 100 + number, output_tokens: 10, total_tokens: 110 + number },
    },
  });
}

function streamAnthropic(response: ServerResponse, turn: FakeTurn, number: number, fail: boolean): void {
  const event = (type: string, data: Record<string, unknown>) => sse(response, { type, ...data }, type);
  event('message_start', {
    message: {
      id: `msg_${number}`,
      type: 'message',
      role: 'assistant',
      model: 'fake-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100 + number, output_tokens: 1 },
    },
  });
  let index = 0;
  if (turn.text) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    event('ping', {});
    for (const piece of pieces(turn.text))
      event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    event('content_block_stop', { index });
    index += 1;
  }
  if (fail) {
    event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
    return;
  }
  for (const call of turn.calls ?? []) {
    event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: `toolu_${number}_${index}`, name: call.name, input: {} },
    });
    for (const piece of pieces(JSON.stringify(call.arguments))) {
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    event('content_block_stop', { index });
    index += 1;
  }
  event('message_delta', {
    delta: { stop_reason: (turn.calls ?? []).length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  event('message_stop', {});
}

function streamGemini(response: ServerResponse, turn: FakeTurn, number: number, fail: boolean): void {
  const usage = { promptTokenCount: 100 + number, candidatesTokenCount: 10, totalTokenCount: 110 + number };
  for (const piece of pieces(turn.text ?? '')) {
    sse(response, {
      candidates: [{ content: { parts: [{ text: piece }], role: 'model' }, index: 0 }],
      usageMetadata: usage,
      modelVersion: 'fake-model',
    });
  }
  if (fail) {
    sse(response, {
      error: {
        code: 503,
        message: 'The model is overloaded. Please try again later.',
        status: 'UNAVAILABLE',
      },
    });
    return;
  }
  // Gemini sends whole calls, several in one candidate when they are parallel, and a finish reason.
  sse(response, {
    candidates: [
      {
        content: {
          parts: (turn.calls ?? []).map((call) => ({
            functionCall: { name: call.name, args: call.arguments },
          })),
          role: 'model',
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: usage,
    modelVersion: 'fake-model',
  });
}

const STREAMERS = {
  'openai-chat': streamOpenAIChat,
  'openai-responses': streamOpenAIResponses,
  anthropic: streamAnthropic,
  gemini: streamGemini,
} as const;

/** Starts a fake provider on 127.0.0.1 (a free port). */
export async function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const requests: FakeRequest[] = [];
  const failures = [...(options.failures ?? [])];
  let streamed = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: Json;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'the body is not JSON' } }));
        return;
      }
      const path = request.url ?? '/';
      const fakeRequest: FakeRequest = {
        path,
        headers: request.headers,
        body,
        ...readRequest(options.dialect, body),
      };
      requests.push(fakeRequest);
      const failure = failures.shift();
      if (failure) {
        response.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
        response.end(JSON.stringify(failure.body));
        return;
      }
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      if (options.holdAtTurn === streamed) {
        // An SSE comment: the stream is open, nothing has been said, and the client must wait.
        response.write(': thinking\n\n');
        streamed += 1;
        return;
      }
      const turn = options.script(fakeRequest);
      STREAMERS[options.dialect](response, turn, streamed, options.streamErrorAtTurn === streamed);
      streamed += 1;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const prefix = options.dialect === 'gemini' ? '/v1beta' : '/v1';
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
