import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DialectError } from '../src/index.js';
import {
  createNameMap,
  normalizeToolCallId,
  SAFE_TOOL_NAME_PATTERN,
  sanitizeToolName,
  TOOL_CALL_ID_RULES,
} from '../src/names.js';

describe('sanitizeToolName', () => {
  it('keeps valid names and replaces dots, slashes and colons', () => {
    assert.equal(sanitizeToolName('read_file'), 'read_file');
    assert.equal(sanitizeToolName('github.create_issue'), 'github_create_issue');
    assert.equal(sanitizeToolName('fs/read:all'), 'fs_read_all');
  });

  it('prefixes names that do not start with a letter or underscore, and names empty ones', () => {
    assert.equal(sanitizeToolName('1st'), '_1st');
    assert.equal(sanitizeToolName('-x'), '_-x');
    assert.match(sanitizeToolName(''), SAFE_TOOL_NAME_PATTERN);
  });

  it('cuts names over 64 characters and adds a hash of the original', () => {
    const name = `server.${'a'.repeat(80)}`;
    const wire = sanitizeToolName(name);
    assert.equal(wire.length, 64);
    assert.match(wire, SAFE_TOOL_NAME_PATTERN);
    assert.notEqual(sanitizeToolName(`${name}b`), wire);
    assert.equal(sanitizeToolName(name), wire, 'deterministic');
  });
});

describe('createNameMap', () => {
  it('hash-suffixes sanitised names that collide and keeps the valid one', () => {
    const map = createNameMap(['a.b', 'a_b', 'a/b']);
    assert.equal(map.toWire.a_b, 'a_b');
    assert.match(map.toWire['a.b']!, /^a_b_[0-9a-f]{8}$/);
    assert.match(map.toWire['a/b']!, /^a_b_[0-9a-f]{8}$/);
    assert.notEqual(map.toWire['a.b'], map.toWire['a/b']);
    assert.equal(map.fromWire[map.toWire['a/b']!], 'a/b');
  });

  it('handles names such as __proto__ and constructor as ordinary keys', () => {
    const map = createNameMap(['__proto__', 'constructor']);
    assert.equal(Object.hasOwn(map.toWire, '__proto__'), true);
    assert.equal(Object.getOwnPropertyDescriptor(map.toWire, '__proto__')?.value, '__proto__');
    assert.equal(map.fromWire.constructor as unknown, 'constructor');
  });

  it('throws CONFIG_INVALID for duplicate names', () => {
    assert.throws(
      () => createNameMap(['x', 'x']),
      (error) => DialectError.isInstance(error) && error.code === 'CONFIG_INVALID',
    );
  });
});

describe('normalizeToolCallId', () => {
  it('keeps valid ids and fits others to each dialect rule, distinct ids staying distinct', () => {
    assert.equal(
      normalizeToolCallId('toolu_01A09q90qw90lq917835lq9', 'anthropic'),
      'toolu_01A09q90qw90lq917835lq9',
    );
    const long = `fc_${'0123456789'.repeat(5)}`;
    const chat = normalizeToolCallId(long, 'openai-chat');
    assert.match(chat, TOOL_CALL_ID_RULES['openai-chat'].pattern);
    assert.equal(normalizeToolCallId(long, 'openai-responses'), long);
    const a = normalizeToolCallId('call:1', 'anthropic');
    const b = normalizeToolCallId('call/1', 'anthropic');
    assert.match(a, /^[a-zA-Z0-9_-]+$/);
    assert.notEqual(a, b);
    assert.equal(normalizeToolCallId('any id: fine', 'gemini'), 'any id: fine');
    assert.match(normalizeToolCallId('', 'anthropic'), /^call_[0-9a-f]{8}$/);
  });
});
