import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as contracts from '@toolhost/contracts';
import * as common from '../src/schema-common.js';

// Issue 24: the keyword tables of contracts and provider-dialects had drifted (contracts also listed
// `items` as an array keyword). There is one table now, and it is contracts'.
describe('the JSON Schema keyword table of the dialects', () => {
  it('is the very table of @toolhost/contracts, not a copy that can drift', () => {
    assert.equal(common.SINGLE_SCHEMA_KEYWORDS, contracts.SINGLE_SCHEMA_KEYWORDS);
    assert.equal(common.SCHEMA_ARRAY_KEYWORDS, contracts.SCHEMA_ARRAY_KEYWORDS);
    assert.equal(common.SCHEMA_MAP_KEYWORDS, contracts.SCHEMA_MAP_KEYWORDS);
  });
});
