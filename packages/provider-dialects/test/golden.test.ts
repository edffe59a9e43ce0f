import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { GOLDEN_VARIANTS, goldenText } from './golden-cases.js';
import { testPath } from './helpers.js';

describe('compileTools (golden files)', () => {
  for (const variant of GOLDEN_VARIANTS) {
    it(`matches test/golden/${variant.file} (regenerate with pnpm --filter @toolhost/provider-dialects gen:golden)`, () => {
      const committed = readFileSync(testPath('golden', variant.file), 'utf8');
      assert.equal(goldenText(variant.options), committed);
    });
  }
});
