import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadedIn } from '../../../scripts/start-up-loading.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const LIBRARIES = ['re2js'];

describe('start-up loading (issue 25: cold start)', () => {
  it('importing the package does not load the RE2JS engine until a pattern is compiled', () => {
    const before = loadedIn(packageDir, LIBRARIES, 'void pkg;');
    assert.deepEqual(before.esm, [], 're2js was imported at start-up');
    assert.deepEqual(before.cjs, [], 're2js was required at start-up');
    const after = loadedIn(
      packageDir,
      LIBRARIES,
      "const compiled = pkg.compileLinearRegExp('a+b'); if (!compiled.ok || !compiled.value.test('xaab')) throw new Error('the pattern did not work');",
    );
    assert.ok(after.cjs.length > 0, 'the first compile loads re2js');
  });
});
