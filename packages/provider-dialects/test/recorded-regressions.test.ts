// Regression tests for the parser bugs the recorded-traffic corpus (test/fixtures/recorded/,
// SOURCES.md there) found: one test per bug, named after it, each on the recording that showed it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { JsonObject } from '@toolhost/contracts';
import {
  type DialectName,
  getDialect,
  type Message,
  type ModelResponse,
  type StreamEvent,
} from '../src/index.js';
import { parseOpenAIChatResponse } from '../src/openai-chat.js';
import {
  buildOpenAIResponsesRequest,
  parseOpenAIResponsesRequest,
  parseOpenAIResponsesResponse,
} from '../src/openai-responses.js';
import { violations } from './authority-validators.js';
import { testPath } from './helpers.js';

const recording = (file: string) => readFileSync(testPath('fixtures', 'recorded', file), 'utf8');
const body = (file: string) => JSON.parse(recording(file)) as JsonObject;

function parsed(dialect: DialectName, file: string): ModelResponse {
  const result = getDialect(dialect).parseResponse(body(file), { generateId: () => 'generated' });
  assert.ok(result.ok, file);
  return result.value;
}

/** Every response a stream recording holds (a new parser after each terminal event). */
function streamed(dialect: DialectName, file: string): { responses: ModelResponse[]; events: StreamEvent[] } {
  const responses: ModelResponse[] = [];
  const events: StreamEvent[] = [];
  let parser = getDialect(dialect).createStreamParser({ generateId: () => 'generated' });
  for (const line of recording(file).split('\n')) {
    if (line.trim() === '') continue;
    if (parser.done) parser = getDialect(dialect).createStreamParser({ generateId: () => 'generated' });
    events.push(...parser.push({ data: line }));
  }
  events.push(...parser.end());
  for (const event of events) {
    assert.notEqual(event.type, 'error', file);
    if (event.type === 'finish') responses.push(event.response);
  }
  return { responses, events };
}

const kinds = (response: ModelResponse) =>
  response.message.content.map((part) =>
    part.type === 'provider' ? `provider:${String(part.value.type)}` : part.type,
  );

