import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { driftedSchemaModules, packageSchemaModules } from '../../../scripts/schema-gen.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('generated argument schemas', () => {
  it('match the TypeScript argument types they were generated from', () => {
    const drifted = driftedSchemaModules(packageDir);
    assert.deepEqual(
      drifted,
      [],
      `argument schemas drifted from their TypeScript types: run \`pnpm --filter @toolhost/capability-proxy gen:schemas\` and commit ${drifted.join(', ')}`,
    );
  });

  it('exist for the capability argument types', () => {
    assert.deepEqual(
      packageSchemaModules(packageDir).map((pair) => pair.outFile.split('/').pop()),
      ['capability-schemas.generated.ts'],
    );
  });
});
