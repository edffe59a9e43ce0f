import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  boundedText,
  editDistance,
  errorMessage,
  firstLine,
  isObject,
  isUtf8Continuation,
  utf8BoundaryAfter,
  utf8BoundaryBefore,
} from '../src/index.js';

// The small helpers every package shares (issue 24, "helpers once"): each is written here once.
describe('errorMessage', () => {
  it('gives an Error its message and anything else its String form', () => {
    assert.equal(errorMessage(new TypeError('bad input')), 'bad input');
    assert.equal(errorMessage('plain text'), 'plain text');
    assert.equal(errorMessage(42), '42');
    assert.equal(errorMessage(undefined), 'undefined');
    assert.equal(errorMessage({ toString: () => 'custom' }), 'custom');
  });
});

describe('boundedText and firstLine', () => {
  it('keeps text of at most max code units and cuts longer text to max - 3 plus "..."', () => {
    assert.equal(boundedText('a'.repeat(128)), 'a'.repeat(128));
    assert.equal(boundedText('a'.repeat(129)), `${'a'.repeat(125)}...`);
    assert.equal(boundedText('abcdefgh', 6), 'abc...');
    assert.equal(boundedText('abcdef', 6), 'abcdef');
  });

  it('takes the text before the first line feed, or all of it', () => {
    assert.equal(firstLine('one\ntwo\nthree'), 'one');
    assert.equal(firstLine('no line feed'), 'no line feed');
    assert.equal(firstLine('\nleading'), '');
  });
});

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('read_file', 'read_file'), 0);
    assert.equal(editDistance('read_fiel', 'read_file'), 2);
  });

  it('gives up past max with max + 1, and agrees with the full distance within it', () => {
    assert.equal(editDistance('abcdef', 'uvwxyz', 2), 3);
    assert.equal(editDistance('a', 'abcdefgh', 2), 3);
    for (const [a, b] of [
      ['grep', 'grpe'],
      ['job_output', 'job_outptu'],
      ['ls', 'lx'],
    ] as const) {
      assert.equal(editDistance(a, b, 5), editDistance(a, b));
    }
  });
});

describe('isObject', () => {
  it('is true for plain objects only: not arrays, not null, not primitives', () => {
    assert.equal(isObject({}), true);
    assert.equal(isObject({ a: 1 }), true);
    assert.equal(isObject([]), false);
    assert.equal(isObject(null), false);
    assert.equal(isObject('x'), false);
    assert.equal(isObject(undefined), false);
  });
});

describe('utf8BoundaryBefore and utf8BoundaryAfter', () => {
  it('move off continuation bytes to the start of a character (back or forward), and clamp the index', () => {
    const bytes = Buffer.from('a€b', 'utf8'); // 61 e2 82 ac 62
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((index) => utf8BoundaryBefore(bytes, index)),
      [0, 1, 1, 1, 4, 5],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((index) => utf8BoundaryAfter(bytes, index)),
      [0, 1, 4, 4, 4, 5],
    );
    assert.equal(utf8BoundaryAfter(bytes, 99), 5);
    assert.equal(utf8BoundaryBefore(bytes, -3), 0);
    assert.equal(utf8BoundaryBefore(bytes, 99), 5);
    assert.equal(isUtf8Continuation(0x82), true);
    assert.equal(isUtf8Continuation(0xe2), false);
    assert.equal(isUtf8Continuation(undefined), false);
  });
});
