// Regression tests for issue 22 ("Provider dialects held to the providers' own definitions and to
// recorded real traffic"): one test per item of its Why list, named after it. The event shapes
// are those of the recorded traffic in test/fixtures/recorded/ (see its SOURCES.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '@toolhost/contracts';
import { createAnthropicStreamParser, parseAnthropicResponse } from '../src/anthropic.js';
import { createGeminiStreamParser } from '../src/gemini.js';
import { compileTools, type ModelResponse, type StreamEvent, type StreamParser } from '../src/index.js';
import {
  buildOpenAIResponsesRequest,
  createOpenAIResponsesStreamParser,
  parseOpenAIResponsesResponse,
} from '../src/openai-responses.js';
import { validateForProvider } from '../src/validate-for-provider.js';

function run(parser: StreamParser, payloads: readonly unknown[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const payload of payloads) out.push(...parser.push({ data: JSON.stringify(payload) }));
  out.push(...parser.end());
  return out;
}

function finished(events: readonly StreamEvent[]): ModelResponse {
  const last = events.at(-1);
  assert.equal(last?.type, 'finish', JSON.stringify(last));
  return (last as { response: ModelResponse }).response;
}

const calls = (response: ModelResponse) =>
  response.message.content.flatMap((part) =>
    part.type === 'tool-call' ? [{ id: part.id, name: part.name, arguments: part.arguments }] : [],
  );
const text = (response: ModelResponse) =>
  response.message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

