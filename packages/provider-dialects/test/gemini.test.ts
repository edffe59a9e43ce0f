import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '@toolhost/contracts';
import {
  buildGeminiRequest,
  createGeminiStreamParser,
  encodeGeminiToolResult,
  GEMINI_SKIP_THOUGHT_SIGNATURE,
  parseGeminiRequest,
  parseGeminiResponse,
} from '../src/gemini.js';
import { compileTools, type Message } from '../src/index.js';
import { readFixture, representativeTools } from './helpers.js';

const tools = compileTools(representativeTools(), { dialect: 'gemini' });

describe('buildGeminiRequest', () => {
  it('puts the model in the path, system messages in systemInstruction and tool choice in toolConfig', () => {
    const built = buildGeminiRequest({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'A.' },
        { role: 'system', content: 'B.' },
        { role: 'user', content: 'Hi' },
      ],
      tools,
      toolChoice: { type: 'tool', name: 'read_file' },
      maxOutputTokens: 64,
    });
    assert.equal(built.path, '/models/gemini-2.5-flash:generateContent');
    assert.equal(
      buildGeminiRequest({ model: 'models/x', messages: [], stream: true }).path,
      '/models/x:streamGenerateContent?alt=sse',
    );
    assert.deepEqual(built.body.systemInstruction, { parts: [{ text: 'A.\n\nB.' }] });
    assert.deepEqual(built.body.toolConfig, {
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] },
    });
    assert.deepEqual(built.body.generationConfig, { maxOutputTokens: 64 });
    assert.equal(built.body.model, undefined);
  });

  it('sends parallel results in one user turn as functionResponse parts with output or error', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'fc_1', name: 'read_file', arguments: '{"path":"a"}' },
          { type: 'tool-call', id: 'fc_2', name: 'db.query', arguments: '{"sql":"x"}' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'fc_1',
        toolName: 'read_file',
        isError: false,
        content: [{ type: 'text', text: 'ok' }],
      },
      {
        role: 'tool',
        toolCallId: 'fc_2',
        toolName: 'db.query',
        isError: true,
        content: [{ type: 'text', text: 'TIMEOUT: slow' }],
      },
    ];
    const built = buildGeminiRequest({ model: 'gemini-2.5-flash', messages, tools });
    assert.deepEqual(built.body.contents, [
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'read_file', args: { path: 'a' }, id: 'fc_1' } },
          { functionCall: { name: 'db_query', args: { sql: 'x' }, id: 'fc_2' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc_1', name: 'read_file', response: { output: 'ok' } } },
          { functionResponse: { id: 'fc_2', name: 'db_query', response: { error: 'TIMEOUT: slow' } } },
        ],
      },
    ]);
  });

  it('puts result images inside functionResponse.parts, or after it when asked', () => {
    const result: Message = {
      role: 'tool',
      toolCallId: 'fc_1',
      toolName: 'view_image',
      isError: false,
      content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }],
    };
    assert.deepEqual(encodeGeminiToolResult(result), [
      {
        functionResponse: {
          id: 'fc_1',
          name: 'view_image',
          response: { output: '' },
          parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }],
        },
      },
    ]);
    const legacy = buildGeminiRequest({
      model: 'gemini-2.0-flash',
      messages: [result],
      functionResponseParts: false,
    });
    const parts = (built(legacy).contents[0] as JsonObject).parts as JsonObject[];
    assert.equal(parts.length, 2);
    assert.deepEqual(parts[1], { inlineData: { mimeType: 'image/png', data: 'AAAA' } });
    assert.equal(legacy.report[0]?.action, 'moved');
  });

  it('replays thought signatures and adds the skip value for a Gemini 3 call without one', () => {
    const parsed = parseGeminiResponse(readFixture('gemini', 'parallel-tool-calls.json'), { tools });
    assert.ok(parsed.ok);
    if (!parsed.ok) return;
    const replay = buildGeminiRequest({
      model: 'gemini-3-pro-preview',
      messages: [parsed.value.message],
      tools,
    });
    const parts = (built(replay).contents[0] as JsonObject).parts as JsonObject[];
    assert.equal(
      parts[1]!.thoughtSignature,
      'AY89a19YsnFp7FOSIejJDV9XuMU996D+ZaDJiD6L9EEi+Lh+VGTEGqM3Lip3DPI7QzY=',
    );
    assert.equal(
      parts[2]!.thoughtSignature,
      undefined,
      'only the first call of a parallel batch carries the signature',
    );
    assert.deepEqual(replay.report, []);

    const foreign = buildGeminiRequest({
      model: 'gemini-3-pro-preview',
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 'toolu_1', name: 'read_file', arguments: '{}' }],
        },
      ],
    });
    const part = ((built(foreign).contents[0] as JsonObject).parts as JsonObject[])[0]!;
    assert.equal(part.thoughtSignature, GEMINI_SKIP_THOUGHT_SIGNATURE);
    assert.equal(foreign.report[0]?.action, 'added');
    const older = buildGeminiRequest({
      model: 'gemini-2.5-flash',
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 'toolu_1', name: 'read_file', arguments: '{}' }],
        },
      ],
    });
    assert.equal(
      ((built(older).contents[0] as JsonObject).parts as JsonObject[])[0]!.thoughtSignature,
      undefined,
    );
  });

  it('does not send ids it generated for calls Gemini sent without one, and matches results by order', () => {
    const parsed = parseGeminiResponse(readFixture('gemini', 'tool-call.json'), {
      tools,
      generateId: () => 'local-1',
    });
    assert.ok(parsed.ok);
    if (!parsed.ok) return;
    const call = parsed.value.message.content[0]!;
    assert.deepEqual(call.type === 'tool-call' && call.providerData?.gemini?.syntheticId, true);
    const messages: Message[] = [
      parsed.value.message,
      {
        role: 'tool',
        toolCallId: 'local-1',
        toolName: 'read_file',
        isError: false,
        content: [{ type: 'text', text: 'x' }],
      },
    ];
    const request = buildGeminiRequest({ model: 'gemini-3-pro-preview', messages, tools });
    assert.ok(!JSON.stringify(request.body).includes('local-1'));
    const back = parseGeminiRequest(request.body, { tools });
    const [assistant, tool] = back.messages;
    const backCall = assistant?.role === 'assistant' ? assistant.content[0] : undefined;
    assert.equal(tool?.role === 'tool' && tool.toolCallId, backCall?.type === 'tool-call' && backCall.id);
  });
});

describe('createGeminiStreamParser', () => {
  it('rejects streamed function-call arguments that arrive before any call was opened', () => {
    const parser = createGeminiStreamParser();
    const events = parser.push({
      data: JSON.stringify({
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { partialArgs: [{ jsonPath: '$.a', stringValue: 'x' }] } }],
            },
          },
        ],
      }),
    });
    assert.equal(events.at(-1)?.type, 'error');
  });

  it('maps a blocked prompt to the content-filter stop reason', () => {
    const result = parseGeminiResponse({
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 },
    });
    assert.ok(result.ok);
    if (result.ok) assert.equal(result.value.stopReason, 'content-filter');
  });
});

function built(request: { body: JsonObject }): { contents: JsonObject[] } {
  return { contents: request.body.contents as JsonObject[] };
}
