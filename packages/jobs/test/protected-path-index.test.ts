import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ProtectedPathIndex } from '../src/protected-path-index.js';
import { tempDir, waitUntil } from './helpers.js';

/** A tree of `directories` directories with `files` files each, plus a root .git. */
function tree(root: string, directories: number, files: number): void {
  mkdirSync(path.join(root, '.git'));
  for (let d = 0; d < directories; d++) {
    const directory = path.join(root, `d${d % 10}`, `e${d}`);
    mkdirSync(directory, { recursive: true });
    for (let f = 0; f < files; f++) writeFileSync(path.join(directory, `f${f}.ts`), '');
  }
}

/** Waits until the coarse change-time clock has moved past everything made so far. */
async function settle(): Promise<void> {
  const since = Date.now();
  await waitUntil('the change-time clock moved on', () => Date.now() - since > 120);
}

describe('ProtectedPathIndex', () => {
  it('refreshes by change times: reads nothing when nothing changed, only what changed otherwise (SB-14)', async (t) => {
    const root = tempDir(t, 'jobs-index-');
    tree(root, 60, 20);
    const index = new ProtectedPathIndex({
      writableRoots: [root],
      readOnlyRoots: [],
      protectedPaths: [],
      secretPaths: ['.env'],
    });
    const built = await index.build();
    assert.equal(built.complete, true);
    assert.ok(built.entries > 1200, `${built.entries} entries walked`);
    await settle();
    await index.refresh(); // clears the directories that were read too recently to be trusted
    const quiet = await index.refresh();
    assert.deepEqual(quiet, { complete: true, entries: 0, changedDirectories: 0 }, 'nothing read again');

    writeFileSync(path.join(root, 'd3', 'e13', '.env'), 'SECRET=1\n');
    makeRepository(path.join(root, 'd4', 'e14', 'nested'));
    await settle();
    const changed = await index.refresh();
    assert.ok(
      changed.changedDirectories >= 2 && changed.changedDirectories <= 4,
      `${changed.changedDirectories}`,
    );
    assert.ok(changed.entries < 60, `${changed.entries} entries read again, not the whole tree`);
    const plan = index.plan();
    assert.ok(plan.hidden.some((secret) => secret.path === path.join(root, 'd3', 'e13', '.env')));
    assert.ok(plan.readOnly.includes(path.join(root, 'd4', 'e14', 'nested', '.git')));
    assert.ok(plan.pinned.includes(path.join(root, 'd4', 'e14', 'nested')), 'its parents are pinned');

    // Renames and removals are seen too.
    renameSync(path.join(root, 'd4', 'e14'), path.join(root, 'd4', 'moved'));
    rmSync(path.join(root, 'd3', 'e13', '.env'));
    await settle();
    await index.refresh();
    const after = index.plan();
    assert.ok(after.readOnly.includes(path.join(root, 'd4', 'moved', 'nested', '.git')));
    assert.ok(!after.readOnly.includes(path.join(root, 'd4', 'e14', 'nested', '.git')));
    assert.ok(!after.hidden.some((secret) => secret.path.endsWith('.env')));
  });

  it('notices a change made right after a directory was read (racy change times, SB-14)', async (t) => {
    const root = tempDir(t, 'jobs-index-');
    mkdirSync(path.join(root, 'sub'));
    const index = new ProtectedPathIndex({
      writableRoots: [root],
      readOnlyRoots: [],
      protectedPaths: [],
      secretPaths: ['.env'],
    });
    index.buildSync();
    // No pause: the change may carry the very change time the build recorded.
    writeFileSync(path.join(root, 'sub', '.env'), 'x');
    index.refreshSync();
    assert.ok(index.plan().hidden.some((secret) => secret.path === path.join(root, 'sub', '.env')));
  });

  it('keeps protecting a nested .git after its directory is swapped with a sibling (both names stay, the trees below them change)', async (t) => {
    const root = tempDir(t, 'jobs-index-');
    makeRepository(path.join(root, 'a'));
    mkdirSync(path.join(root, 'b'));
    const index = new ProtectedPathIndex({
      writableRoots: [root],
      readOnlyRoots: [],
      protectedPaths: [],
      secretPaths: [],
    });
    index.buildSync();
    assert.ok(index.plan().readOnly.includes(path.join(root, 'a', '.git')));
    await settle();
    // What a command can do between two jobs: a and b trade places, so both names are still there.
    renameSync(path.join(root, 'a'), path.join(root, 'swap'));
    renameSync(path.join(root, 'b'), path.join(root, 'a'));
    renameSync(path.join(root, 'swap'), path.join(root, 'b'));
    index.refreshSync();
    const plan = index.plan();
    assert.ok(
      plan.readOnly.includes(path.join(root, 'b', '.git')),
      'the .git now under b is still bound read-only',
    );
    assert.ok(!plan.readOnly.includes(path.join(root, 'a', '.git')));
    await settle();
    // And it is still tracked afterwards: a .git made later under the new a is found by a refresh.
    makeRepository(path.join(root, 'a', 'inner'));
    await settle();
    await index.refresh();
    assert.ok(index.plan().readOnly.includes(path.join(root, 'a', 'inner', '.git')));
  });

  it('binds the target of a protected link inside the root and tracks the link by identity (SB-4)', (t) => {
    const root = tempDir(t, 'jobs-index-');
    mkdirSync(path.join(root, 'store.git'));
    mkdirSync(path.join(root, 'work'));
    symlinkSync('../store.git', path.join(root, 'work', '.git'));
    const index = new ProtectedPathIndex({
      writableRoots: [root],
      readOnlyRoots: [],
      protectedPaths: [],
      secretPaths: [],
    });
    index.buildSync();
    assert.ok(index.plan().readOnly.includes(path.join(root, 'store.git')));
    assert.ok(index.protectedEntries().has(path.join(root, 'work', '.git')));
  });

  it('reports an incomplete index past its entry budget (SB-12)', (t) => {
    const root = tempDir(t, 'jobs-index-');
    tree(root, 5, 10);
    const index = new ProtectedPathIndex({
      writableRoots: [root],
      readOnlyRoots: [],
      protectedPaths: [],
      secretPaths: [],
      maxEntries: 20,
    });
    assert.equal(index.buildSync().complete, false);
    assert.equal(index.plan().truncated, true);
  });
});

function makeRepository(directory: string): void {
  // A repository as git lays it out, made by hand (the index only cares about the name `.git`).
  mkdirSync(path.join(directory, '.git', 'hooks'), { recursive: true });
  writeFileSync(path.join(directory, '.git', 'HEAD'), 'ref: refs/heads/main\n');
}
