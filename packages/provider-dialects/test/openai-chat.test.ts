import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '@toolhost/contracts';
import { compileTools, type Message } from '../src/index.js';
import {
  buildOpenAIChatRequest,
  chatToolImagesMarker,
  encodeOpenAIChatToolResult,
  parseOpenAIChatResponse,
} from '../src/openai-chat.js';
import { representativeTools } from './helpers.js';

const tools = compileTools(representativeTools(), { dialect: 'openai-chat' });

describe('buildOpenAIChatRequest', () => {
  it('wraps each tool as {type: "function", function: {name, description, parameters}} (PD-TOOLS-3)', () => {
    const built = buildOpenAIChatRequest({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
    });
    const list = built.body.tools as JsonObject[];
    assert.ok(list.length > 0);
    for (const tool of list) {
      assert.deepEqual(Object.keys(tool), ['type', 'function']);
      assert.equal(tool.type, 'function');
      assert.deepEqual(Object.keys(tool.function as JsonObject).slice(0, 1), ['name']);
    }
    assert.equal(built.path, '/chat/completions');
    assert.equal(built.body.tool_choice, 'auto');
  });

  it('sends tool results as tool messages and a result image in a user message after the run of results', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_1', name: 'view_image', arguments: '{}' },
          { type: 'tool-call', id: 'call_2', name: 'read_file', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'call_1',
        toolName: 'view_image',
        isError: false,
        content: [
          { type: 'text', text: 'image.png' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'call_2',
        toolName: 'read_file',
        isError: true,
        content: [{ type: 'text', text: 'FS_NOT_FOUND: gone' }],
      },
    ];
    const built = buildOpenAIChatRequest({ model: 'gpt-4.1', messages });
    assert.deepEqual(built.body.messages, [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'view_image', arguments: '{}' } },
          { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'image.png' },
      { role: 'tool', tool_call_id: 'call_2', content: 'FS_NOT_FOUND: gone' },
      {
        role: 'user',
        content: [
          { type: 'text', text: chatToolImagesMarker('call_1') },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ]);
    assert.deepEqual(
      built.report.map((entry) => [entry.message, entry.action]),
      [
        [1, 'moved'],
        [2, 'dropped'],
      ],
    );
  });

  it('encodes one tool result as a tool message plus an image message', () => {
    const items = encodeOpenAIChatToolResult({
      role: 'tool',
      toolCallId: 'call_1',
      toolName: 'x',
      isError: false,
      content: [{ type: 'image', mimeType: 'image/jpeg', data: 'BBBB' }],
    });
    assert.equal(items.length, 2);
    assert.deepEqual(items[0], { role: 'tool', tool_call_id: 'call_1', content: '' });
  });

  it('shortens ids over 40 characters and maps them back when parsing', () => {
    const longId = `call_${'x'.repeat(48)}`;
    const built = buildOpenAIChatRequest({
      model: 'gpt-4.1',
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: longId, name: 'read_file', arguments: '{}' }],
        },
      ],
    });
    const wire = ((built.body.messages as JsonObject[])[0]!.tool_calls as JsonObject[])[0]!.id as string;
    assert.ok(wire.length <= 40);
    assert.equal(built.toolCallIds[wire], longId);
    const response = parseOpenAIChatResponse(
      {
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: wire, type: 'function', function: { name: 'read_file', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
      { toolCallIds: built.toolCallIds },
    );
    assert.ok(response.ok);
    if (response.ok) assert.equal((response.value.message.content[0] as { id: string }).id, longId);
  });

  it('asks for usage when streaming and maps tool choice and parallel calls', () => {
    const built = buildOpenAIChatRequest({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
      stream: true,
      toolChoice: { type: 'tool', name: 'db.query' },
      parallelToolCalls: false,
      maxOutputTokens: 50,
    });
    assert.equal(built.body.stream, true);
    assert.deepEqual(built.body.stream_options, { include_usage: true });
    assert.deepEqual(built.body.tool_choice, { type: 'function', function: { name: 'db_query' } });
    assert.equal(built.body.parallel_tool_calls, false);
    assert.equal(built.body.max_completion_tokens, 50);
  });

  it('omits tools for tool choice none when the history has no tool traffic', () => {
    const built = buildOpenAIChatRequest({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
      toolChoice: 'none',
    });
    assert.equal(built.body.tools, undefined);
    assert.equal(built.body.tool_choice, undefined);
  });
});

describe('parseOpenAIChatResponse', () => {
  it('treats a tool call without an id as a PROVIDER_ERROR', () => {
    const result = parseOpenAIChatResponse({
      choices: [
        {
          message: {
            role: 'assistant',
            tool_calls: [{ type: 'function', function: { name: 'x', arguments: '{}' } }],
          },
        },
      ],
    });
    assert.equal(result.ok, false);
  });

  it('keeps reasoning_content of OpenAI-compatible servers and maps refusals', () => {
    const result = parseOpenAIChatResponse({
      choices: [
        {
          message: { role: 'assistant', content: null, refusal: 'I cannot help.', reasoning_content: 'hmm' },
          finish_reason: 'stop',
        },
      ],
    });
    assert.ok(result.ok);
    if (!result.ok) return;
    assert.equal(result.value.stopReason, 'refusal');
    assert.deepEqual(result.value.message.content, [
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'I cannot help.' },
    ]);
  });
});
