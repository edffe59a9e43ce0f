// The path policy remembers the display paths of allowed decisions (issue 25: a path a session keeps
// using is located and matched once). A remembered decision is keyed by the real path after
// resolution, so it can never outlive a change on disk, and a refusal is never remembered.
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPathPolicy } from '../src/index.js';
import { useSandbox } from './helpers.js';

describe('remembered decisions (issue 25)', () => {
  const sandbox = useSandbox();

  it('a path allowed before it became a link to outside the root is refused once it is one', () => {
    const root = path.join(sandbox.dir, 'root');
    const outside = path.join(sandbox.dir, 'outside');
    mkdirSync(root);
    mkdirSync(outside);
    writeFileSync(path.join(root, 'notes.txt'), 'inside\n');
    writeFileSync(path.join(outside, 'notes.txt'), 'outside\n');
    const policy = createPathPolicy({ mode: 'current_project', root });
    for (let round = 0; round < 3; round++) {
      const allowed = policy.resolve('notes.txt', { access: 'read' });
      assert.ok(allowed.ok);
      assert.equal(allowed.displayPath, 'notes.txt');
    }
    renameSync(path.join(root, 'notes.txt'), path.join(root, 'notes.old'));
    symlinkSync(path.join(outside, 'notes.txt'), path.join(root, 'notes.txt'));
    const refused = policy.resolve('notes.txt', { access: 'read' });
    assert.ok(!refused.ok);
    assert.equal(refused.error.code, 'PATH_OUTSIDE_ROOT');
    // And back: allowed again, the same display path.
    unlinkSync(path.join(root, 'notes.txt'));
    renameSync(path.join(root, 'notes.old'), path.join(root, 'notes.txt'));
    const again = policy.resolve('notes.txt', { access: 'read' });
    assert.ok(again.ok);
    assert.equal(again.displayPath, 'notes.txt');
  });

  it('a remembered read of a protected file never allows writing it, and a link named .env stays a secret', () => {
    const root = path.join(sandbox.dir, 'root2');
    mkdirSync(path.join(root, '.git'), { recursive: true });
    writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
    writeFileSync(path.join(root, 'plain.txt'), 'x\n');
    const policy = createPathPolicy({ mode: 'current_project', root });
    for (let round = 0; round < 3; round++) {
      assert.ok(policy.resolve('.git/config', { access: 'read' }).ok);
      const write = policy.resolve('.git/config', { access: 'write' });
      assert.ok(!write.ok);
      assert.equal(write.error.code, 'PATH_PROTECTED');
      assert.ok(policy.resolve('plain.txt', { access: 'read' }).ok);
    }
    symlinkSync(path.join(root, 'plain.txt'), path.join(root, '.env'));
    for (let round = 0; round < 2; round++) {
      const secret = policy.resolve('.env', { access: 'read' });
      assert.ok(!secret.ok);
      assert.equal(secret.error.code, 'PATH_PROTECTED');
    }
    assert.ok(policy.resolve('plain.txt', { access: 'read' }).ok);
  });

  it('the exists flag is the current one, not the remembered one', () => {
    const root = path.join(sandbox.dir, 'root3');
    mkdirSync(root);
    const policy = createPathPolicy({ mode: 'current_project', root });
    const missing = policy.resolve('later.txt', { access: 'write' });
    assert.ok(missing.ok);
    assert.equal(missing.exists, false);
    writeFileSync(path.join(root, 'later.txt'), 'now\n');
    const present = policy.resolve('later.txt', { access: 'write' });
    assert.ok(present.ok);
    assert.equal(present.exists, true);
  });
});
