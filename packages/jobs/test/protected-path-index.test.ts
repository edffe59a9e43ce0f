import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ProtectedPathIndex } from '../src/protected-path-index.js';
import { tempDir } from './helpers.js';
import { makeRepository, settle, untilSettled, watchedIndex } from './index-helpers.js';

/** A tree of `directories` directories with `files` files each, plus a root .git. */
function tree(root: string, directories: number, files: number): void {
  mkdirSync(path.join(root, '.git'));
  for (let d = 0; d < directories; d++) {
    const directory = path.join(root, `d${d % 10}`, `e${d}`);
    mkdirSync(directory, { recursive: true });
    for (let f = 0; f < files; f++) writeFileSync(path.join(directory, `f${f}.ts`), '');
  }
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
    // 71 directories: the root, d0..d9 and e0..e59 (.git is protected as a whole, not entered).
    assert.deepEqual(
      quiet,
      { complete: true, entries: 0, changedDirectories: 0, lookedAt: 71 },
      'nothing read again',
    );

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

  it('keeps protecting a nested .git after its directory is swapped with a sibling (both names stay, the trees below them change, SB-14)', async (t) => {
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

  it('with a watcher, looks only at the directories in which something happened and still finds what a command made (issue 25, SB-13, SB-17)', async (t) => {
    const root = tempDir(t, 'jobs-index-');
    tree(root, 60, 5);
    const index = watchedIndex(t, root);
    await index.build();
    await untilSettled(index);
    const quiet = await index.refresh();
    assert.deepEqual(quiet, { complete: true, entries: 0, changedDirectories: 0, lookedAt: 0 });

    // What a job does: a new tree with a repository deep inside, a rename, a secret, a swap.
    makeRepository(path.join(root, 'd3', 'e13', 'new', 'deeper', 'repo'));
    writeFileSync(path.join(root, 'd5', 'e15', '.env'), 'SECRET=1\n');
    makeRepository(path.join(root, 'd4', 'e14', 'nested'));
    renameSync(path.join(root, 'd4', 'e14'), path.join(root, 'd4', 'moved'));
    makeRepository(path.join(root, 'd6', 'e16'));
    renameSync(path.join(root, 'd6', 'e16'), path.join(root, 'd6', 'swap'));
    renameSync(path.join(root, 'd6', 'e26'), path.join(root, 'd6', 'e16'));
    renameSync(path.join(root, 'd6', 'swap'), path.join(root, 'd6', 'e26'));
    const changed = await index.refresh();
    assert.ok(
      changed.lookedAt > 0 && changed.lookedAt < 40,
      `${changed.lookedAt} directories looked at, not 71`,
    );
    const plan = index.plan();
    for (const repository of ['d3/e13/new/deeper/repo', 'd4/moved/nested', 'd6/e26']) {
      assert.ok(
        plan.readOnly.includes(path.join(root, repository, '.git')),
        `${repository}/.git is bound read-only`,
      );
    }
    assert.ok(!plan.readOnly.includes(path.join(root, 'd4', 'e14', 'nested', '.git')));
    assert.ok(!plan.readOnly.includes(path.join(root, 'd6', 'e16', '.git')));
    assert.ok(plan.hidden.some((secret) => secret.path === path.join(root, 'd5', 'e15', '.env')));

    // The new directories are watched as well once settled: a change deep in them is seen.
    await untilSettled(index);
    makeRepository(path.join(root, 'd3', 'e13', 'new', 'deeper', 'again'));
    const deep = await index.refresh();
    assert.ok(deep.lookedAt < 10, `${deep.lookedAt}`);
    assert.ok(index.plan().readOnly.includes(path.join(root, 'd3', 'e13', 'new', 'deeper', 'again', '.git')));
  });

  it('looks at every directory when the watcher may have missed events (inotify queue overflow, SB-17)', async (t) => {
    const root = tempDir(t, 'jobs-index-');
    tree(root, 20, 1);
    // A queue limit of 4 events: any burst is a quarter of it, so an overflow cannot be ruled out.
    const index = watchedIndex(t, root, 4);
    await index.build();
    await untilSettled(index);
    for (let file = 0; file < 20; file++) writeFileSync(path.join(root, 'd1', 'e1', `n${file}`), '');
    makeRepository(path.join(root, 'd2', 'e2', 'nested'));
    const update = await index.refresh();
    // 31 directories: the root, d0..d9, e0..e19.
    assert.equal(update.lookedAt, 31, 'every directory was looked at');
    assert.ok(index.plan().readOnly.includes(path.join(root, 'd2', 'e2', 'nested', '.git')));
  });

  it('ends the watching thread and removes its private directory on close (SB-17)', async (t) => {
    const root = tempDir(t, 'jobs-index-');
    tree(root, 3, 1);
    const state = tempDir(t, 'jobs-watch-state-');
    const index = new ProtectedPathIndex({
      writableRoots: [root],
      readOnlyRoots: [],
      protectedPaths: [],
      secretPaths: [],
      watch: { directoryPrefix: path.join(state, 'tmp', 'h1.watch.'), minDirectories: 1 },
    });
    await index.build();
    await untilSettled(index);
    assert.equal(readdirSync(path.join(state, 'tmp')).length, 1, 'the barrier directory exists');
    index.close();
    assert.equal(index.watching, false);
    assert.deepEqual(readdirSync(path.join(state, 'tmp')), []);
    // Refreshes go on without it, looking at every directory.
    makeRepository(path.join(root, 'd1', 'e1', 'late'));
    const update = await index.refresh();
    assert.equal(update.lookedAt, 7);
    assert.ok(index.plan().readOnly.includes(path.join(root, 'd1', 'e1', 'late', '.git')));
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
