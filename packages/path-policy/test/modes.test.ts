import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPathPolicy, detectCaseSensitivity } from '../src/index.js';
import { buildTree, useSandbox } from './helpers.js';

describe('createPathPolicy', () => {
  const sandbox = useSandbox();
  const tree = {
    'proj/package.json': '{}',
    'proj/tests/fixtures/a.txt': 'a',
    'proj/src/index.ts': 'export {};',
    'shared/lib.ts': 'x',
  };

  it('resolves relative inputs against the project root under current_project (PP-MODE-1)', () => {
    buildTree(sandbox.dir, tree);
    const root = path.join(sandbox.dir, 'proj');
    const policy = createPathPolicy({ mode: 'current_project', root });
    assert.deepEqual(policy.resolve('src/index.ts', { access: 'read' }), {
      ok: true,
      path: path.join(root, 'src/index.ts'),
      displayPath: 'src/index.ts',
      exists: true,
    });
    assert.equal(policy.mode, 'current_project');
    assert.deepEqual(policy.roots, [root]);
  });

  it('allows absolute inputs that land inside the project root (PP-MODE-1)', () => {
    buildTree(sandbox.dir, tree);
    const root = path.join(sandbox.dir, 'proj');
    const policy = createPathPolicy({ mode: 'current_project', root });
    const result = policy.resolve(path.join(root, 'package.json'), { access: 'read' });
    assert.equal(result.ok && result.displayPath, 'package.json');
    const outside = policy.resolve(path.join(sandbox.dir, 'shared/lib.ts'), { access: 'read' });
    assert.equal(!outside.ok && outside.error.code, 'PATH_OUTSIDE_ROOT');
  });

  it('refuses ../package.json from a subdirectory root (PP-IN-5, PP-MODE-1)', () => {
    buildTree(sandbox.dir, tree);
    const policy = createPathPolicy({ mode: 'current_project', root: path.join(sandbox.dir, 'proj/src') });
    const result = policy.resolve('../package.json', { access: 'read' });
    assert.equal(!result.ok && result.error.code, 'PATH_OUTSIDE_ROOT');
  });

  it('resolves fixtures against the first allowed root (PP-MODE-2)', () => {
    buildTree(sandbox.dir, tree);
    const tests = path.join(sandbox.dir, 'proj/tests');
    const policy = createPathPolicy({ mode: 'allowed_roots', allowedRoots: [tests] });
    assert.deepEqual(policy.resolve('fixtures', { access: 'list' }), {
      ok: true,
      path: path.join(tests, 'fixtures'),
      displayPath: 'fixtures',
      exists: true,
    });
  });

  it('allows a path inside any allowed root and refuses one outside all of them (PP-MODE-2)', () => {
    buildTree(sandbox.dir, tree);
    const policy = createPathPolicy({
      mode: 'allowed_roots',
      allowedRoots: [path.join(sandbox.dir, 'proj/tests'), path.join(sandbox.dir, 'shared')],
    });
    const inSecond = policy.resolve(path.join(sandbox.dir, 'shared/lib.ts'), { access: 'write' });
    assert.equal(inSecond.ok, true);
    const outside = policy.resolve(path.join(sandbox.dir, 'proj/package.json'), { access: 'read' });
    assert.equal(!outside.ok && outside.error.code, 'PATH_OUTSIDE_ROOT');
    assert.match(!outside.ok ? outside.error.message : '', /outside the allowed roots/);
  });

  it('refuses everything when the allowed roots are empty, saying so (PP-MODE-2)', () => {
    buildTree(sandbox.dir, tree);
    const policy = createPathPolicy({ mode: 'allowed_roots', allowedRoots: [] });
    for (const input of ['.', 'x', undefined, path.join(sandbox.dir, 'proj')]) {
      const result = policy.resolve(input, { access: 'read' });
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.error.code, 'PATH_OUTSIDE_ROOT');
      assert.equal(!result.ok && result.error.reason, 'no_roots');
      assert.match(!result.ok ? result.error.message : '', /no allowed roots are configured/);
    }
    assert.deepEqual(policy.roots, []);
  });

  it('refuses every path in mode none (PP-MODE-3)', () => {
    buildTree(sandbox.dir, tree);
    const policy = createPathPolicy({ mode: 'none', root: path.join(sandbox.dir, 'proj') });
    for (const access of ['read', 'write', 'list'] as const) {
      const result = policy.resolve('package.json', { access });
      assert.equal(!result.ok && result.error.code, 'PATH_OUTSIDE_ROOT');
      assert.equal(!result.ok && result.error.reason, 'no_access');
      assert.match(!result.ok ? result.error.message : '', /no file system access/);
    }
    assert.equal(policy.allows(path.join(sandbox.dir, 'proj/package.json'), 'read'), false);
    assert.equal(policy.verifyWriteTarget(path.join(sandbox.dir, 'proj/x')).ok, false);
  });

  it('allows absolute paths outside the project in danger_full_access (PP-MODE-4)', () => {
    buildTree(sandbox.dir, tree);
    const root = path.join(sandbox.dir, 'proj');
    const policy = createPathPolicy({ mode: 'danger_full_access', root });
    const outside = policy.resolve(path.join(sandbox.dir, 'shared/lib.ts'), { access: 'read' });
    assert.deepEqual(outside, {
      ok: true,
      path: path.join(sandbox.dir, 'shared/lib.ts'),
      displayPath: path.join(sandbox.dir, 'shared/lib.ts'),
      exists: true,
    });
    const relative = policy.resolve('src/index.ts', { access: 'write' });
    assert.equal(relative.ok && relative.path, path.join(root, 'src/index.ts'));
    const up = policy.resolve('../shared/lib.ts', { access: 'read' });
    assert.equal(up.ok && up.path, path.join(sandbox.dir, 'shared/lib.ts'));
  });

  it('keeps protected and secret patterns in danger_full_access unless they are switched off (PP-MODE-4)', () => {
    buildTree(sandbox.dir, { ...tree, 'proj/.env': 'K=1', 'shared/.env': 'K=2' });
    const root = path.join(sandbox.dir, 'proj');
    const strict = createPathPolicy({ mode: 'danger_full_access', root });
    assert.equal(strict.resolve('.env', { access: 'read' }).ok, false);
    assert.equal(strict.resolve(path.join(sandbox.dir, 'shared/.env'), { access: 'read' }).ok, false);
    assert.equal(strict.resolve('.git/config', { access: 'write' }).ok, false);
    const open = createPathPolicy({ mode: 'danger_full_access', root, secretPaths: [], protectedPaths: [] });
    assert.equal(open.resolve('.env', { access: 'read' }).ok, true);
    assert.equal(open.resolve(path.join(sandbox.dir, 'shared/.env'), { access: 'read' }).ok, true);
    assert.equal(open.resolve('.git/config', { access: 'write' }).ok, true);
  });

  it('throws configuration errors at creation (PP-MODE-5)', () => {
    buildTree(sandbox.dir, tree);
    assert.throws(() => createPathPolicy({ mode: 'current_project' }), /needs a root/);
    assert.throws(() => createPathPolicy({ mode: 'danger_full_access' }), /needs a root/);
    assert.throws(
      () => createPathPolicy({ mode: 'current_project', root: path.join(sandbox.dir, 'missing') }),
      /cannot be resolved/,
    );
    assert.throws(
      () => createPathPolicy({ mode: 'current_project', root: path.join(sandbox.dir, 'proj/package.json') }),
      /is not a directory/,
    );
    assert.throws(
      () => createPathPolicy({ mode: 'allowed_roots', allowedRoots: [path.join(sandbox.dir, 'missing')] }),
      /cannot be resolved/,
    );
    assert.throws(
      () => createPathPolicy({ mode: 'everything' as 'none', root: sandbox.dir }),
      /unknown mode "everything"/,
    );
    assert.throws(
      () => createPathPolicy({ mode: 'current_project', root: sandbox.dir, protectedPaths: [''] }),
      TypeError,
    );
    assert.throws(() => createPathPolicy({ mode: 'current_project', root: '' }), TypeError);
  });

  it('probes the volume for case sensitivity unless told (PP-MODE-6)', () => {
    buildTree(sandbox.dir, { ...tree, 'proj/123/456/x.txt': 'digits only' });
    const root = path.join(sandbox.dir, 'proj');
    if (process.platform === 'linux') {
      // Linux volumes (ext4, tmpfs, overlayfs) are case-sensitive: PROJ is not proj.
      assert.equal(detectCaseSensitivity(root), true);
      assert.equal(createPathPolicy({ mode: 'current_project', root }).caseSensitive, true);
      // A name without letters probes its nearest lettered ancestor.
      assert.equal(detectCaseSensitivity(path.join(root, '123/456')), true);
    }
    const told = createPathPolicy({ mode: 'current_project', root, caseSensitive: false });
    assert.equal(told.caseSensitive, false);
    assert.equal(told.resolve('.GIT/config', { access: 'write' }).ok, false);
    assert.equal(told.resolve('Certs/Server.PEM', { access: 'read' }).ok, false);
  });

  it('deduplicates roots and realpath-s them once (PP-MODE-2, PP-REAL-1)', () => {
    buildTree(sandbox.dir, { ...tree, alias: { link: 'shared' } });
    const policy = createPathPolicy({
      mode: 'allowed_roots',
      allowedRoots: [path.join(sandbox.dir, 'shared'), path.join(sandbox.dir, 'alias')],
    });
    assert.deepEqual(policy.roots, [path.join(sandbox.dir, 'shared')]);
    assert.equal(Object.isFrozen(policy.roots), true);
  });
});
