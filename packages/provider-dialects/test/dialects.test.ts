// A shared contract suite: every dialect parses its provider's recorded responses and streams
// (test/fixtures/<dialect>/) into the same neutral IR.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compileTools,
  type DialectName,
  decodeToolCall,
  getDialect,
  type ModelResponse,
  type StreamEvent,
  type ToolCallPart,
  type Usage,
} from '../src/index.js';
import { readFixture, readSse, representativeTools, runStream } from './helpers.js';

interface Expectation {
  readonly text: string;
  readonly textUsage: Usage;
  readonly call: { id: string; args: unknown };
  readonly callText?: string;
  readonly parallelText: string;
  readonly parallelIds: readonly [string, string];
  readonly streamUsage: Usage;
  readonly errorCode: string;
  readonly streamErrorCode: string;
  readonly streamErrorRetryable: boolean;
}

const ISSUE_ARGS = { title: 'Build fails', labels: [{ name: 'bug' }], priority: 2 };

const EXPECTATIONS: Readonly<Record<DialectName, Expectation>> = {
  'openai-chat': {
    text: 'The repository has three packages: contracts, builtins and provider-dialects.',
    textUsage: {
      inputTokens: 412,
      outputTokens: 17,
      totalTokens: 429,
      cachedInputTokens: 384,
      reasoningTokens: 0,
    },
    call: { id: 'call_Xk3pQ9vB2mT7rL0sW5yN8dE1', args: { path: 'README.md', offset: null, limit: 40 } },
    parallelText: "I'll read the file and open the issue at the same time.",
    parallelIds: ['call_a1B2c3D4e5F6g7H8i9J0kLmN', 'call_Z9y8X7w6V5u4T3s2R1q0PoNm'],
    streamUsage: {
      inputTokens: 610,
      outputTokens: 58,
      totalTokens: 668,
      cachedInputTokens: 512,
      reasoningTokens: 0,
    },
    errorCode: 'string_above_max_length',
    streamErrorCode: 'server_error',
    streamErrorRetryable: true,
  },
  'openai-responses': {
    text: 'The repository has three packages: contracts, builtins and provider-dialects.',
    textUsage: {
      inputTokens: 402,
      outputTokens: 83,
      totalTokens: 485,
      cachedInputTokens: 256,
      reasoningTokens: 64,
    },
    call: { id: 'call_2FQdm3Br7Qb35YUBSkDR7kue', args: { path: 'README.md', offset: null, limit: 40 } },
    parallelText: 'Reading the file and opening the issue.',
    parallelIds: ['call_a1B2c3D4e5F6g7H8i9J0kLmN', 'call_Z9y8X7w6V5u4T3s2R1q0PoNm'],
    streamUsage: {
      inputTokens: 610,
      outputTokens: 58,
      totalTokens: 668,
      cachedInputTokens: 512,
      reasoningTokens: 0,
    },
    errorCode: 'invalid_function_parameters',
    streamErrorCode: 'insufficient_quota',
    streamErrorRetryable: false,
  },
  anthropic: {
    text: 'The repository has three packages: contracts, builtins and provider-dialects.',
    textUsage: {
      inputTokens: 412,
      outputTokens: 19,
      totalTokens: 431,
      cachedInputTokens: 384,
      cacheWriteInputTokens: 0,
    },
    call: { id: 'toolu_01A09q90qw90lq917835lq9', args: { path: 'README.md', limit: 40 } },
    callText: "I'll read the README first.",
    parallelText: 'Reading the file and opening the issue.',
    parallelIds: ['toolu_01Kp7Qw3Rt5Yu8Io0Pa2Sd4F', 'toolu_01Zx9Cv8Bn7Mm6Ll5Kk4Jj3H'],
    streamUsage: {
      inputTokens: 610,
      outputTokens: 112,
      totalTokens: 722,
      cachedInputTokens: 512,
      cacheWriteInputTokens: 0,
    },
    errorCode: 'invalid_request_error',
    streamErrorCode: 'overloaded_error',
    streamErrorRetryable: true,
  },
  gemini: {
    text: 'The repository has three packages: contracts, builtins and provider-dialects.',
    textUsage: {
      inputTokens: 412,
      outputTokens: 61,
      totalTokens: 473,
      cachedInputTokens: 256,
      reasoningTokens: 44,
    },
    call: { id: 'generated-1', args: { path: 'README.md', limit: 40 } },
    parallelText: 'Reading the file and opening the issue.',
    parallelIds: ['fc_7Kq2', 'fc_7Kq3'],
    streamUsage: { inputTokens: 610, outputTokens: 58, totalTokens: 668 },
    errorCode: 'INVALID_ARGUMENT',
    streamErrorCode: 'UNAVAILABLE',
    streamErrorRetryable: true,
  },
};

