import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '@toolhost/contracts';
import {
  ANTHROPIC_MAX_CACHE_BREAKPOINTS,
  applyAnthropicCacheBreakpoints,
  buildAnthropicRequest,
  encodeAnthropicToolResult,
} from '../src/anthropic.js';
import { compileTools, DialectError, type Message } from '../src/index.js';
import { deepFreeze, representativeTools } from './helpers.js';

const tools = compileTools(representativeTools(), { dialect: 'anthropic' });
const call = (id: string, name = 'read_file', args = '{"path":"a"}') =>
  ({ type: 'tool-call', id, name, arguments: args }) as const;

function countCacheControl(value: unknown): number {
  return (JSON.stringify(value).match(/"cache_control"/g) ?? []).length;
}

describe('buildAnthropicRequest', () => {
  it('joins two system messages into one top-level system with a blank line (PD-ANT-1)', () => {
    const built = buildAnthropicRequest({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'First rule.' },
        { role: 'system', content: 'Second rule.' },
        { role: 'user', content: 'Hi' },
      ],
      cacheBreakpoints: false,
    });
    assert.equal(built.body.system, 'First rule.\n\nSecond rule.');
    assert.deepEqual(built.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('puts two consecutive tool results into one user message with two tool_result blocks (PD-ANT-1)', () => {
    const built = buildAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'Read both.' },
        { role: 'assistant', content: [call('toolu_1'), call('toolu_2')] },
        {
          role: 'tool',
          toolCallId: 'toolu_1',
          toolName: 'read_file',
          isError: false,
          content: [{ type: 'text', text: 'one' }],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_2',
          toolName: 'read_file',
          isError: false,
          content: [{ type: 'text', text: 'two' }],
        },
      ],
      tools,
      cacheBreakpoints: false,
    });
    const messages = built.body.messages as JsonObject[];
    assert.equal(messages.length, 3);
    assert.equal(messages[2]!.role, 'user');
    assert.deepEqual(
      (messages[2]!.content as JsonObject[]).map((block) => [block.type, block.tool_use_id]),
      [
        ['tool_result', 'toolu_1'],
        ['tool_result', 'toolu_2'],
      ],
    );
  });

  it('sends malformed tool-call argument JSON as input {} and reports it (PD-ANT-1)', () => {
    const built = buildAnthropicRequest({
      model: 'm',
      messages: [{ role: 'assistant', content: [call('toolu_1', 'read_file', '{"path": "a"')] }],
      cacheBreakpoints: false,
    });
    const block = ((built.body.messages as JsonObject[])[0]!.content as JsonObject[])[0]!;
    assert.deepEqual(block.input, {});
    assert.equal(built.report.length, 1);
    assert.equal(built.report[0]!.action, 'rewritten');
  });

  it('defaults max_tokens to 4096 (PD-ANT-1)', () => {
    const built = buildAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(built.body.max_tokens, 4096);
    assert.equal(
      buildAnthropicRequest({ model: 'm', messages: [], maxOutputTokens: 100 }).body.max_tokens,
      100,
    );
  });

  it('omits tools for tool choice none (PD-ANT-1) unless the history holds tool blocks', () => {
    const plain = buildAnthropicRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
      toolChoice: 'none',
    });
    assert.equal(plain.body.tools, undefined);
    assert.equal(plain.body.tool_choice, undefined);
    const withTraffic = buildAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'assistant', content: [call('toolu_1')] },
        { role: 'tool', toolCallId: 'toolu_1', toolName: 'read_file', isError: false, content: [] },
      ],
      tools,
      toolChoice: 'none',
    });
    assert.ok(Array.isArray(withTraffic.body.tools));
    assert.deepEqual(withTraffic.body.tool_choice, { type: 'none' });
  });

  it('maps an error tool result to is_error: true and keeps its image blocks (PD-ANT-1)', () => {
    const [block] = encodeAnthropicToolResult({
      role: 'tool',
      toolCallId: 'toolu_9',
      toolName: 'view_image',
      isError: true,
      content: [
        { type: 'text', text: 'FS_NOT_FOUND: no such file' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
      ],
    });
    assert.deepEqual(block, {
      type: 'tool_result',
      tool_use_id: 'toolu_9',
      content: [
        { type: 'text', text: 'FS_NOT_FOUND: no such file' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      ],
      is_error: true,
    });
    const [ok] = encodeAnthropicToolResult({
      role: 'tool',
      toolCallId: 'toolu_9',
      toolName: 'x',
      isError: false,
      content: [],
    });
    assert.equal(ok!.is_error, undefined);
  });

  it('maps tool choice and parallel tool use', () => {
    const messages: Message[] = [{ role: 'user', content: 'Hi' }];
    const choice = (options: Parameters<typeof buildAnthropicRequest>[0]) =>
      buildAnthropicRequest(options).body.tool_choice;
    assert.equal(choice({ model: 'm', messages, tools }), undefined);
    assert.deepEqual(choice({ model: 'm', messages, tools, parallelToolCalls: false }), {
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    assert.deepEqual(choice({ model: 'm', messages, tools, toolChoice: 'required' }), { type: 'any' });
    assert.deepEqual(
      choice({ model: 'm', messages, tools, toolChoice: { type: 'tool', name: 'github.create_issue' } }),
      {
        type: 'tool',
        name: 'github_create_issue',
      },
    );
    assert.throws(
      () =>
        buildAnthropicRequest({ model: 'm', messages, tools, toolChoice: { type: 'tool', name: 'missing' } }),
      (error) => DialectError.isInstance(error) && error.code === 'CONFIG_INVALID',
    );
  });

  it('replays Anthropic thinking blocks and leaves out other providers reasoning with a report entry', () => {
    const raw = { type: 'thinking', thinking: 'plan', signature: 'sig' };
    const built = buildAnthropicRequest({
      model: 'm',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'plan', providerData: { anthropic: raw } },
            { type: 'reasoning', text: 'other', providerData: { gemini: { text: 'other', thought: true } } },
            { type: 'text', text: 'Done.' },
          ],
        },
      ],
      cacheBreakpoints: false,
    });
    assert.deepEqual((built.body.messages as JsonObject[])[0]!.content, [
      raw,
      { type: 'text', text: 'Done.' },
    ]);
    assert.equal(built.report.length, 1);
    assert.equal(built.report[0]!.action, 'dropped');
  });

  it('normalises tool_use ids to the Anthropic charset and returns the mapping', () => {
    const built = buildAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'assistant', content: [call('call:1/2')] },
        { role: 'tool', toolCallId: 'call:1/2', toolName: 'read_file', isError: false, content: [] },
      ],
      cacheBreakpoints: false,
    });
    const [wireId] = Object.keys(built.toolCallIds);
    assert.match(wireId!, /^[a-zA-Z0-9_-]+$/);
    assert.equal(built.toolCallIds[wireId!], 'call:1/2');
    const text = JSON.stringify(built.body);
    assert.equal(text.split(wireId!).length - 1, 2, 'the call and its result use the same wire id');
  });
});

