import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeArguments } from '../src/decode-arguments.js';
import { compileTools, decodeToolCall, type ToolCallPart } from '../src/index.js';
import { representativeTools } from './helpers.js';

const call = (name: string, args: string, id = 'call_1'): ToolCallPart => ({
  type: 'tool-call',
  id,
  name,
  arguments: args,
});

describe('decodeToolCall', () => {
  const strict = compileTools(representativeTools(), { dialect: 'openai-chat', strict: true });
  const openapi = compileTools(representativeTools(), { dialect: 'gemini', geminiSchema: 'openapi' });

  it('turns null for an optional property back into absent after strict mode (null-for-optional)', () => {
    const decoded = decodeToolCall(call('read_file', '{"path":"a","offset":null,"limit":null}'), strict);
    assert.deepEqual(decoded.arguments, { path: 'a' });
    assert.deepEqual(decoded.changes, [
      { pointer: '/offset', action: 'null-to-absent' },
      { pointer: '/limit', action: 'null-to-absent' },
    ]);
  });

  it('keeps null for a property that was optional and already nullable', () => {
    const decoded = decodeToolCall(
      call('github.create_issue', '{"title":"t","assignee":null,"body":null}'),
      strict,
    );
    assert.deepEqual(decoded.arguments, { title: 't', assignee: null });
  });

  it('decodes nested objects behind $ref and array items', () => {
    const args = JSON.stringify({
      title: 't',
      body: null,
      labels: [
        { name: 'bug', color: null },
        { name: 'x', color: 'ff0000' },
      ],
      assignee: null,
      milestone: null,
      priority: null,
      due: null,
      url: null,
    });
    const decoded = decodeToolCall(call('github.create_issue', args), strict);
    assert.deepEqual(decoded.arguments, {
      title: 't',
      labels: [
        { name: 'bug', color: null },
        { name: 'x', color: 'ff0000' },
      ],
      assignee: null,
      milestone: null,
    });
  });

  it('decodes stringified enums and JSON-encoded strings sent through Gemini parameters', () => {
    const args = JSON.stringify({
      sql: 'select 1',
      params: '{"a":1,"b":"x"}',
      window: '[1,5]',
    });
    assert.deepEqual(decodeToolCall(call('db.query', args), openapi).arguments, {
      sql: 'select 1',
      params: { a: 1, b: 'x' },
      window: [1, 5],
    });
    const issue = decodeToolCall(call('github.create_issue', '{"title":"t","priority":"3"}'), openapi);
    assert.deepEqual(issue.arguments, { title: 't', priority: 3 });
    assert.deepEqual(issue.changes, [{ pointer: '/priority', action: 'enum-decoded' }]);
    const tree = decodeToolCall(
      call(
        'memory.create_entities',
        JSON.stringify({
          entities: [{ name: 'a', entityType: 't', children: ['{"name":"b","entityType":"t"}'] }],
        }),
      ),
      openapi,
    );
    assert.deepEqual(tree.arguments, {
      entities: [{ name: 'a', entityType: 't', children: [{ name: 'b', entityType: 't' }] }],
    });
  });

  it('leaves values that do not match alone for the validator', () => {
    const decoded = decodeToolCall(call('github.create_issue', '{"title":"t","priority":"9"}'), openapi);
    assert.deepEqual(decoded.arguments, { title: 't', priority: '9' });
    assert.deepEqual(decodeToolCall(call('db.query', '{"sql":"x","params":"not json"}'), openapi).arguments, {
      sql: 'x',
      params: 'not json',
    });
  });

  it('maps wire names back, passes unknown names through and keeps malformed arguments as text', () => {
    const byWire = decodeToolCall(call('slack_post_message_40a9e173', '{}'), strict);
    assert.equal(byWire.name, 'slack.post_message');
    assert.equal(byWire.known, true);
    const unknown = decodeToolCall(call('nope', '{"a":1}'), strict);
    assert.deepEqual([unknown.name, unknown.known, unknown.arguments], ['nope', false, { a: 1 }]);
    const malformed = decodeToolCall(call('read_file', '{"path": "a"'), strict);
    assert.equal(malformed.arguments, '{"path": "a"');
    assert.equal(decodeToolCall(call('read_file', '  '), strict).arguments instanceof Object, true);
  });

  it('unwraps the arguments of a tool whose scalar root was wrapped', () => {
    const compiled = compileTools([{ name: 'say', description: '', inputSchema: { type: 'string' } }], {
      dialect: 'anthropic',
    });
    const decoded = decodeToolCall(call('say', '{"input":"hello"}'), compiled);
    assert.equal(decoded.arguments, 'hello');
    assert.deepEqual(decoded.changes, [{ pointer: '', action: 'unwrapped' }]);
  });
});

describe('decodeArguments', () => {
  it('returns the arguments unchanged without a decoding and never mutates its input', () => {
    const input = Object.freeze({ a: null });
    assert.deepEqual(decodeArguments(input, undefined), { arguments: input, changes: [] });
    const decoded = decodeArguments(input, {
      schema: {
        type: 'object',
        properties: { a: { type: ['string', 'null'] } },
        'x-toolhost-absent-if-null': ['a'],
      },
    });
    assert.deepEqual(decoded.arguments, {});
    assert.deepEqual(input, { a: null });
  });
});
