import assert from 'node:assert/strict';
import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  createPathPolicy,
  descriptorPinningAvailable,
  type PathPolicy,
  type PinnedTarget,
} from '../src/index.js';
import { buildTree, listTree, useSandbox } from './helpers.js';

const DESCRIPTORS = descriptorPinningAvailable();
const NEEDS_DESCRIPTORS = DESCRIPTORS ? false : 'descriptor pinning needs Linux with /proc';

function pinned(
  policy: PathPolicy,
  input: string,
  access: 'read' | 'write' | 'list',
  createParents = false,
): PinnedTarget {
  const resolved = policy.resolve(input, { access });
  assert.ok(resolved.ok, !resolved.ok ? resolved.error.message : '');
  const pin = policy.pinTarget(resolved.path, { access, createParents });
  assert.ok(pin.ok, !pin.ok ? pin.error.message : '');
  return pin.value;
}

function refusal(
  policy: PathPolicy,
  realPath: string,
  access: 'read' | 'write' | 'list',
  createParents = false,
) {
  const pin = policy.pinTarget(realPath, { access, createParents });
  assert.equal(pin.ok, false, `${realPath} should be refused`);
  return !pin.ok ? pin.error : { code: '', reason: '', message: '' };
}

describe('PathPolicy.pinTarget', () => {
  const sandbox = useSandbox();
  const setup = (options: { pinning?: 'auto' | 'path' } = {}) => {
    buildTree(sandbox.dir, {
      'proj/d/file.txt': 'inside',
      'proj/d/sub/deep.txt': 'deep inside',
      'proj/plain.txt': 'plain',
      'proj/.git/config': '[core]',
      'proj/.env': 'K=1',
      'outside/file.txt': 'OUTSIDE',
      'outside/sub/deep.txt': 'OUTSIDE deep',
      'proj/l': { link: '../outside' },
    });
    const root = path.join(sandbox.dir, 'proj');
    return { root, policy: createPathPolicy({ mode: 'current_project', root, ...options }) };
  };

  it('pins by descriptor on Linux and reaches the target through /proc/self/fd (PP-PIN-1)', {
    skip: NEEDS_DESCRIPTORS,
  }, () => {
    const { policy, root } = setup();
    const pin = pinned(policy, 'd/sub/deep.txt', 'read');
    try {
      assert.equal(pin.mode, 'descriptor');
      assert.match(pin.path, /^\/proc\/self\/fd\/\d+\/deep\.txt$/);
      assert.equal(pin.realPath, path.join(root, 'd/sub/deep.txt'));
      assert.equal(pin.directoryRealPath, path.join(root, 'd/sub'));
      assert.equal(pin.displayPath, 'd/sub/deep.txt');
      assert.equal(readFileSync(pin.path, 'utf8'), 'deep inside');
      assert.deepEqual(pin.verify(), { ok: true });
    } finally {
      pin.close();
      pin.close();
    }
  });

  it('refuses a walk through a directory that is a symbolic link by now (PP-PIN-1)', {
    skip: NEEDS_DESCRIPTORS,
  }, () => {
    const { policy, root } = setup();
    const resolved = policy.resolve('d/sub/deep.txt', { access: 'write' });
    assert.ok(resolved.ok);
    // The check said `d` is a directory; then it became a link to the outside directory.
    renameSync(path.join(root, 'd'), path.join(root, 'd-real'));
    renameSync(path.join(root, 'l'), path.join(root, 'd'));
    const error = refusal(policy, resolved.path, 'write', true);
    assert.equal(error.code, 'PATH_INVALID');
    assert.equal(error.reason, 'changed_since_check');
    assert.deepEqual(listTree(path.join(sandbox.dir, 'outside')), ['file.txt', 'sub', 'sub/deep.txt']);
  });

  it('keeps operating in the pinned directory after its name is swapped for a link (PP-PIN-2)', {
    skip: NEEDS_DESCRIPTORS,
  }, () => {
    const { policy, root } = setup();
    const reader = pinned(policy, 'd/file.txt', 'read');
    const writer = pinned(policy, 'd/new.txt', 'write');
    try {
      renameSync(path.join(root, 'd'), path.join(root, 'd-real'));
      renameSync(path.join(root, 'l'), path.join(root, 'd'));
      // Through the name, `d/file.txt` is the outside file now; through the pin it is not.
      assert.equal(readFileSync(path.join(root, 'd/file.txt'), 'utf8'), 'OUTSIDE');
      assert.equal(readFileSync(reader.path, 'utf8'), 'inside');
      const temp = writer.sibling('.new.tmp');
      const descriptor = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      writeFileSync(descriptor, 'created');
      closeSync(descriptor);
      linkSync(temp, writer.path);
      assert.equal(readFileSync(path.join(root, 'd-real/new.txt'), 'utf8'), 'created');
      assert.equal(existsSync(path.join(sandbox.dir, 'outside/new.txt')), false);
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('fails verify() once the pinned directory was moved, and passes after a swap and swap back (PP-PIN-3)', {
    skip: NEEDS_DESCRIPTORS,
  }, () => {
    const { policy, root } = setup();
    const pin = pinned(policy, 'd/file.txt', 'write');
    try {
      renameSync(path.join(root, 'd'), path.join(root, 'moved'));
      const moved = pin.verify();
      assert.equal(!moved.ok && moved.error.reason, 'changed_since_check');
      renameSync(path.join(root, 'moved'), path.join(root, 'd'));
      assert.deepEqual(pin.verify(), { ok: true });
    } finally {
      pin.close();
    }
    assert.throws(() => pin.verify(), /after close/);
  });

  it('creates missing directories one by one inside the pinned directory, never through a link (PP-PIN-4)', () => {
    const { policy, root } = setup();
    for (const pinning of ['auto', 'path'] as const) {
      const pin = pinned(
        createPathPolicy({ mode: 'current_project', root, pinning }),
        `d/${pinning}/b/c/new.txt`,
        'write',
        true,
      );
      try {
        assert.equal(existsSync(path.join(root, `d/${pinning}/b/c`)), true, pinning);
        assert.deepEqual(pin.verify(), { ok: true });
      } finally {
        pin.close();
      }
    }
    const resolved = policy.resolve('d/x/y/new.txt', { access: 'write' });
    assert.ok(resolved.ok);
    // A missing directory on the way appears as a link before the walk creates it: refused in both
    // modes, and nothing is created through the link.
    buildTree(root, { 'd/x': { link: '../../outside' } });
    for (const pinning of ['auto', 'path'] as const) {
      const error = refusal(
        createPathPolicy({ mode: 'current_project', root, pinning }),
        resolved.path,
        'write',
        true,
      );
      assert.equal(error.reason, 'changed_since_check', pinning);
    }
    assert.deepEqual(listTree(path.join(sandbox.dir, 'outside')), ['file.txt', 'sub', 'sub/deep.txt']);
  });

  it('refuses a missing directory without createParents and a file on the way (PP-PIN-5)', {
    skip: NEEDS_DESCRIPTORS,
  }, () => {
    const { policy, root } = setup();
    const missing = refusal(policy, path.join(root, 'd/none/new.txt'), 'read');
    assert.deepEqual([missing.code, missing.reason], ['FS_NOT_FOUND', 'missing_parent']);
    const file = refusal(policy, path.join(root, 'plain.txt/new.txt'), 'write', true);
    assert.deepEqual([file.code, file.reason], ['FS_NOT_FOUND', 'parent_not_a_directory']);
    assert.equal(existsSync(path.join(root, 'd/none')), false);
  });

  it('decides the path again: outside, protected, secret and non-canonical paths are refused (PP-PIN-6)', () => {
    const { policy, root } = setup();
    assert.equal(
      refusal(policy, path.join(sandbox.dir, 'outside/file.txt'), 'read').code,
      'PATH_OUTSIDE_ROOT',
    );
    assert.equal(refusal(policy, path.join(root, '.git/config'), 'write').code, 'PATH_PROTECTED');
    assert.equal(refusal(policy, path.join(root, '.env'), 'read').code, 'PATH_PROTECTED');
    assert.equal(refusal(policy, 'd/file.txt', 'read').reason, 'not_canonical');
    assert.equal(refusal(policy, `${root}/d/../d/file.txt`, 'read').reason, 'not_canonical');
    assert.equal(pinned(policy, '.git/config', 'read').displayPath, '.git/config');
  });

  it('falls back to the real path and the path-based re-check with pinning "path" (PP-PIN-7)', () => {
    const { policy, root } = setup({ pinning: 'path' });
    const pin = pinned(policy, 'd/file.txt', 'write');
    try {
      assert.equal(pin.mode, 'path');
      assert.equal(pin.path, path.join(root, 'd/file.txt'));
      assert.equal(pin.sibling('x'), path.join(root, 'd/x'));
      assert.deepEqual(pin.verify(), { ok: true });
      renameSync(path.join(root, 'd'), path.join(root, 'd-real'));
      renameSync(path.join(root, 'l'), path.join(root, 'd'));
      const swapped = pin.verify();
      assert.equal(!swapped.ok && swapped.error.code, 'PATH_INVALID');
    } finally {
      pin.close();
    }
    assert.throws(
      () => createPathPolicy({ mode: 'current_project', root, pinning: 'x' as 'path' }),
      TypeError,
    );
  });
});
