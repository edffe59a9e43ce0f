import assert from 'node:assert/strict';
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPathPolicy } from '../src/index.js';
import { buildTree, listTree, useSandbox } from './helpers.js';

describe('PathPolicy.verifyWriteTarget', () => {
  const sandbox = useSandbox();
  const setup = () => {
    buildTree(sandbox.dir, { 'proj/src/a.ts': 'a', 'outside/keep.txt': 'keep' });
    const root = path.join(sandbox.dir, 'proj');
    return { root, policy: createPathPolicy({ mode: 'current_project', root }) };
  };
  const resolved = (policy: ReturnType<typeof setup>['policy'], input: string) => {
    const result = policy.resolve(input, { access: 'write' });
    assert.ok(result.ok, input);
    return result.path;
  };

  it('accepts freshly resolved targets: existing, new, and below missing directories (PP-WRITE-1)', () => {
    const { policy, root } = setup();
    assert.deepEqual(policy.verifyWriteTarget(resolved(policy, 'src/a.ts')), {
      ok: true,
      path: path.join(root, 'src/a.ts'),
      displayPath: 'src/a.ts',
      exists: true,
    });
    const fresh = policy.verifyWriteTarget(resolved(policy, 'src/b.ts'));
    assert.equal(fresh.ok && fresh.exists, false);
    const nested = policy.verifyWriteTarget(resolved(policy, 'new/deep/c.ts'));
    assert.equal(nested.ok && nested.displayPath, 'new/deep/c.ts');
  });

  it('refuses when a directory on the way became a link to outside after resolve (PP-WRITE-2)', () => {
    const { policy, root } = setup();
    const target = resolved(policy, 'src/b.ts');
    // Swap: move src away and put a link to outside in its place.
    renameSync(path.join(root, 'src'), path.join(root, 'src-moved'));
    symlinkSync(path.join(sandbox.dir, 'outside'), path.join(root, 'src'));
    const result = policy.verifyWriteTarget(target);
    assert.equal(!result.ok && result.error.code, 'PATH_INVALID');
    assert.equal(!result.ok && result.error.reason, 'changed_since_check');
    assert.match(!result.ok ? result.error.message : '', /a directory on the way is now a symbolic link/);
    assert.deepEqual(listTree(path.join(sandbox.dir, 'outside')), ['keep.txt']);
  });

  it('refuses when a link inside the root replaced a directory on the way (PP-WRITE-2)', () => {
    const { policy, root } = setup();
    mkdirSync(path.join(root, 'lib'));
    const target = resolved(policy, 'lib/x.ts');
    rmSync(path.join(root, 'lib'), { recursive: true });
    symlinkSync('src', path.join(root, 'lib'));
    // Even a link that stays inside means the path is no longer the real one that was checked.
    const result = policy.verifyWriteTarget(target);
    assert.equal(!result.ok && result.error.reason, 'changed_since_check');
  });

  it('refuses when a missing directory on the way appeared as a dangling link (PP-WRITE-2)', () => {
    const { policy, root } = setup();
    const target = resolved(policy, 'gen/out/file.ts');
    symlinkSync(path.join(sandbox.dir, 'outside/gen'), path.join(root, 'gen'));
    const result = policy.verifyWriteTarget(target);
    assert.equal(!result.ok && result.error.reason, 'changed_since_check');
    assert.match(
      !result.ok ? result.error.message : '',
      /a missing directory on the way is now a symbolic link/,
    );
    assert.equal(existsSync(path.join(sandbox.dir, 'outside/gen')), false);
  });

  it('refuses when the final name became a symbolic link (PP-WRITE-3)', () => {
    const { policy, root } = setup();
    const fresh = resolved(policy, 'src/b.ts');
    symlinkSync(path.join(sandbox.dir, 'outside/planted.txt'), path.join(root, 'src/b.ts'));
    const result = policy.verifyWriteTarget(fresh);
    assert.equal(!result.ok && result.error.reason, 'changed_since_check');
    assert.match(!result.ok ? result.error.message : '', /the final name is now a symbolic link/);
    const existing = resolved(policy, 'src/a.ts');
    rmSync(existing);
    symlinkSync('../src-other.ts', existing);
    assert.equal(policy.verifyWriteTarget(existing).ok, false);
  });

  it('refuses paths that did not come from resolve, outside paths and protected paths (PP-WRITE-4)', () => {
    const { policy, root } = setup();
    for (const bad of ['src/a.ts', `${root}/src/../src/a.ts`, `${root}/src/`, `${root}//src/a.ts`]) {
      const result = policy.verifyWriteTarget(bad);
      assert.equal(!result.ok && result.error.reason, 'not_canonical', bad);
    }
    const outside = policy.verifyWriteTarget(path.join(sandbox.dir, 'outside/keep.txt'));
    assert.equal(!outside.ok && outside.error.code, 'PATH_OUTSIDE_ROOT');
    const guarded = policy.verifyWriteTarget(path.join(root, '.git/config'));
    assert.equal(!guarded.ok && guarded.error.code, 'PATH_PROTECTED');
    const secret = policy.verifyWriteTarget(path.join(root, '.env'));
    assert.equal(!secret.ok && secret.error.reason, 'secret');
  });

  it('makes the same checks for readers with verifyTarget (PP-WRITE-5)', () => {
    const { policy, root } = setup();
    const target = resolved(policy, 'src/a.ts');
    assert.deepEqual(policy.verifyTarget(target, 'read'), policy.verifyWriteTarget(target));
    assert.equal(policy.verifyTarget(path.join(root, '.git/config'), 'read').ok, true);
    assert.equal(policy.verifyTarget(path.join(root, '.git/config'), 'write').ok, false);
    assert.equal(policy.verifyTarget(path.join(root, '.env'), 'list').ok, false);
    renameSync(path.join(root, 'src'), path.join(root, 'src-moved'));
    symlinkSync(path.join(sandbox.dir, 'outside'), path.join(root, 'src'));
    const swapped = policy.verifyTarget(target, 'read');
    assert.equal(!swapped.ok && swapped.error.reason, 'changed_since_check');
    assert.match(!swapped.ok ? swapped.error.message : '', /nothing was opened/);
  });

  it('lets a writer that follows the contract write only inside (PP-WRITE-1, PP-WRITE-3)', () => {
    const { policy, root } = setup();
    const target = resolved(policy, 'out/new.txt');
    const verdict = policy.verifyWriteTarget(target);
    assert.ok(verdict.ok);
    mkdirSync(path.dirname(verdict.path), { recursive: true });
    assert.equal(policy.verifyWriteTarget(target).ok, true);
    writeFileSync(verdict.path, 'hello', { flag: 'wx' });
    assert.equal(existsSync(path.join(root, 'out/new.txt')), true);
  });
});
