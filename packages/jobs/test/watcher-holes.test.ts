// Regression tests for the holes an adversarial reading of the directory watcher found (SB-17): each
// names the finding it pins and fails on the code before the fix.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ProtectedPathIndex } from '../src/protected-path-index.js';
import { manager, runText, tempDir, waitUntil } from './helpers.js';
import { makeRepository, settle, untilSettled, watchedIndex } from './index-helpers.js';

/** A temporary directory whose modes are given back before it is removed (commands take them away). */
function unlistableDir(t: TestContext, prefix: string): string {
  const directory = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), prefix)));
  t.after(() => {
    restoreModes(directory);
    rmSync(directory, { recursive: true, force: true });
  });
  return directory;
}

/** Root lists every directory whatever its mode: the unlistable-directory holes need another user. */
const asRoot = process.getuid?.() === 0 ? 'root can list every directory' : false;

/** Gives every directory below `top` its owner's permissions back (what a command took away). */
function restoreModes(top: string): void {
  const stack = [top];
  while (stack.length > 0) {
    const directory = stack.pop()!;
    try {
      if (!lstatSync(directory).isDirectory()) continue;
      chmodSync(directory, 0o755);
      for (const name of readdirSync(directory)) stack.push(path.join(directory, name));
    } catch {
      // gone
    }
  }
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

  it('keeps a secret and a repository known after their directories become unlistable, and binds those read-only (an unreadable directory forgot what it held, SB-4, SB-5, SB-14)', {
    skip: asRoot,
  }, (t) => {
    const root = unlistableDir(t, 'jobs-index-');
    mkdirSync(path.join(root, 'conf'));
    writeFileSync(path.join(root, 'conf', '.env'), 'TOKEN=1\n');
    makeRepository(path.join(root, 'sub'));
    mkdirSync(path.join(root, 'later'));
    const index = new ProtectedPathIndex({
      writableRoots: [root],
      readOnlyRoots: [],
      protectedPaths: [],
      secretPaths: ['.env'],
    });
    index.buildSync();
    // A command makes the directories unlistable (and one is made so before the walk sees it).
    chmodSync(path.join(root, 'conf'), 0);
    chmodSync(path.join(root, 'sub'), 0);
    mkdirSync(path.join(root, 'later', 'hid'));
    chmodSync(path.join(root, 'later', 'hid'), 0);
    index.refreshSync();
    const plan = index.plan();
    assert.ok(
      plan.hidden.some((secret) => secret.path === path.join(root, 'conf', '.env')),
      'conf/.env stays covered',
    );
    for (const bound of ['sub/.git', 'sub', 'conf', 'later/hid'])
      assert.ok(plan.readOnly.includes(path.join(root, bound)), `${bound} is bound read-only`);
    assert.ok(
      index.protectedEntries().has(path.join(root, 'later', 'hid')),
      'later/hid is moved away when a command made it',
    );
    // Listable again: only what it holds is bound.
    chmodSync(path.join(root, 'sub'), 0o755);
    index.refreshSync();
    assert.ok(!index.plan().readOnly.includes(path.join(root, 'sub')));
    assert.ok(index.plan().readOnly.includes(path.join(root, 'sub', '.git')));
  });

  it('keeps a secret hidden after a command makes its directory unlistable and a later one lists it again (an unreadable directory forgot what it held, SB-5, SB-14)', {
    skip: asRoot,
  }, async (t) => {
    const root = unlistableDir(t, 'jobs-root-');
    const stateDir = unlistableDir(t, 'jobs-state-');
    mkdirSync(path.join(root, 'conf'));
    writeFileSync(path.join(root, 'conf', '.env'), 'TOKEN=hunter2-unlisted\n');
    const jobs = manager(t, 'workspace_write', [root], { stateDir, sandbox: { secretPaths: ['.env'] } });
    const first = await runText(jobs, root, 'cat conf/.env; chmod 000 conf; echo first-done');
    assert.match(first.text, /first-done/);
    assert.ok(!first.text.includes('hunter2'), 'the secret is covered');
    const second = await runText(jobs, root, 'chmod 755 conf; cat conf/.env; echo second-done');
    assert.ok(!second.text.includes('hunter2'), 'the secret stays covered for the next command');
  });

  it('refuses a command in a root it cannot list and says why, not that the entry limit was reached (unlistable root, SB-12)', {
    skip: asRoot,
  }, async (t) => {
    const root = unlistableDir(t, 'jobs-root-');
    mkdirSync(path.join(root, 'sub'));
    const jobs = manager(t, 'workspace_write', [root]);
    chmodSync(root, 0o300);
    const started = await jobs.start({ shell: 'bash', command: 'echo ran', cwd: root });
    assert.equal(started.ok, false);
    assert.equal(started.ok ? '' : started.error.code, 'SANDBOX_PLAN_INCOMPLETE');
    assert.match(started.ok ? '' : started.error.message, /a root cannot be listed/);
    assert.doesNotMatch(started.ok ? '' : started.error.message, /limit/);
  });

  it('quarantines a .git a command hid in a directory it made unlistable (an unreadable directory looked empty, SB-13)', {
    skip: asRoot,
  }, async (t) => {
    const root = unlistableDir(t, 'jobs-root-');
    const stateDir = unlistableDir(t, 'jobs-state-');
    const jobs = manager(t, 'workspace_write', [root], { stateDir });
    await runText(jobs, root, 'true');
    const { text } = await runText(
      jobs,
      root,
      'mkdir hid && git init -q hid/repo && chmod 000 hid && echo made',
    );
    assert.match(text, /made/);
    restoreModes(root);
    assert.equal(
      existsSync(path.join(root, 'hid', 'repo', '.git')),
      false,
      'hid/repo/.git is out of the root',
    );
  });

  it('walks a root again when someone outside replaced it by renaming a directory above it (a root whose parent moved sends no event, SB-14, SB-17)', async (t) => {
    const top = tempDir(t, 'jobs-top-');
    const root = path.join(top, 'parent', 'root');
    for (let d = 0; d < 6; d++) mkdirSync(path.join(root, `d${d}`), { recursive: true });
    const index = watchedIndex(t, root);
    await index.build();
    await untilSettled(index);
    // The user moves the project's parent away and puts another tree at the same path: the old
    // root's watch follows its inode and hears nothing.
    renameSync(path.join(top, 'parent'), path.join(top, 'parent.old'));
    makeRepository(path.join(root, 'd2'));
    writeFileSync(path.join(root, '.env'), 'TOKEN=1\n');
    await settle();
    await index.refresh();
    const plan = index.plan();
    assert.ok(
      plan.readOnly.includes(path.join(root, 'd2', '.git')),
      'd2/.git of the new tree is bound read-only',
    );
    assert.ok(
      plan.hidden.some((secret) => secret.path === path.join(root, '.env')),
      'its .env is covered',
    );
  });

  it('binds and moves away the directory above a .git deeper than a path can name (a path past PATH_MAX was skipped, SB-13)', (t) => {
    const root = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'jobs-index-')));
    const name = 'n'.repeat(200);
    // 24 levels of 200 characters: past the 4096 bytes of a path, reachable only step by step.
    execFileSync('bash', [
      '-c',
      `cd "$1" && for i in $(seq 24); do mkdir ${name} && cd ${name}; done && mkdir -p repo/.git`,
      'deep',
      root,
    ]);
    // rm removes it step by step (node's rmSync names each path whole).
    t.after(() => execFileSync('rm', ['-rf', root]));
    const index = new ProtectedPathIndex({
      writableRoots: [root],
      readOnlyRoots: [],
      protectedPaths: [],
      secretPaths: [],
    });
    const update = index.buildSync();
    const deepest = index.plan().readOnly.find((bound) => bound.startsWith(path.join(root, name)));
    assert.ok(
      !update.complete || deepest !== undefined,
      'the plan binds a directory above the repository or is incomplete',
    );
    if (deepest) assert.ok(index.protectedEntries().has(deepest), 'a command that made it has it moved away');
  });
});
