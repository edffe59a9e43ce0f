import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalizeSchema } from '../src/index.js';
import {
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
  TUPLE_ITEMS_KEYWORD,
} from '../src/schema-keywords.js';

// One JSON Schema keyword table for contracts and provider-dialects. The two copies had drifted:
// contracts listed `items` as an array-of-schemas keyword as well, provider-dialects did not. The
// table follows draft 2020-12 (provider-dialects was right): `items` holds one schema; its draft-07
// tuple form is the one special case, walked element by element.
describe('the JSON Schema keyword table', () => {
  it('lists items as a one-schema keyword only, with its tuple form as the named special case', () => {
    assert.ok((SINGLE_SCHEMA_KEYWORDS as readonly string[]).includes('items'));
    assert.ok(!(SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes('items'));
    assert.ok(!(SCHEMA_MAP_KEYWORDS as readonly string[]).includes('items'));
    assert.equal(TUPLE_ITEMS_KEYWORD, 'items');
    const all = [...SINGLE_SCHEMA_KEYWORDS, ...SCHEMA_ARRAY_KEYWORDS, ...SCHEMA_MAP_KEYWORDS];
    assert.equal(new Set(all).size, all.length, 'no keyword in two lists');
  });

  it('canonicalises a one-schema items and a draft-07 tuple items array as schemas', () => {
    const item = { type: 'object', required: ['b', 'a'], properties: { required: { type: 'string' } } };
    const one = canonicalizeSchema({ type: 'object', properties: { list: { type: 'array', items: item } } });
    const tuple = canonicalizeSchema({
      type: 'object',
      properties: { pair: { type: 'array', items: [item, { type: 'string' }] } },
    });
    const canonicalItem = {
      properties: { required: { type: 'string' } },
      required: ['a', 'b'],
      type: 'object',
    };
    assert.deepEqual((one.properties as Record<string, { items: unknown }>).list?.items, canonicalItem);
    assert.deepEqual((tuple.properties as Record<string, { items: unknown }>).pair?.items, [
      canonicalItem,
      { type: 'string' },
    ]);
  });
});
