import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { driftedSchemaModules, packageSchemaModules } from '../../../scripts/schema-gen.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('generated argument schemas', () => {
  it('match the TypeScript argument types they were generated from', () => {
    const drifted = driftedSchemaModules(packageDir);
    assert.deepEqual(
      drifted,
      [],
      `argument schemas drifted from their TypeScript types: run \`pnpm --filter @toolhost/builtins gen:schemas\` and commit ${drifted.join(', ')}`,
    );
  });

  it('exist for every area that declares argument types', () => {
    for (const pair of packageSchemaModules(packageDir))
      assert.match(pair.outFile, /-schemas\.generated\.ts$/);
  });
});