describe('applyAnthropicCacheBreakpoints', () => {
  it('marks the last system block and the last block of the last message (PD-ANT-2)', () => {
    const built = buildAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'system', content: 'Rules.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      tools,
    });
    const body = built.body;
    assert.deepEqual(body.system, [{ type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } }]);
    const tools_ = body.tools as JsonObject[];
    assert.ok(
      tools_.every((tool) => tool.cache_control === undefined),
      'the system breakpoint already covers the tools',
    );
    const last = (body.messages as JsonObject[]).at(-1)!.content as JsonObject[];
    assert.deepEqual(last.at(-1)!.cache_control, { type: 'ephemeral' });
    assert.equal(last[0]!.cache_control, undefined);
    assert.equal(countCacheControl(body), 2);
  });

  it('marks the last tool when there is no system prompt (PD-ANT-2)', () => {
    const built = buildAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], tools });
    const list = built.body.tools as JsonObject[];
    assert.deepEqual(list.at(-1)!.cache_control, { type: 'ephemeral' });
    assert.equal(countCacheControl(built.body), 2);
  });

  it('never exceeds four breakpoints, counting the ones already present (PD-ANT-2)', () => {
    const body: JsonObject = {
      system: [
        { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'b', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'c' },
      ],
      tools: [{ name: 't', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
    };
    assert.equal(applyAnthropicCacheBreakpoints(body), ANTHROPIC_MAX_CACHE_BREAKPOINTS);
    assert.equal(countCacheControl(body), 4);
    assert.equal(applyAnthropicCacheBreakpoints(body), 4, 'applying twice adds nothing');
    assert.equal(countCacheControl(body), 4);
  });

  it('uses the 1h TTL when asked and skips thinking blocks', () => {
    const body: JsonObject = {
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'x' },
            { type: 'thinking', thinking: 't', signature: 's' },
          ],
        },
      ],
    };
    applyAnthropicCacheBreakpoints(body, { ttl: '1h' });
    const content = (body.messages as JsonObject[])[0]!.content as JsonObject[];
    assert.deepEqual(content[0]!.cache_control, { type: 'ephemeral', ttl: '1h' });
    assert.equal(content[1]!.cache_control, undefined);
  });

  // Regression: the breakpoint on the last tool was written into the shared compiled tool list.
  it('does not mutate the compiled tools or the messages when placing breakpoints', () => {
    const frozen = deepFreeze(compileTools(representativeTools(), { dialect: 'anthropic' }));
    const messages = deepFreeze<Message[]>([
      {
        role: 'assistant',
        content: [
          {
            type: 'provider',
            dialect: 'anthropic',
            value: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
          },
        ],
      },
    ]);
    const built = buildAnthropicRequest({ model: 'm', messages, tools: frozen });
    assert.equal(countCacheControl(built.body), 2);
    assert.equal(countCacheControl(frozen.tools), 0);
  });

  it('leaves a request without breakpoints when asked', () => {
    const built = buildAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'system', content: 'Rules.' },
        { role: 'user', content: 'Hi' },
      ],
      tools,
      cacheBreakpoints: false,
    });
    assert.equal(countCacheControl(built.body), 0);
  });
});
