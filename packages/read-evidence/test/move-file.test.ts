// Requirements cited: RE-18 (moves never replace; identity kept; cross-device). See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { chmod, mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { moveFileNoReplace } from '../src/index.js';
import { expectError, expectOk, tempDir } from './helpers.js';

async function otherDevice(directory: string): Promise<string | undefined> {
  try {
    const shm = await stat('/dev/shm');
    if (shm.isDirectory() && shm.dev !== (await stat(directory)).dev) return '/dev/shm';
  } catch {
    // no /dev/shm on this platform
  }
  return undefined;
}

describe('moveFileNoReplace', () => {
  it('moves a file on one device keeping its inode, creating parents (RE-18)', async (t) => {
    const directory = await tempDir(t);
    const source = join(directory, 'a.txt');
    await writeFile(source, 'content\n');
    const before = await stat(source, { bigint: true });
    const moved = expectOk(
      await moveFileNoReplace(source, join(directory, 'x', 'y', 'b.txt'), { createParents: true }),
    );
    assert.equal(moved.crossDevice, false);
    assert.equal(moved.stats?.ino, before.ino);
    assert.deepEqual(await readdir(directory), ['x']);
    assert.equal(await readFile(join(directory, 'x', 'y', 'b.txt'), 'utf8'), 'content\n');
  });

  it('never replaces an existing destination (RE-18)', async (t) => {
    const directory = await tempDir(t);
    await writeFile(join(directory, 'a.txt'), 'a');
    await writeFile(join(directory, 'b.txt'), 'b');
    const error = expectError(await moveFileNoReplace(join(directory, 'a.txt'), join(directory, 'b.txt')));
    assert.equal(error.code, 'FS_ALREADY_EXISTS');
    assert.equal(await readFile(join(directory, 'a.txt'), 'utf8'), 'a');
    assert.equal(await readFile(join(directory, 'b.txt'), 'utf8'), 'b');
  });

  it('lets only one of two racing moves onto one destination win', async (t) => {
    const directory = await tempDir(t);
    for (let round = 0; round < 20; round++) {
      await writeFile(join(directory, `a${round}`), 'a');
      await writeFile(join(directory, `b${round}`), 'b');
      const destination = join(directory, `target${round}`);
      const results = await Promise.all([
        moveFileNoReplace(join(directory, `a${round}`), destination),
        moveFileNoReplace(join(directory, `b${round}`), destination),
      ]);
      assert.equal(results.filter((result) => result.ok).length, 1);
      const winner = results[0]!.ok ? 'a' : 'b';
      assert.equal(await readFile(destination, 'utf8'), winner);
      const loser = winner === 'a' ? 'b' : 'a';
      assert.equal(
        await readFile(join(directory, `${loser}${round}`), 'utf8'),
        loser,
        'the loser stays in place',
      );
    }
  });

  it('refuses a missing source and a directory source', async (t) => {
    const directory = await tempDir(t);
    await mkdir(join(directory, 'dir'));
    assert.equal(
      expectError(await moveFileNoReplace(join(directory, 'no'), join(directory, 'b'))).code,
      'FS_NOT_FOUND',
    );
    assert.equal(
      expectError(await moveFileNoReplace(join(directory, 'dir'), join(directory, 'b'))).code,
      'NOT_A_FILE',
    );
  });

  it('abandons the move when the re-check refuses it', async (t) => {
    const directory = await tempDir(t);
    await writeFile(join(directory, 'a.txt'), 'a');
    const error = expectError(
      await moveFileNoReplace(join(directory, 'a.txt'), join(directory, 'b.txt'), {
        beforeCommit: () => ({ code: 'PATH_PROTECTED', message: 'b.txt is protected' }),
      }),
    );
    assert.equal(error.code, 'PATH_PROTECTED');
    assert.deepEqual(await readdir(directory), ['a.txt']);
  });

  it('moves across devices by copying, keeping mode and mtime, and removes the source (RE-18)', async (t) => {
    const directory = await tempDir(t);
    const device = await otherDevice(directory);
    if (!device) return t.skip('no second file system (/dev/shm) on this machine');
    const elsewhere = await tempDir(t, device);
    const source = join(directory, 'a.sh');
    await writeFile(source, 'echo hi\n');
    await chmod(source, 0o750);
    await utimes(source, new Date('2020-02-02T00:00:00Z'), new Date('2020-02-02T00:00:00Z'));
    const destination = join(elsewhere, 'moved', 'a.sh');
    const moved = expectOk(await moveFileNoReplace(source, destination, { createParents: true }));
    assert.equal(moved.crossDevice, true);
    assert.deepEqual(await readdir(directory), []);
    const after = await stat(destination);
    assert.equal(after.mode & 0o7777, 0o750);
    assert.equal(after.mtime.toISOString(), '2020-02-02T00:00:00.000Z');
    assert.equal(await readFile(destination, 'utf8'), 'echo hi\n');
    assert.deepEqual(await readdir(join(elsewhere, 'moved')), ['a.sh'], 'no temp file left');
    await writeFile(join(directory, 'again.sh'), 'x');
    assert.equal(
      expectError(await moveFileNoReplace(join(directory, 'again.sh'), destination)).code,
      'FS_ALREADY_EXISTS',
    );
  });
});