describe('recorded-traffic corpus regressions', () => {
  it('Chat streams: an Azure prompt-filter chunk (empty id and model, no choices) no longer gives the response an empty id and model', () => {
    const { responses, events } = streamed('openai-chat', 'openai-chat/azure-model-router.1.chunks.txt');
    assert.equal(responses[0]!.id, 'chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt');
    assert.equal(responses[0]!.model, 'gpt-5-nano-2025-08-07');
    const start = events.find((event) => event.type === 'response-start');
    assert.deepEqual(start, {
      type: 'response-start',
      id: 'chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt',
      model: 'gpt-5-nano-2025-08-07',
    });
    assert.equal(events.filter((event) => event.type === 'response-start').length, 1);
  });

  it('Chat: the `reasoning` field of compatible servers (Groq) is a reasoning part, not dropped, in bodies and streams', () => {
    const response = parsed('openai-chat', 'openai-chat/groq-reasoning.json');
    assert.deepEqual(kinds(response), ['reasoning', 'text']);
    const reasoning = response.message.content[0]!;
    assert.ok(reasoning.type === 'reasoning' && reasoning.text.startsWith('Okay, so the user is asking'));
    // The same field in stream deltas (Groq's stream recording is 287 kB; its deltas have this shape).
    const parser = getDialect('openai-chat').createStreamParser();
    const chunk = (delta: JsonObject, finish: string | null = null) => ({
      data: JSON.stringify({
        id: 'c1',
        model: 'qwen/qwen3-32b',
        choices: [{ index: 0, delta, finish_reason: finish }],
      }),
    });
    const events = [
      ...parser.push(chunk({ role: 'assistant', reasoning: 'Count the r' })),
      ...parser.push(chunk({ reasoning: "'s." })),
      ...parser.push(chunk({ content: 'Three.' })),
      ...parser.push(chunk({}, 'stop')),
      ...parser.end(),
    ];
    assert.deepEqual(
      events.filter((event) => event.type === 'reasoning-delta').map((event) => event.text),
      ['Count the r', "'s."],
    );
    const finish = events.at(-1)!;
    assert.ok(finish.type === 'finish');
    assert.deepEqual(finish.response.message.content, [
      { type: 'reasoning', text: "Count the r's." },
      { type: 'text', text: 'Three.' },
    ]);
  });

  it('OpenAI usage: cache_write_tokens (Responses input_tokens_details, Chat prompt_tokens_details) is cacheWriteInputTokens, not dropped', () => {
    const responses = parsed('openai-responses', 'openai-responses/programmatic-tool-calling.1.json');
    assert.equal(responses.usage?.cacheWriteInputTokens, 0);
    const written = parseOpenAIChatResponse({
      id: 'c1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 2000,
        completion_tokens: 1,
        total_tokens: 2001,
        prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 1920 },
      },
    });
    assert.ok(written.ok);
    assert.equal(written.value.usage?.cacheWriteInputTokens, 1920);
  });

  it('Responses: two output messages (phase commentary, then final_answer) stay two text parts with their phase, and the phase is replayed', () => {
    const body_ = parsed('openai-responses', 'openai-responses/openai-phase.1.json');
    const { responses } = streamed('openai-responses', 'openai-responses/openai-phase.1.chunks.txt');
    for (const response of [body_, responses[0]!]) {
      const texts = response.message.content.filter((part) => part.type === 'text');
      assert.equal(texts.length, 2);
      assert.deepEqual(
        texts.map((part) => part.providerData?.['openai-responses']?.phase),
        ['commentary', 'final_answer'],
      );
    }
    assert.equal((responses[0]!.message.content[0] as { text: string }).text, 'Got it');
    const built = buildOpenAIResponsesRequest({
      model: 'gpt-5.3-codex',
      messages: [{ role: 'user', content: 'AI news?' }, body_.message, { role: 'user', content: 'More.' }],
    });
    const input = built.body.input as JsonObject[];
    assert.deepEqual(
      input.slice(1, 3).map((item) => [item.role, item.phase, typeof item.content]),
      [
        ['assistant', 'commentary', 'string'],
        ['assistant', 'final_answer', 'string'],
      ],
    );
    assert.deepEqual(violations('openai-responses', built.body), []);
    const back = parseOpenAIResponsesRequest(built.body).messages[1]!;
    assert.deepEqual(back, body_.message);
  });

  it('Responses: a shell_call in an OpenAI-hosted container (environment container_reference) is a provider-run item, not a client call with stop reason tool-calls', () => {
    const body_ = parsed('openai-responses', 'openai-responses/openai-shell-skills.1.json');
    const { responses } = streamed('openai-responses', 'openai-responses/openai-shell-skills.1.chunks.txt');
    for (const response of [body_, responses[0]!]) {
      assert.equal(response.stopReason, 'stop');
      assert.deepEqual(kinds(response), [
        'provider:shell_call',
        'provider:shell_call_output',
        'provider:shell_call',
        'provider:shell_call_output',
        'text',
      ]);
    }
    // A local shell_call (environment null or local) is still the client's to run.
    const local = parsed('openai-responses', 'openai-responses/openai-shell-tool.1.json');
    assert.equal(local.stopReason, 'tool-calls');
    assert.deepEqual(kinds(local), ['tool-call']);
    // Replayed, the hosted calls and their outputs go back as they came.
    const built = buildOpenAIResponsesRequest({
      model: 'gpt-5.2',
      messages: [{ role: 'user', content: 'Rescue plan?' }, body_.message],
    });
    const types = (built.body.input as JsonObject[]).map((item) => item.type ?? item.role);
    assert.deepEqual(types, [
      'user',
      'shell_call',
      'shell_call_output',
      'shell_call',
      'shell_call_output',
      'assistant',
    ]);
  });

  it('Responses: a function call made from a program (caller type program) keeps its caller, and the call and its output are replayed with it', () => {
    const response = parsed('openai-responses', 'openai-responses/programmatic-tool-calling.1.json');
    const call = response.message.content.find((part) => part.type === 'tool-call')!;
    assert.ok(call.type === 'tool-call');
    const caller = { type: 'program', caller_id: 'call_O2IvSLQcJ0bwIvJZ2ovGV69M' };
    assert.deepEqual(call.providerData?.['openai-responses']?.caller, caller);
    const { responses } = streamed(
      'openai-responses',
      'openai-responses/programmatic-tool-calling.1.chunks.txt',
    );
    const streamedCall = responses[0]!.message.content.find((part) => part.type === 'tool-call')!;
    assert.deepEqual(
      streamedCall.type === 'tool-call' && streamedCall.providerData?.['openai-responses']?.caller,
      {
        type: 'program',
        caller_id: 'call_voPdoCqf8APY4DMpam3bdmxq',
      },
    );
    const messages: Message[] = [
      { role: 'user', content: 'Is there enough stock?' },
      response.message,
      {
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        isError: false,
        content: [{ type: 'text', text: '{"availableUnits":42}' }],
      },
    ];
    const built = buildOpenAIResponsesRequest({ model: 'gpt-5.6-sol', messages });
    const input = built.body.input as JsonObject[];
    const functionCall = input.find((item) => item.type === 'function_call')!;
    const output = input.find((item) => item.type === 'function_call_output')!;
    assert.deepEqual(functionCall.caller, caller);
    assert.deepEqual(output.caller, caller);
    assert.deepEqual(violations('openai-responses', built.body), []);
    assert.deepEqual(parseOpenAIResponsesRequest(built.body).messages[1], response.message);
  });

  it('Gemini: toolUsePromptTokenCount (the code-execution prompt) is counted in inputTokens, so input and output add up to the total', () => {
    const response = parsed('gemini', 'gemini/google-code-execution-multiple-results.json');
    assert.deepEqual(response.usage, { inputTokens: 23 + 289, outputTokens: 35, totalTokens: 347 });
  });

  it('Gemini streams: a thought signature on a final empty text part belongs to the text before it (one signed text part, as in the body)', () => {
    for (const file of [
      'gemini/google-text.chunks.txt',
      'gemini/issue-18073-empty-text-thought-signature.chunks.txt',
    ]) {
      const { responses } = streamed('gemini', file);
      const parts = responses[0]!.message.content;
      assert.equal(parts.length, 1, file);
      const part = parts[0]!;
      assert.ok(part.type === 'text' && part.text !== '', file);
      assert.equal(typeof part.providerData?.gemini?.thoughtSignature, 'string', file);
    }
    const body_ = parsed('gemini', 'gemini/google-text.json');
    const { responses } = streamed('gemini', 'gemini/google-text.chunks.txt');
    assert.deepEqual(kinds(responses[0]!), kinds(body_));
    // Replayed, the signature rides on the text it belongs to.
    const built = getDialect('gemini').buildRequest({
      model: 'gemini-3-pro-preview',
      messages: [{ role: 'user', content: 'How many r?' }, responses[0]!.message],
    });
    const modelParts = (built.body.contents as JsonObject[])[1]!.parts as JsonObject[];
    assert.equal(modelParts.length, 1);
    assert.equal(typeof modelParts[0]!.text, 'string');
    assert.equal(typeof modelParts[0]!.thoughtSignature, 'string');
  });
  it('Responses: a replayed custom_tool_call no longer carries `status` (its input definition has no such member), and calls made from a program pass their caller to the output', () => {
    const { responses } = streamed(
      'openai-responses',
      'openai-responses/openai-custom-text-tool.1.chunks.txt',
    );
    const call = responses[0]!.message.content.find((part) => part.type === 'tool-call')!;
    assert.ok(call.type === 'tool-call');
    const messages: Message[] = [
      { role: 'user', content: 'Set the page.' },
      responses[0]!.message,
      {
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        isError: false,
        content: [{ type: 'text', text: 'done' }],
      },
    ];
    const built = buildOpenAIResponsesRequest({ model: 'gpt-5.2', messages });
    const item = (built.body.input as JsonObject[]).find((entry) => entry.type === 'custom_tool_call')!;
    assert.equal(item.status, undefined);
    assert.equal(
      item.input,
      '<main><h1>Streaming custom tool input</h1><p>This must arrive progressively.</p></main>',
    );
    assert.deepEqual(violations('openai-responses', built.body), []);
    assert.deepEqual(parseOpenAIResponsesRequest(built.body).messages[1], responses[0]!.message);
    // A shell call a program made: its output goes back with the same caller.
    const caller = { type: 'program', caller_id: 'call_prog' };
    const shell = parseOpenAIResponsesResponse({
      id: 'resp_1',
      status: 'completed',
      output: [
        {
          type: 'shell_call',
          id: 'sh_1',
          call_id: 'call_sh',
          action: { commands: ['ls'] },
          environment: null,
          status: 'completed',
          caller,
        },
      ],
    });
    assert.ok(shell.ok);
    const shellCall = shell.value.message.content[0]!;
    assert.ok(shellCall.type === 'tool-call');
    const again = buildOpenAIResponsesRequest({
      model: 'gpt-5.6-sol',
      messages: [
        { role: 'user', content: 'List.' },
        shell.value.message,
        {
          role: 'tool',
          toolCallId: shellCall.id,
          toolName: shellCall.name,
          isError: false,
          content: [{ type: 'text', text: 'a.txt' }],
        },
      ],
    });
    const output = (again.body.input as JsonObject[]).find((entry) => entry.type === 'shell_call_output')!;
    assert.deepEqual(output.caller, caller);
    assert.deepEqual(violations('openai-responses', again.body), []);
  });

  it('Anthropic: a fallback block is not replayed (the API rejects it: recorded invalid_request_error), and the drop is reported', () => {
    const rejected = getDialect('anthropic').parseResponse(
      body('anthropic/anthropic-fallback-replay-without-beta.error.json'),
    );
    assert.ok(!rejected.ok && /fallback/.test(rejected.error.message));
    const response = parsed('anthropic', 'anthropic/anthropic-fallback.json');
    assert.deepEqual(kinds(response), ['provider:fallback', 'text']);
    const built = getDialect('anthropic').buildRequest({
      model: 'claude-fable-5',
      messages: [
        { role: 'user', content: 'Who invented the printing press?' },
        response.message,
        { role: 'user', content: 'When?' },
      ],
    });
    const assistant = (built.body.messages as JsonObject[])[1]!;
    assert.deepEqual(
      (assistant.content as JsonObject[]).map((block) => block.type),
      ['text'],
    );
    assert.ok(
      built.report.some(
        (entry) => entry.message === 1 && entry.action === 'dropped' && /fallback/.test(entry.reason),
      ),
    );
    assert.deepEqual(violations('anthropic', built.body), []);
  });
});
