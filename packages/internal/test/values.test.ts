import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { errorMessage } from '../src/error-message.js';
import { isJsonObject, isObject } from '../src/json.js';
import {
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
  TUPLE_ITEMS_KEYWORD,
} from '../src/schema-keywords.js';
import { sha256Hex } from '../src/sha256.js';

describe('JSON guards, hashes and messages', () => {
  it('INT-JSON-1: only objects that are neither arrays nor null pass', () => {
    for (const value of [{}, { a: 1 }, Object.create(null)]) {
      assert.equal(isObject(value), true);
      assert.equal(isJsonObject(value), true);
    }
    for (const value of [null, undefined, [], [1], 'x', 1, true, () => {}]) {
      assert.equal(isObject(value), false, String(value));
      assert.equal(isJsonObject(value), false, String(value));
    }
  });

  it('INT-HASH-1: sha256Hex hashes the UTF-8 bytes', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(
      sha256Hex('é'),
      createHash('sha256')
        .update(Buffer.from([0xc3, 0xa9]))
        .digest('hex'),
    );
  });

  it('INT-ERR-1: errorMessage reads an Error and stringifies anything else', () => {
    assert.equal(errorMessage(new TypeError('bad input')), 'bad input');
    assert.equal(errorMessage('plain'), 'plain');
    assert.equal(errorMessage(42), '42');
    assert.equal(errorMessage(undefined), 'undefined');
  });
});

// Issue 24: the tables of contracts and provider-dialects had drifted (one listed `items` as an array
// keyword). There is one table now; both packages re-export it.
describe('the JSON Schema keyword table', () => {
  it('INT-KW-1: items is a one-schema keyword, not an array keyword, and no keyword is in two lists', () => {
    assert.ok((SINGLE_SCHEMA_KEYWORDS as readonly string[]).includes('items'));
    assert.ok(!(SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes('items'));
    assert.equal(TUPLE_ITEMS_KEYWORD, 'items');
    const all = [...SINGLE_SCHEMA_KEYWORDS, ...SCHEMA_ARRAY_KEYWORDS, ...SCHEMA_MAP_KEYWORDS];
    assert.equal(new Set(all).size, all.length);
    assert.deepEqual([...SCHEMA_ARRAY_KEYWORDS], ['allOf', 'anyOf', 'oneOf', 'prefixItems']);
  });
});