function expectOk(result: ReturnType<ReturnType<typeof getDialect>['parseResponse']>): ModelResponse {
  if (!result.ok) assert.fail(`expected a response, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

function textOf(response: ModelResponse): string {
  return response.message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function callsOf(response: ModelResponse): ToolCallPart[] {
  return response.message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
}

function finishOf(events: readonly StreamEvent[]): ModelResponse {
  const finishes = events.filter((event) => event.type === 'finish');
  assert.equal(finishes.length, 1, 'exactly one finish event');
  assert.equal(events.at(-1)?.type, 'finish', 'finish is the last event');
  return (finishes[0] as Extract<StreamEvent, { type: 'finish' }>).response;
}

for (const dialectName of ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const) {
  const dialect = getDialect(dialectName);
  const expect = EXPECTATIONS[dialectName];
  const tools = compileTools(representativeTools(), {
    dialect: dialectName,
    ...(dialectName === 'gemini' ? { geminiSchema: 'openapi' as const } : { strict: ['read_file'] }),
  });
  let generated = 0;
  const parseOptions = { tools, generateId: () => `generated-${++generated}` };

  describe(`${dialectName}: parseResponse`, () => {
    it('parses a plain text response with usage and stop reason', () => {
      const response = expectOk(dialect.parseResponse(readFixture(dialectName, 'text.json'), parseOptions));
      assert.equal(textOf(response), expect.text);
      assert.equal(response.stopReason, 'stop');
      assert.deepEqual(response.usage, expect.textUsage);
      assert.equal(callsOf(response).length, 0);
    });

    it('parses one tool call with its id, name and arguments', () => {
      generated = 0;
      const response = expectOk(
        dialect.parseResponse(readFixture(dialectName, 'tool-call.json'), parseOptions),
      );
      const [call, ...rest] = callsOf(response);
      assert.equal(rest.length, 0);
      assert.equal(call?.id, expect.call.id);
      assert.equal(call?.name, 'read_file');
      assert.deepEqual(JSON.parse(call!.arguments), expect.call.args);
      assert.equal(response.stopReason, 'tool-calls');
      if (expect.callText) assert.equal(textOf(response), expect.callText);
    });

    it('parses parallel tool calls in order and maps wire names back to neutral names', () => {
      const response = expectOk(
        dialect.parseResponse(readFixture(dialectName, 'parallel-tool-calls.json'), parseOptions),
      );
      assert.equal(textOf(response), expect.parallelText);
      const calls = callsOf(response);
      assert.deepEqual(
        calls.map((call) => [call.id, call.name]),
        [
          [expect.parallelIds[0], 'read_file'],
          [expect.parallelIds[1], 'github.create_issue'],
        ],
      );
      const decoded = decodeToolCall(calls[1]!, tools);
      assert.equal(decoded.known, true);
      assert.equal(decoded.wireName, 'github_create_issue');
      assert.deepEqual(decoded.arguments, ISSUE_ARGS);
    });

    it('returns a PROVIDER_ERROR value for an error body', () => {
      const result = dialect.parseResponse(readFixture(dialectName, 'error.json'), parseOptions);
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.equal(result.error.code, 'PROVIDER_ERROR');
      assert.equal(result.error.details.providerCode, expect.errorCode);
      assert.equal(result.error.details.dialect, dialectName);
      assert.equal(result.error.details.retryable, false);
    });

    it('returns a PROVIDER_ERROR value for a body that is not a response', () => {
      for (const body of [null, 'text', [], { unexpected: true }]) {
        const result = dialect.parseResponse(body, parseOptions);
        assert.equal(result.ok, false);
        if (!result.ok) assert.equal(result.error.code, 'PROVIDER_ERROR');
      }
    });
  });

  describe(`${dialectName}: createStreamParser`, () => {
    it('streams text deltas that add up to the final text', () => {
      const events = runStream(
        dialect.createStreamParser(parseOptions),
        readSse(dialectName, 'stream-text.sse'),
      );
      const deltas = events.filter((event) => event.type === 'text-delta').map((event) => event.text);
      assert.ok(deltas.length >= 2, 'text arrives in more than one delta');
      const response = finishOf(events);
      assert.equal(deltas.join(''), 'Three packages.');
      assert.equal(textOf(response), 'Three packages.');
      assert.equal(response.stopReason, 'stop');
      assert.equal(events[0]?.type, 'response-start');
    });

    it('assembles parallel tool calls from argument deltas split across chunks', () => {
      const events = runStream(
        dialect.createStreamParser(parseOptions),
        readSse(dialectName, 'stream-tool-calls.sse'),
      );
      const starts = events.filter((event) => event.type === 'tool-call-start');
      const committed = events.filter(
        (event): event is Extract<StreamEvent, { type: 'tool-call' }> => event.type === 'tool-call',
      );
      assert.deepEqual(
        starts.map((event) => event.type === 'tool-call-start' && [event.index, event.name]),
        [
          [0, 'read_file'],
          [1, 'github.create_issue'],
        ],
      );
      assert.deepEqual(
        committed.map((event) => [event.index, event.call.id, event.call.name]),
        [
          [0, expect.parallelIds[0], 'read_file'],
          [1, expect.parallelIds[1], 'github.create_issue'],
        ],
      );
      for (const event of committed) {
        const deltas = events
          .filter((item) => item.type === 'tool-call-delta' && item.index === event.index)
          .map((item) => (item.type === 'tool-call-delta' ? item.argumentsDelta : ''));
        assert.equal(deltas.join(''), event.call.arguments, 'the deltas add up to the committed arguments');
        if (dialectName !== 'gemini') assert.ok(deltas.length >= 2, 'arguments arrive split across chunks');
      }
      assert.deepEqual(JSON.parse(committed[0]!.call.arguments), { path: 'package.json' });
      assert.deepEqual(decodeToolCall(committed[1]!.call, tools).arguments, ISSUE_ARGS);
      const response = finishOf(events);
      assert.equal(response.stopReason, 'tool-calls');
      assert.equal(
        textOf(response),
        dialectName.startsWith('openai') ? '' : 'Reading the file and opening the issue.',
      );
      assert.deepEqual(
        callsOf(response),
        committed.map((event) => event.call),
      );
      assert.deepEqual(response.usage, expect.streamUsage);
    });

    it('gives the same result whatever the network chunk size', () => {
      const results = [1, 13, 4096].map((size) => {
        generated = 0;
        const events = runStream(
          dialect.createStreamParser(parseOptions),
          readSse(dialectName, 'stream-tool-calls.sse', size),
        );
        return finishOf(events);
      });
      assert.deepEqual(results[0], results[1]);
      assert.deepEqual(results[1], results[2]);
    });

    it('ends with a PROVIDER_ERROR event on an error event and ignores later input', () => {
      const parser = dialect.createStreamParser(parseOptions);
      const events = runStream(parser, readSse(dialectName, 'stream-error.sse'));
      const errors = events.filter((event) => event.type === 'error');
      assert.equal(errors.length, 1);
      assert.equal(events.at(-1)?.type, 'error');
      assert.ok(
        events.some((event) => event.type === 'text-delta'),
        'text before the error is still delivered',
      );
      const error = (errors[0] as Extract<StreamEvent, { type: 'error' }>).error;
      assert.equal(error.code, 'PROVIDER_ERROR');
      assert.equal(error.details.providerCode, expect.streamErrorCode);
      assert.equal(error.details.retryable, expect.streamErrorRetryable);
      assert.equal(parser.done, true);
      assert.deepEqual(parser.push({ data: '{}' }), []);
    });

    it('reports a stream that ends before completion as a retryable PROVIDER_ERROR', () => {
      const events = readSse(dialectName, 'stream-tool-calls.sse');
      const truncated = runStream(
        dialect.createStreamParser(parseOptions),
        events.slice(0, Math.ceil(events.length / 2)),
      );
      const last = truncated.at(-1);
      assert.equal(last?.type, 'error');
      if (last?.type === 'error') {
        assert.equal(last.error.code, 'PROVIDER_ERROR');
        assert.equal(last.error.details.retryable, true);
      }
      assert.ok(!truncated.some((event) => event.type === 'finish'));
    });

    it('reports data that is not JSON as a PROVIDER_ERROR event', () => {
      const parser = dialect.createStreamParser(parseOptions);
      const events = parser.push({ data: 'not json' });
      assert.equal(events.at(-1)?.type, 'error');
    });
  });
}
