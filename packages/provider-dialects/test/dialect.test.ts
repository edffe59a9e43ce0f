import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDialectName } from '../src/dialect.js';
import { DIALECT_NAMES, DialectError, getDialect } from '../src/index.js';

describe('getDialect', () => {
  it('returns the uniform interface for each of the four dialects', () => {
    for (const name of DIALECT_NAMES) {
      const dialect = getDialect(name);
      assert.equal(dialect.name, name);
      for (const member of [
        'compileTools',
        'buildRequest',
        'parseResponse',
        'createStreamParser',
        'parseRequest',
        'encodeToolResult',
        'decodeToolCall',
        'validateForProvider',
        'fingerprint',
      ] as const) {
        assert.equal(typeof dialect[member], 'function', `${name}.${member}`);
      }
      assert.equal(dialect.compileTools([]).dialect, name);
      assert.ok(Object.isFrozen(dialect));
    }
    assert.equal(isDialectName('gemini'), true);
    assert.equal(isDialectName('openai'), false);
  });

  it('throws CONFIG_INVALID naming the valid dialects for an unknown name', () => {
    assert.throws(
      () => getDialect('openai'),
      (error) =>
        DialectError.isInstance(error) &&
        error.code === 'CONFIG_INVALID' &&
        error.message.includes('openai-chat, openai-responses'),
    );
  });
});
