import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { utf8Prefix } from '../src/utf8-prefix.js';

describe('utf8Prefix', () => {
  it('keeps the longest whole-character prefix within the byte limit', () => {
    const cases: [string, number, string][] = [
      ['hello', 10, 'hello'],
      ['hello', 5, 'hello'],
      ['hello', 3, 'hel'],
      ['héllo', 2, 'h'], // é is two bytes: cutting inside it backs off
      ['héllo', 3, 'hé'],
      ['日本語', 4, '日'],
      ['日本語', 6, '日本'],
      ['a😀b', 4, 'a'], // a four-byte character is never split into surrogates
      ['a😀b', 5, 'a😀'],
      ['x', 0, ''],
      ['', 4, ''],
    ];
    for (const [text, limit, expected] of cases) {
      const prefix = utf8Prefix(text, limit);
      assert.equal(prefix, expected, `${JSON.stringify(text)} within ${limit}`);
      assert.ok(Buffer.byteLength(prefix, 'utf8') <= Math.max(0, limit));
      assert.ok(text.startsWith(prefix));
    }
  });
});
