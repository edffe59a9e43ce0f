// Regenerates test/golden/*.json from test/fixtures/representative-tools.json:
//   pnpm --filter @toolhost/provider-dialects gen:golden
// test/golden.test.ts fails when the committed files differ from what the compiler produces now.
import { mkdirSync, writeFileSync } from 'node:fs';
import { GOLDEN_VARIANTS, goldenText } from '../test/golden-cases.js';
import { testPath } from '../test/helpers.js';

mkdirSync(testPath('golden'), { recursive: true });
for (const variant of GOLDEN_VARIANTS) {
  writeFileSync(testPath('golden', variant.file), goldenText(variant.options));
  console.log(`wrote test/golden/${variant.file}`);
}
