import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `body` (an ES module) in a fresh Node with the package's sources, recording every module the
 * ES loader loads from diff, chardet and iconv-lite, and which of their files CommonJS required.
 */
function loadedIn(body: string): { esm: string[]; cjs: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'read-evidence-loading-'));
  try {
    writeFileSync(
      join(dir, 'hook.mjs'),
      `export async function load(url, context, next) {
  if (['/diff/', '/chardet/', '/iconv-lite/'].some((name) => url.includes(name))) process.stderr.write('ESM ' + url + '\\n');
  return next(url, context);
}
`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`,
    );
    const script = join(dir, 'main.mts');
    writeFileSync(
      script,
      `import { createRequire } from 'node:module';
const evidence = await import(${JSON.stringify(pathToFileURL(join(packageDir, 'src/index.ts')).href)});
${body}
const cache = Object.keys(createRequire(import.meta.url).cache).filter((file) => ['/diff/', '/chardet/', '/iconv-lite/'].some((name) => file.includes(name)));
process.stdout.write(JSON.stringify(cache));
`,
    );
    const child = spawnSync(
      process.execPath,
      ['--import', pathToFileURL(join(dir, 'register.mjs')).href, '--import', 'tsx', script],
      { cwd: packageDir, encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(child.status, 0, `the child failed: ${child.stderr}`);
    const esm = child.stderr
      .split('\n')
      .filter((line) => line.startsWith('ESM '))
      .map((line) => line.slice(4));
    return { esm, cjs: JSON.parse(child.stdout) as string[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('start-up loading (issue 25: cold start)', () => {
  it('importing the package loads neither diff nor chardet nor iconv-lite until a diff or a non-UTF-8 text needs them', () => {
    const before = loadedIn('void evidence;');
    assert.deepEqual(before.esm, [], 'a library was imported at start-up');
    assert.deepEqual(before.cjs, [], 'a library was required at start-up');
    const changedLines = pathToFileURL(join(packageDir, 'src/changed-lines.ts')).href;
    const after = loadedIn(
      `const { changedLineRanges } = await import(${JSON.stringify(changedLines)}); const ranges = changedLineRanges('a\\nb\\n', 'a\\nc\\n'); if (!ranges || ranges.length !== 1) throw new Error('no change found');`,
    );
    assert.ok(
      after.cjs.some((file) => file.includes('/diff/')),
      'the first diff loads the diff library',
    );
  });
});
