import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadedIn } from '../../../scripts/start-up-loading.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const LIBRARIES = ['diff', 'chardet', 'iconv-lite'];

describe('start-up loading (issue 25: cold start)', () => {
  it('importing the package loads neither diff nor chardet nor iconv-lite until a diff or a non-UTF-8 text needs them', () => {
    const before = loadedIn(packageDir, LIBRARIES, 'void pkg;');
    assert.deepEqual(before.esm, [], 'a library was imported at start-up');
    assert.deepEqual(before.cjs, [], 'a library was required at start-up');
    const changedLines = pathToFileURL(join(packageDir, 'src/changed-lines.ts')).href;
    const after = loadedIn(
      packageDir,
      LIBRARIES,
      `const { changedLineRanges } = await import(${JSON.stringify(changedLines)}); const ranges = changedLineRanges('a\\nb\\n', 'a\\nc\\n'); if (!ranges || ranges.length !== 1) throw new Error('no change found');`,
    );
    assert.ok(
      after.cjs.some((file) => file.includes('/diff/')),
      'the first diff loads the diff library',
    );
  });
});
