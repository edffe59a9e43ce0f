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
 * ES loader loads from re2js and which re2js files CommonJS required.
 */
function loadedIn(body: string): { esm: string[]; cjs: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'contracts-loading-'));
  try {
    writeFileSync(
      join(dir, 'hook.mjs'),
      `export async function load(url, context, next) {
  if (url.includes('/re2js/')) process.stderr.write('ESM ' + url + '\\n');
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
const contracts = await import(${JSON.stringify(pathToFileURL(join(packageDir, 'src/index.ts')).href)});
${body}
const cache = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/re2js/'));
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
  it('importing the package does not load the RE2JS engine until a pattern is compiled', () => {
    const before = loadedIn('void contracts;');
    assert.deepEqual(before.esm, [], 're2js was imported at start-up');
    assert.deepEqual(before.cjs, [], 're2js was required at start-up');
    const after = loadedIn(
      "const compiled = contracts.compileLinearRegExp('a+b'); if (!compiled.ok || !compiled.value.test('xaab')) throw new Error('the pattern did not work');",
    );
    assert.ok(after.cjs.length > 0, 'the first compile loads re2js');
  });
});
