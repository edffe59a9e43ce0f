// Regression tests for the holes an adversarial reading of the directory watcher found (SB-17): each
// names the finding it pins and fails on the code before the fix.
import assert from 'node:assert/strict';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ProtectedPathIndex } from '../src/protected-path-index.js';
import { tempDir, waitUntil } from './helpers.js';

/** Waits until the coarse change-time clock has moved past everything made so far. */
async function settle(): Promise<void> {
  const since = Date.now();
  await waitUntil('the change-time clock moved on', () => Date.now() - since > 120);
}

/** Refreshes until the watcher answers and every directory is settled (nothing left to look at). */
async function untilSettled(index: ProtectedPathIndex): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const update = await index.refresh();
    if (index.watching && update.lookedAt === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `the watcher never settled every directory: ${JSON.stringify(update)} ${index.watching}`,
      );
    await delay(20);
  }
}

/** An index of a writable root with a watcher from the first directory on. */
function watchedIndex(t: TestContext, root: string): ProtectedPathIndex {
  const state = tempDir(t, 'jobs-watch-state-');
  const index = new ProtectedPathIndex({
    writableRoots: [root],
    readOnlyRoots: [],
    protectedPaths: [],
    secretPaths: ['.env'],
    watch: { directoryPrefix: path.join(state, 'tmp', 'h1.watch.'), minDirectories: 1 },
  });
  t.after(() => index.close());
  return index;
}

function makeRepository(directory: string): void {
  mkdirSync(path.join(directory, '.git', 'hooks'), { recursive: true });
  writeFileSync(path.join(directory, '.git', 'HEAD'), 'ref: refs/heads/main\n');
}

/** The inotify watches this process holds now (every instance), from /proc/self/fdinfo. */
function inotifyWatches(): string[] {
  const watches: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== 'anon_inode:inotify') continue;
      for (const line of readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n'))
        if (line.startsWith('inotify wd:')) watches.push(line);
    } catch {
      // closed meanwhile
    }
  }
  return watches;
}

/** Waits until the watching thread has set up at least `count` watches and added none for a while. */
async function untilWatchesSettle(count: number): Promise<void> {
  let last = '';
  let stable = 0;
  await waitUntil(`${count} inotify watches exist`, () => {
    const now = inotifyWatches();
    const key = now.sort().join('\n');
    stable = key === last ? stable + 1 : 0;
    last = key;
    return now.length >= count && stable >= 3;
  });
}

/** Exchanges two directories by three renames (what renameat2's RENAME_EXCHANGE does at once). */
function swap(a: string, b: string): void {
  renameSync(a, `${a}.swap`);
  renameSync(b, a);
  renameSync(`${a}.swap`, b);
}

describe('directory watcher holes (SB-17)', () => {
  it('finds a .git made in a directory that was swapped with a sibling while its watch was being set up (a watch by path lands on the wrong inode, SB-13, SB-17)', async (t) => {
    const root = tempDir(t, 'jobs-index-');
    for (let d = 0; d < 6; d++) mkdirSync(path.join(root, `d${d}`));
    mkdirSync(path.join(root, 'a'));
    mkdirSync(path.join(root, 'z'));
    const index = watchedIndex(t, root);
    await index.build();
    // The thread starts and sets up its watches by path a moment after the walk; meanwhile a command
    // (or someone outside) swaps a and z, and swaps them back once the watches exist.
    swap(path.join(root, 'a'), path.join(root, 'z'));
    // The barrier, the root and the six others at least (a and z too, when watched by path).
    await untilWatchesSettle(8);
    swap(path.join(root, 'a'), path.join(root, 'z'));
    await settle();
    await untilSettled(index);
    makeRepository(path.join(root, 'a'));
    await settle();
    await index.refresh();
    assert.ok(index.plan().readOnly.includes(path.join(root, 'a', '.git')), 'a/.git is bound read-only');
  });

  it('finds a .git made in a directory that was removed and made again with the same inode number (dead watch of a recycled inode, SB-13, SB-17)', async (t) => {
    const root = tempDir(t, 'jobs-index-');
    for (let d = 0; d < 8; d++) mkdirSync(path.join(root, `d${d}`));
    const index = watchedIndex(t, root);
    await index.build();
    await untilSettled(index);
    const target = path.join(root, 'd3');
    const before = lstatSync(target).ino;
    // ext4 (and xfs) hand a freed inode number to the next directory made: same device and inode,
    // so the index keeps its record, but the watch died with the old inode.
    let recycled = false;
    for (let attempt = 0; attempt < 20 && !recycled; attempt++) {
      rmdirSync(target);
      mkdirSync(target);
      recycled = lstatSync(target).ino === before;
    }
    if (!recycled) {
      t.skip('this file system does not recycle inode numbers');
      return;
    }
    await settle();
    await untilSettled(index);
    makeRepository(target);
    await settle();
    await index.refresh();
    assert.ok(index.plan().readOnly.includes(path.join(target, '.git')), 'd3/.git is bound read-only');
  });
});