describe('issue 22 regressions', () => {
  it('OpenAI (Chat and Responses, non-strict) no longer keeps a root `not` in `parameters`, and validateForProvider flags root oneOf/anyOf/allOf/enum/not/const', () => {
    const tool = {
      name: 'pick',
      description: 'Pick one.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        not: { required: ['a', 'b'] },
      },
    };
    for (const dialect of ['openai-chat', 'openai-responses'] as const) {
      const compiled = compileTools([tool], { dialect });
      const wire = compiled.tools[0]!;
      const parameters = (
        dialect === 'openai-chat' ? (wire.function as JsonObject).parameters : wire.parameters
      ) as JsonObject;
      assert.equal(parameters.not, undefined, `${dialect} sends no root not`);
      assert.match(String(parameters.description), /not/);
      assert.ok(
        compiled.report.some((entry) => entry.keyword === 'not' && entry.action === 'moved-to-description'),
      );
      for (const keyword of ['oneOf', 'anyOf', 'allOf', 'enum', 'not', 'const']) {
        const bad = {
          type: 'object',
          properties: {},
          [keyword]:
            keyword === 'not'
              ? {}
              : keyword === 'const'
                ? {}
                : keyword === 'enum'
                  ? [{}]
                  : [{ type: 'object' }],
        };
        const list =
          dialect === 'openai-chat'
            ? [{ type: 'function', function: { name: 'x', parameters: bad } }]
            : [{ type: 'function', name: 'x', parameters: bad, strict: false }];
        assert.ok(
          validateForProvider(list, dialect).some((violation) => violation.rule === 'root-keyword'),
          `${dialect} flags a root ${keyword}`,
        );
      }
    }
  });

  it('Gemini: a tool without a description is declared with one (the protos mark it required), and validateForProvider flags a missing one', () => {
    for (const geminiSchema of ['json-schema', 'openapi'] as const) {
      const compiled = compileTools(
        [
          {
            name: 'status',
            description: '',
            inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
          },
        ],
        {
          dialect: 'gemini',
          geminiSchema,
        },
      );
      const declaration = (compiled.tools[0]!.functionDeclarations as JsonObject[])[0]!;
      assert.equal(typeof declaration.description, 'string');
      assert.notEqual(declaration.description, '');
      assert.ok(
        compiled.report.some((entry) => entry.keyword === 'tool-description' && entry.action === 'added'),
      );
    }
    assert.ok(
      validateForProvider([{ functionDeclarations: [{ name: 'a' }] }], 'gemini').some(
        (violation) => violation.rule === 'description-required',
      ),
    );
  });

  it("Gemini geminiSchema: 'openapi' emits the protos' Type names (OBJECT, STRING...) and a type on every schema, type-less anyOf included", () => {
    const compiled = compileTools(
      [
        {
          name: 'f',
          description: 'F.',
          inputSchema: {
            type: 'object',
            properties: {
              same: {
                anyOf: [
                  { type: 'string', minLength: 1 },
                  { type: 'string', format: 'date-time' },
                ],
              },
              mixed: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
              list: { type: 'array', items: { type: 'number' } },
            },
          },
        },
      ],
      { dialect: 'gemini', geminiSchema: 'openapi' },
    );
    const parameters = (compiled.tools[0]!.functionDeclarations as JsonObject[])[0]!.parameters as JsonObject;
    const types: unknown[] = [];
    const walk = (node: JsonObject) => {
      types.push(node.type);
      for (const child of Object.values((node.properties as JsonObject | undefined) ?? {}))
        walk(child as JsonObject);
      if (node.items) walk(node.items as JsonObject);
      for (const branch of (node.anyOf as JsonObject[] | undefined) ?? []) walk(branch);
    };
    walk(parameters);
    assert.ok(types.length >= 6);
    for (const type of types)
      assert.match(String(type), /^(STRING|NUMBER|INTEGER|BOOLEAN|ARRAY|OBJECT|NULL)$/);
    const properties = parameters.properties as JsonObject;
    assert.equal((properties.same as JsonObject).type, 'STRING');
    assert.equal(
      (properties.mixed as JsonObject).type,
      'STRING',
      'a union of different types is a JSON-encoded string',
    );
    assert.deepEqual(validateForProvider(compiled.tools, 'gemini'), []);
    assert.ok(
      validateForProvider(
        [
          {
            functionDeclarations: [
              {
                name: 'a',
                description: 'A.',
                parameters: { type: 'object', properties: { x: { anyOf: [{ type: 'STRING' }] } } },
              },
            ],
          },
        ],
        'gemini',
      ).some((violation) => violation.rule === 'gemini-type'),
    );
  });

  it('Responses: images go out with `detail`, and assistant history text goes out as an input message (not output_text parts in a role message)', () => {
    const built = buildOpenAIResponsesRequest({
      model: 'gpt-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'A square.' }] },
        { role: 'user', content: 'Thanks.' },
      ],
    });
    const input = built.body.input as JsonObject[];
    assert.deepEqual((input[0]!.content as JsonObject[])[1], {
      type: 'input_image',
      detail: 'auto',
      image_url: 'data:image/png;base64,AAAA',
    });
    assert.deepEqual(input[1], { role: 'assistant', content: 'A square.' });
  });

  it('Anthropic streams: a tool_use block inside message_start.content (programmatic tool calling) is a call with stop reason tool-calls', () => {
    const events = run(createAnthropicStreamParser(), [
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_1',
              name: 'rollDie',
              input: { player: 'player2' },
              caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' },
            },
          ],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      },
      { type: 'message_stop' },
    ]);
    const response = finished(events);
    assert.deepEqual(calls(response), [
      { id: 'toolu_1', name: 'rollDie', arguments: '{"player":"player2"}' },
    ]);
    assert.equal(response.stopReason, 'tool-calls');
    assert.ok(events.some((event) => event.type === 'tool-call'));
  });

  it('Anthropic streams: a second message_start while a message is open fails instead of being merged (an exact repeat before any content is ignored)', () => {
    const start = (id: string) => ({
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        content: [],
        model: 'm',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    });
    const spliced = run(createAnthropicStreamParser(), [
      start('msg_first'),
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_first', name: 't', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"value":"Spark' },
      },
      start('msg_second'),
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_second', name: 't', input: {} },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    ]);
    assert.equal(spliced.at(-1)?.type, 'error');
    assert.equal(spliced.filter((event) => event.type === 'finish').length, 0);
    const repeated = run(createAnthropicStreamParser(), [
      start('msg_dup'),
      start('msg_dup'),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ]);
    assert.equal(text(finished(repeated)), 'Hello');
    assert.equal(repeated.filter((event) => event.type === 'response-start').length, 1);
  });

  it('Anthropic: end_turn with resolved tool_use blocks maps to stop, not tool-calls (a loop would re-run calls the provider already ran)', () => {
    const result = parseAnthropicResponse({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'code_execution', input: { code: 'print(1)' } },
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'rollDie',
          input: { player: 'p1' },
          caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' },
        },
        {
          type: 'code_execution_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: { type: 'code_execution_result', stdout: '1', stderr: '', return_code: 0 },
        },
        { type: 'text', text: 'Done.' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 5 },
    });
    assert.ok(result.ok);
    assert.equal(result.value.stopReason, 'stop');
  });

  it('Anthropic: usage.iterations are summed and thinking tokens are mapped to reasoning tokens', () => {
    const result = parseAnthropicResponse({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 682,
        output_tokens: 1320,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        output_tokens_details: { thinking_tokens: 139 },
        iterations: [
          { type: 'compaction', input_tokens: 60385, output_tokens: 592 },
          { type: 'message', input_tokens: 682, output_tokens: 1320 },
        ],
      },
    });
    assert.ok(result.ok);
    assert.equal(result.value.usage?.inputTokens, 60385 + 682);
    assert.equal(result.value.usage?.outputTokens, 592 + 1320);
    assert.equal(result.value.usage?.reasoningTokens, 139);
  });

  it('Responses streams whose events each carry a new item id give the text once and a function call once', () => {
    let n = 0;
    const id = () => `capture-id-${++n}`;
    const events = run(createOpenAIResponsesStreamParser(), [
      {
        type: 'response.created',
        response: { id: id(), model: 'gpt-5.3-codex', status: 'in_progress', output: [] },
      },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: id(), type: 'message', role: 'assistant', status: 'in_progress', content: [] },
      },
      {
        type: 'response.output_text.delta',
        output_index: 0,
        content_index: 0,
        item_id: id(),
        delta: 'Hello',
      },
      {
        type: 'response.output_text.delta',
        output_index: 0,
        content_index: 0,
        item_id: id(),
        delta: ' there',
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          id: id(),
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello there', annotations: [] }],
        },
      },
      {
        type: 'response.output_item.added',
        output_index: 1,
        item: {
          id: id(),
          type: 'function_call',
          call_id: 'call_1',
          name: 'read_file',
          arguments: '',
          status: 'in_progress',
        },
      },
      { type: 'response.function_call_arguments.delta', output_index: 1, item_id: id(), delta: '{"path":' },
      { type: 'response.function_call_arguments.delta', output_index: 1, item_id: id(), delta: '"a"}' },
      {
        type: 'response.function_call_arguments.done',
        output_index: 1,
        item_id: id(),
        arguments: '{"path":"a"}',
      },
      {
        type: 'response.output_item.done',
        output_index: 1,
        item: {
          id: id(),
          type: 'function_call',
          call_id: 'call_1',
          name: 'read_file',
          arguments: '{"path":"a"}',
          status: 'completed',
        },
      },
      {
        type: 'response.completed',
        response: {
          id: id(),
          model: 'gpt-5.3-codex',
          status: 'completed',
          output: [],
          usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
        },
      },
    ]);
    const response = finished(events);
    assert.equal(text(response), 'Hello there');
    assert.deepEqual(calls(response), [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' }]);
    assert.equal(events.filter((event) => event.type === 'tool-call').length, 1);
  });

  it('Client-executed Responses tools (custom_tool_call, local_shell_call, shell_call, apply_patch_call, client tool_search_call) come back as calls with stop reason tool-calls', () => {
    const items: JsonObject[] = [
      {
        type: 'custom_tool_call',
        id: 'ctc_1',
        call_id: 'call_c',
        name: 'write_code',
        input: 'print(1)',
        status: 'completed',
      },
      {
        type: 'local_shell_call',
        id: 'lsh_1',
        call_id: 'call_l',
        action: { type: 'exec', command: ['ls'], env: {} },
        status: 'completed',
      },
      {
        type: 'shell_call',
        id: 'sh_1',
        call_id: 'call_s',
        action: { commands: ['ls'] },
        status: 'completed',
      },
      {
        type: 'apply_patch_call',
        id: 'ap_1',
        call_id: 'call_a',
        operation: { type: 'delete_file', path: 'a.txt' },
        status: 'completed',
      },
      {
        type: 'tool_search_call',
        id: 'ts_1',
        call_id: 'call_t',
        execution: 'client',
        arguments: { query: 'files' },
        status: 'completed',
      },
    ];
    for (const item of items) {
      const result = parseOpenAIResponsesResponse({ id: 'resp_1', status: 'completed', output: [item] });
      assert.ok(result.ok);
      assert.equal(result.value.stopReason, 'tool-calls', String(item.type));
      assert.equal(calls(result.value).length, 1, String(item.type));
      assert.equal(calls(result.value)[0]!.id, item.call_id);
      const stream = finished(
        run(createOpenAIResponsesStreamParser(), [
          { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } },
          { type: 'response.output_item.done', output_index: 0, item },
          { type: 'response.completed', response: { id: 'resp_1', status: 'completed', output: [item] } },
        ]),
      );
      assert.deepEqual(
        stream.message,
        result.value.message,
        `stream and body agree for ${String(item.type)}`,
      );
      assert.equal(stream.stopReason, 'tool-calls');
    }
  });

  it("Gemini's streamed partial function-call arguments are parsed rather than an error", () => {
    const chunk = (parts: JsonObject[], finishReason?: string) => ({
      candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}) }],
      modelVersion: 'gemini-3.1-pro-preview',
      responseId: 'r1',
    });
    const events = run(createGeminiStreamParser({ generateId: () => 'call_x' }), [
      chunk([{ functionCall: { name: 'getWeather', willContinue: true }, thoughtSignature: 'c2ln' }]),
      chunk([
        {
          functionCall: {
            partialArgs: [{ jsonPath: '$.location', stringValue: 'Bos', willContinue: true }],
            willContinue: true,
          },
        },
      ]),
      chunk([
        {
          functionCall: { partialArgs: [{ jsonPath: '$.location', stringValue: 'ton' }], willContinue: true },
        },
      ]),
      chunk([
        { functionCall: { partialArgs: [{ jsonPath: '$.days[0]', numberValue: 1 }], willContinue: true } },
      ]),
      chunk([{ functionCall: {} }], 'STOP'),
    ]);
    const response = finished(events);
    assert.deepEqual(calls(response), [
      { id: 'call_x', name: 'getWeather', arguments: '{"location":"Boston","days":[1]}' },
    ]);
    assert.equal(response.stopReason, 'tool-calls');
  });

  it('Reports: an empty schema gains `properties: {}` with an entry for it, and Gemini openapi mode reports the `required: []` it drops', () => {
    const empty = compileTools([{ name: 'noop', description: 'No-op.', inputSchema: {} }], {
      dialect: 'anthropic',
    });
    assert.ok(empty.report.some((entry) => entry.keyword === 'properties' && entry.action === 'added'));
    const gemini = compileTools(
      [
        {
          name: 'f',
          description: 'F.',
          inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: [] },
        },
      ],
      { dialect: 'gemini', geminiSchema: 'openapi' },
    );
    assert.ok(
      gemini.report.some(
        (entry) => entry.keyword === 'required' && entry.action === 'dropped' && entry.pointer === '',
      ),
    );
  });
});
