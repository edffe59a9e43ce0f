import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprint } from '../src/fingerprint.js';
import { compileTools, DIALECT_NAMES, fingerprintValue, getDialect, type Message } from '../src/index.js';
import { representativeTools } from './helpers.js';

describe('fingerprint', () => {
  it('stays the same across turns and changes when the tools or system prompt change', () => {
    for (const name of DIALECT_NAMES) {
      const dialect = getDialect(name);
      const tools = dialect.compileTools(representativeTools());
      const base: Message[] = [
        { role: 'system', content: 'Rules.' },
        { role: 'user', content: 'First.' },
      ];
      const first = dialect.buildRequest({ model: 'm', messages: base, tools });
      const later = dialect.buildRequest({
        model: 'm',
        messages: [
          ...base,
          { role: 'assistant', content: [{ type: 'text', text: 'Ok.' }] },
          { role: 'user', content: 'Second.' },
        ],
        tools: dialect.compileTools([...representativeTools()].reverse()),
      });
      assert.deepEqual(
        fingerprint(later.body, name),
        fingerprint(first.body, name),
        `${name}: stable prefix`,
      );
      const fewer = dialect.buildRequest({
        model: 'm',
        messages: base,
        tools: dialect.compileTools(representativeTools().slice(1)),
      });
      const changed = fingerprint(fewer.body, name);
      assert.notEqual(changed.prefix, fingerprint(first.body, name).prefix);
      assert.equal(changed.system, fingerprint(first.body, name).system);
      const otherSystem = dialect.buildRequest({
        model: 'm',
        messages: [{ role: 'system', content: 'Other.' }, base[1]!],
        tools,
      });
      assert.notEqual(fingerprint(otherSystem.body, name).system, fingerprint(first.body, name).system);
      assert.equal(dialect.fingerprint(first.body).prefix, fingerprint(first.body, name).prefix);
    }
  });

  it('hashes exact bytes to 16 hex characters', () => {
    assert.match(fingerprintValue({ a: 1 }), /^[0-9a-f]{16}$/);
    assert.notEqual(fingerprintValue({ a: 1, b: 2 }), fingerprintValue({ b: 2, a: 1 }));
    assert.equal(compileTools([], { dialect: 'anthropic' }).tools.length, 0);
  });
});
