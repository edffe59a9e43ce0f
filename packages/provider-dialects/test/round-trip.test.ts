// Round trips, for every dialect: neutral messages → buildRequest → parseRequest give the same
// messages back (names and ids included), and a parsed response replays to the same assistant turn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compileTools,
  DIALECT_NAMES,
  type DialectName,
  decodeToolCall,
  getDialect,
  type Message,
  type ModelResponse,
  type ToolMessage,
} from '../src/index.js';
import { readFixture, representativeTools } from './helpers.js';

// A 1x1 PNG.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const ODD_ID = 'toolu.01:call/with odd characters and far more than forty characters';

function conversation(): Message[] {
  return [
    { role: 'system', content: 'You are a careful engineer.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Open an issue for the failing build and read package.json.' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Doing both.' },
        {
          type: 'tool-call',
          id: ODD_ID,
          name: 'github.create_issue',
          arguments: '{"title":"Build fails","priority":1}',
        },
        { type: 'tool-call', id: 'call_short_1', name: 'read_file', arguments: '{"path":"package.json"}' },
      ],
    },
    {
      role: 'tool',
      toolCallId: ODD_ID,
      toolName: 'github.create_issue',
      isError: true,
      content: [
        { type: 'text', text: 'PERMISSION_DENIED: the run policy does not allow this call; do not retry it' },
      ],
    },
    {
      role: 'tool',
      toolCallId: 'call_short_1',
      toolName: 'read_file',
      isError: false,
      content: [
        { type: 'text', text: '{"name":"toolhost"}' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks. Summarise.' }] },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'The issue was refused; package.json names toolhost.' }],
    },
  ];
}

/** What a dialect cannot carry: Chat Completions and Responses have no error flag for results. */
function expected(dialect: DialectName, messages: Message[]): Message[] {
  if (dialect !== 'openai-chat' && dialect !== 'openai-responses') return messages;
  return messages.map((message) =>
    message.role === 'tool' ? ({ ...message, isError: false } satisfies ToolMessage) : message,
  );
}

const FIXTURE_MODEL: Record<DialectName, string> = {
  'openai-chat': 'gpt-4.1',
  'openai-responses': 'gpt-5',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-3-pro-preview',
};

for (const dialectName of DIALECT_NAMES) {
  const dialect = getDialect(dialectName);
  const tools = compileTools(representativeTools(), { dialect: dialectName });

  describe(`${dialectName}: round trips`, () => {
    it('decodes a built request back to the neutral messages it came from, names and ids included', () => {
      const messages = conversation();
      const built = dialect.buildRequest({ model: 'gemini-2.5-flash', messages, tools });
      const parsed = dialect.parseRequest(built.body, { tools, toolCallIds: built.toolCallIds });
      assert.deepEqual(parsed.messages, expected(dialectName, messages));
      if (dialectName !== 'gemini') {
        assert.ok(
          Object.values(built.toolCallIds).includes(ODD_ID),
          'the odd id was normalised for the wire',
        );
        assert.ok(!JSON.stringify(built.body).includes(ODD_ID), 'the odd id is not sent as is');
      }
      assert.ok(JSON.stringify(built.body).includes('github_create_issue'));
      assert.ok(!JSON.stringify(built.body).includes('github.create_issue'));
    });

    it('replays a parsed response as the same assistant turn', () => {
      const result = dialect.parseResponse(readFixture(dialectName, 'parallel-tool-calls.json'), { tools });
      assert.ok(result.ok);
      const response = (result as { value: ModelResponse }).value;
      const messages: Message[] = [{ role: 'user', content: 'Go.' }, response.message];
      const built = dialect.buildRequest({ model: FIXTURE_MODEL[dialectName], messages, tools });
      assert.deepEqual(built.report, []);
      const parsed = dialect.parseRequest(built.body, { tools, toolCallIds: built.toolCallIds });
      assert.deepEqual(parsed.messages.at(-1), response.message);
    });

    it('maps ids changed for the wire back when the provider echoes them', () => {
      const messages = conversation().slice(0, 3);
      const built = dialect.buildRequest({ model: 'gemini-2.5-flash', messages, tools });
      const parsed = dialect.parseRequest(built.body, { tools, toolCallIds: built.toolCallIds });
      const call = parsed.messages[2]!.role === 'assistant' ? parsed.messages[2]!.content[1] : undefined;
      assert.equal(call?.type === 'tool-call' ? call.id : undefined, ODD_ID);
      const decoded = decodeToolCall(call as Extract<typeof call, { type: 'tool-call' }>, tools);
      assert.equal(decoded.name, 'github.create_issue');
      assert.deepEqual(decoded.arguments, { title: 'Build fails', priority: 1 });
    });
  });
}
