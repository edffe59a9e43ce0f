import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPathPolicy, relativeDisplayPath } from '../src/index.js';
import { buildTree, useSandbox } from './helpers.js';

describe('PathPolicy display paths', () => {
  const sandbox = useSandbox();
  const tree = {
    'proj/src/a.ts': 'a',
    'proj/tests/fixtures/f.txt': 'f',
    'work/shared/fixtures/f.txt': 'other f',
    'elsewhere/x.txt': 'x',
  };

  it('shows paths relative to the project root with / and . for the root (PP-DISP-1)', () => {
    buildTree(sandbox.dir, tree);
    const root = path.join(sandbox.dir, 'proj');
    const policy = createPathPolicy({ mode: 'current_project', root });
    const cases: Array<[string | undefined, string]> = [
      [undefined, '.'],
      ['.', '.'],
      ['src', 'src'],
      ['src/a.ts', 'src/a.ts'],
      ['tests/fixtures/f.txt', 'tests/fixtures/f.txt'],
      [path.join(root, 'src'), 'src'],
    ];
    for (const [input, display] of cases) {
      const result = policy.resolve(input, { access: 'read' });
      assert.equal(result.ok && result.displayPath, display, String(input));
    }
  });

  it('keeps display paths unambiguous across several roots, and they resolve back (PP-DISP-2)', () => {
    buildTree(sandbox.dir, tree);
    const first = path.join(sandbox.dir, 'proj/tests');
    const second = path.join(sandbox.dir, 'work/shared');
    const policy = createPathPolicy({ mode: 'allowed_roots', allowedRoots: [first, second] });
    const mine = policy.resolve('fixtures/f.txt', { access: 'read' });
    const theirs = policy.resolve(path.join(second, 'fixtures/f.txt'), { access: 'read' });
    assert.ok(mine.ok && theirs.ok);
    assert.equal(mine.displayPath, 'fixtures/f.txt');
    assert.equal(theirs.displayPath, '../../work/shared/fixtures/f.txt');
    assert.notEqual(mine.displayPath, theirs.displayPath);
    for (const result of [mine, theirs]) {
      const again = policy.resolve(result.displayPath, { access: 'read' });
      assert.equal(again.ok && again.path, result.path);
    }
    assert.equal(policy.displayPathOf(second), '../../work/shared');
  });

  it('shows a nested second root relative to the first (PP-DISP-2)', () => {
    buildTree(sandbox.dir, tree);
    const root = path.join(sandbox.dir, 'proj');
    const policy = createPathPolicy({
      mode: 'allowed_roots',
      allowedRoots: [root, path.join(root, 'tests')],
    });
    const result = policy.resolve(path.join(root, 'tests/fixtures/f.txt'), { access: 'read' });
    assert.equal(result.ok && result.displayPath, 'tests/fixtures/f.txt');
  });

  it('shows an absolute path only in danger_full_access outside every root (PP-DISP-3)', () => {
    buildTree(sandbox.dir, tree);
    const root = path.join(sandbox.dir, 'proj');
    const danger = createPathPolicy({ mode: 'danger_full_access', root });
    const outside = danger.resolve('../elsewhere/x.txt', { access: 'read' });
    assert.equal(outside.ok && outside.displayPath, path.join(sandbox.dir, 'elsewhere/x.txt'));
    const inside = danger.resolve(path.join(root, 'src/a.ts'), { access: 'read' });
    assert.equal(inside.ok && inside.displayPath, 'src/a.ts');
    assert.equal(danger.displayPathOf('/'), '/');
    const confined = createPathPolicy({ mode: 'current_project', root });
    assert.equal(path.isAbsolute(confined.displayPathOf(path.join(root, 'src/a.ts'))), false);
  });

  it('answers the pure helpers without touching the disk, in agreement with resolve (PP-DISP-4)', () => {
    buildTree(sandbox.dir, tree);
    const root = path.join(sandbox.dir, 'proj');
    const policy = createPathPolicy({ mode: 'current_project', root });
    // None of these exist; pure helpers must not care.
    assert.equal(policy.displayPathOf(path.join(root, 'ghost/dir/file.ts')), 'ghost/dir/file.ts');
    assert.equal(policy.displayPathOf(root), '.');
    assert.equal(policy.contains(path.join(root, 'ghost')), true);
    assert.equal(policy.contains(path.join(sandbox.dir, 'ghost')), false);
    assert.equal(policy.allows(path.join(sandbox.dir, 'ghost'), 'read'), false);
    assert.equal(policy.allows(path.join(root, 'ghost'), 'write'), true);
    for (const input of ['src/a.ts', 'src', 'tests/fixtures/f.txt', 'new/file.ts']) {
      const result = policy.resolve(input, { access: 'write' });
      assert.ok(result.ok);
      assert.equal(policy.displayPathOf(result.path), result.displayPath);
      assert.equal(policy.contains(result.path), true);
      assert.equal(policy.allows(result.path, 'write'), true);
    }
  });

  it('computes relative display forms by whole names (PP-DISP-1, PP-DISP-2)', () => {
    assert.equal(relativeDisplayPath('/p', '/p', { platform: 'posix' }), '.');
    assert.equal(relativeDisplayPath('/p', '/p/a/b', { platform: 'posix' }), 'a/b');
    assert.equal(relativeDisplayPath('/p/q', '/p/r/s', { platform: 'posix' }), '../r/s');
    assert.equal(relativeDisplayPath('/p', '/p-evil/x', { platform: 'posix' }), '../p-evil/x');
    assert.equal(relativeDisplayPath('/p', '/P/x', { platform: 'posix', caseSensitive: true }), '../P/x');
    assert.equal(relativeDisplayPath('/p', '/P/x', { platform: 'posix', caseSensitive: false }), 'x');
  });
});
