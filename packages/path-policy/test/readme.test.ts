import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useSandbox } from './helpers.js';

const packageDir = path.resolve(import.meta.dirname, '..');

describe('README.md', () => {
  const sandbox = useSandbox();

  it('has a five-line example that runs as written', () => {
    const readme = readFileSync(path.join(packageDir, 'README.md'), 'utf8');
    const example = /## Example\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(example, 'no example block');
    assert.equal(example.trimEnd().split('\n').length, 5);
    const script = path.join(sandbox.dir, 'example.ts');
    writeFileSync(
      script,
      example.replace("'@toolhost/path-policy'", JSON.stringify(path.join(packageDir, 'src/index.ts'))),
    );
    const child = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), script], {
      cwd: sandbox.dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stderr, /^PATH_OUTSIDE_ROOT The path is outside the project root/);
  });
});
