import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  incompleteUtf8Tail,
  isUtf8Continuation,
  leadingContinuationBytes,
  utf8BoundaryAfter,
  utf8BoundaryBefore,
  utf8Prefix,
} from '../src/utf8.js';

// 'a' (1 byte), 'é' (2), '€' (3), '😀' (4): every width of a UTF-8 character.
const TEXT = 'aé€😀';
const BYTES = Buffer.from(TEXT, 'utf8');
const BOUNDARIES = [0, 1, 3, 6, 10];

describe('UTF-8 boundaries', () => {
  it('INT-UTF8-1: a cut at any index moves to the nearest boundary before or after it', () => {
    for (let index = -2; index <= BYTES.length + 2; index++) {
      const before = utf8BoundaryBefore(BYTES, index);
      const after = utf8BoundaryAfter(BYTES, index);
      assert.ok(BOUNDARIES.includes(before), `before(${index}) = ${before}`);
      assert.ok(BOUNDARIES.includes(after), `after(${index}) = ${after}`);
      const clamped = Math.min(Math.max(index, 0), BYTES.length);
      assert.equal(before, Math.max(...BOUNDARIES.filter((at) => at <= clamped)));
      assert.equal(after, Math.min(...BOUNDARIES.filter((at) => at >= clamped)));
      // Both halves of a cut there decode without a replacement character.
      assert.equal(
        BYTES.subarray(0, before).toString('utf8') + BYTES.subarray(before).toString('utf8'),
        TEXT,
      );
    }
    assert.equal(isUtf8Continuation(undefined), false);
    assert.equal(isUtf8Continuation(0x80), true);
    assert.equal(isUtf8Continuation(0xc3), false);
  });

  it('INT-UTF8-2: utf8Prefix keeps the longest whole-character prefix within the budget', () => {
    assert.equal(utf8Prefix(TEXT, 0), '');
    assert.equal(utf8Prefix(TEXT, -5), '');
    assert.equal(utf8Prefix(TEXT, 1), 'a');
    assert.equal(utf8Prefix(TEXT, 2), 'a');
    assert.equal(utf8Prefix(TEXT, 3), 'aé');
    assert.equal(utf8Prefix(TEXT, 9), 'aé€');
    assert.equal(utf8Prefix(TEXT, 10), TEXT);
    assert.equal(utf8Prefix(TEXT, 1_000), TEXT);
    assert.equal(utf8Prefix(TEXT, 5.9), 'aé');
  });

  it('INT-UTF8-3: the unfinished character at the end and the cut one at the start are counted', () => {
    const euro = Buffer.from('€', 'utf8');
    const emoji = Buffer.from('😀', 'utf8');
    assert.equal(incompleteUtf8Tail(Buffer.alloc(0)), 0);
    assert.equal(incompleteUtf8Tail(BYTES), 0);
    assert.equal(incompleteUtf8Tail(Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)])), 1);
    assert.equal(incompleteUtf8Tail(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)])), 2);
    assert.equal(incompleteUtf8Tail(emoji.subarray(0, 3)), 3);
    assert.equal(incompleteUtf8Tail(emoji), 0);
    // Only continuation bytes: no lead to finish, nothing to hold back.
    assert.equal(incompleteUtf8Tail(Buffer.from([0x80, 0x80])), 0);
    assert.equal(leadingContinuationBytes(emoji.subarray(1)), 3);
    assert.equal(leadingContinuationBytes(euro.subarray(2)), 1);
    assert.equal(leadingContinuationBytes(BYTES), 0);
    assert.equal(leadingContinuationBytes(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x41])), 3);
  });
});
