import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadedIn } from '../../../scripts/start-up-loading.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const LIBRARIES = ['diff', 'chardet', 'iconv-lite'];

describe('start-up loading (issue 25: cold start)', () => {
  it('importing the built-in tools loads neither diff nor chardet nor iconv-lite before a tool needs them', () => {
    const loaded = loadedIn(packageDir, LIBRARIES, 'void pkg;');
    assert.deepEqual(loaded.esm, [], 'a library was imported at start-up');
    assert.deepEqual(loaded.cjs, [], 'a library was required at start-up');
  });
});
