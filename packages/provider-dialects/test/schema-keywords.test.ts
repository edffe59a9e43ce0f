import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as contracts from '@toolhost/contracts';
import * as common from '../src/schema-common.js';

// Issue 24: the keyword tables of contracts and provider-dialects had drifted (contracts also listed
// `items` as an array keyword). provider-dialects imports only types from contracts (the package DAG),
// so it keeps its own copy, and this test keeps the two tables equal.
describe('the JSON Schema keyword table of the dialects', () => {
  it('equals the table of @toolhost/contracts, keyword for keyword, so the two cannot drift', () => {
    assert.deepEqual(common.SINGLE_SCHEMA_KEYWORDS, contracts.SINGLE_SCHEMA_KEYWORDS);
    assert.deepEqual(common.SCHEMA_ARRAY_KEYWORDS, contracts.SCHEMA_ARRAY_KEYWORDS);
    assert.deepEqual(common.SCHEMA_MAP_KEYWORDS, contracts.SCHEMA_MAP_KEYWORDS);
  });
});
