import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '@toolhost/contracts';
import { compileTools } from '../src/index.js';
import {
  buildOpenAIResponsesRequest,
  encodeOpenAIResponsesToolResult,
  parseOpenAIResponsesResponse,
} from '../src/openai-responses.js';
import { readFixture, representativeTools } from './helpers.js';

const tools = compileTools(representativeTools(), { dialect: 'openai-responses' });

describe('buildOpenAIResponsesRequest', () => {
  it('sends flat function tools with an explicit strict flag and store: false', () => {
    const built = buildOpenAIResponsesRequest({
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
      stream: true,
    });
    assert.equal(built.path, '/responses');
    assert.equal(built.body.store, false);
    assert.deepEqual(built.body.stream_options, { include_obfuscation: false });
    const functions = (built.body.tools as JsonObject[]).filter((tool) => tool.type === 'function');
    assert.ok(functions.length > 0);
    for (const tool of functions) {
      assert.equal(typeof tool.name, 'string');
      assert.equal(
        tool.strict,
        false,
        'strict is explicit: Responses would otherwise try to make the tool strict',
      );
    }
    assert.deepEqual(
      (built.body.tools as JsonObject[]).filter((tool) => tool.type !== 'function'),
      [],
      'no hosted tool without a declaration',
    );
  });

  it('encodes a tool result as function_call_output, with input_image parts when it has images', () => {
    assert.deepEqual(
      encodeOpenAIResponsesToolResult({
        role: 'tool',
        toolCallId: 'call_1',
        toolName: 'x',
        isError: false,
        content: [{ type: 'text', text: 'ok' }],
      }),
      [{ type: 'function_call_output', call_id: 'call_1', output: 'ok' }],
    );
    assert.deepEqual(
      encodeOpenAIResponsesToolResult({
        role: 'tool',
        toolCallId: 'call_1',
        toolName: 'x',
        isError: false,
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
      }),
      [
        {
          type: 'function_call_output',
          call_id: 'call_1',
          output: [
            { type: 'input_text', text: 'see' },
            { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,AAAA' },
          ],
        },
      ],
    );
  });

  it('replays reasoning items only when they carry encrypted content', () => {
    const parsed = parseOpenAIResponsesResponse(readFixture('openai-responses', 'text.json'));
    assert.ok(parsed.ok);
    if (!parsed.ok) return;
    const built = buildOpenAIResponsesRequest({ model: 'gpt-5', messages: [parsed.value.message] });
    const input = built.body.input as JsonObject[];
    assert.equal(input[0]!.type, 'reasoning');
    assert.equal(input[0]!.encrypted_content, 'gAAAAABo-encrypted-reasoning-blob');
    const without = buildOpenAIResponsesRequest({
      model: 'gpt-5',
      messages: [
        {
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: 'x',
              providerData: { 'openai-responses': { type: 'reasoning', id: 'rs_1', summary: [] } },
            },
          ],
        },
      ],
    });
    assert.deepEqual(without.body.input, []);
    assert.equal(without.report[0]?.action, 'dropped');
  });

  it('maps a named tool choice to the wire name', () => {
    const built = buildOpenAIResponsesRequest({
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
      toolChoice: { type: 'tool', name: 'memory.create_entities' },
    });
    assert.deepEqual(built.body.tool_choice, { type: 'function', name: 'memory_create_entities' });
  });
});

describe('parseOpenAIResponsesResponse', () => {
  it('maps an incomplete response to the length stop reason', () => {
    const result = parseOpenAIResponsesResponse({
      id: 'resp_1',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'partial' }] }],
    });
    assert.ok(result.ok);
    if (result.ok) {
      assert.equal(result.value.stopReason, 'length');
      assert.equal(result.value.rawStopReason, 'max_output_tokens');
    }
  });

  it('keeps hosted tool items as provider parts and a failed status as an error', () => {
    const result = parseOpenAIResponsesResponse({
      status: 'completed',
      output: [
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
      ],
    });
    assert.ok(result.ok);
    if (result.ok) assert.equal(result.value.message.content[0]?.type, 'provider');
    const failed = parseOpenAIResponsesResponse({
      status: 'failed',
      error: { code: 'server_error', message: 'boom' },
      output: [],
    });
    assert.equal(failed.ok, false);
    if (!failed.ok) assert.equal(failed.error.details.retryable, true);
  });
});
