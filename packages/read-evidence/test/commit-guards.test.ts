// RE-21 (the final version check and the commit gap) and RE-22 (descriptor-relative paths and the
// synchronous commit check).
import assert from 'node:assert/strict';
import { appendFileSync, closeSync, constants, openSync, writeSync } from 'node:fs';
import { link, lstat, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileVersionOf, moveFileNoReplace, readFileSnapshot, writeFileAtomic } from '../src/index.js';
import { expectError, expectOk, tempDir } from './helpers.js';

const leftovers = async (directory: string) =>
  (await readdir(directory)).filter((name) => name.endsWith('.toolhost-tmp'));
const onLinux = process.platform === 'linux' ? false : 'descriptor-relative paths need /proc (Linux)';

describe('writeFileAtomic with expectedVersion', () => {
  it('refuses with FS_STALE_VERSION when another program changed the file after it was read (RE-21)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const read = expectOk(await readFileSnapshot(file));
    appendFileSync(file, 'appended by someone else\n');
    const refused = expectError(
      await writeFileAtomic(file, Buffer.from('mine\n'), { expectedVersion: read.version }),
    );
    assert.equal(refused.code, 'FS_STALE_VERSION');
    assert.equal(await readFile(file, 'utf8'), 'one\nappended by someone else\n');
    assert.deepEqual(await leftovers(directory), []);
  });

  it('commits over a touch (same content, new metadata) and refuses a removed or replaced file (RE-21)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const read = expectOk(await readFileSnapshot(file));
    await utimes(file, new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    expectOk(await writeFileAtomic(file, Buffer.from('two\n'), { expectedVersion: read.version }));
    assert.equal(await readFile(file, 'utf8'), 'two\n');
    // The version read before is not the file any more (our own write replaced it).
    const stale = expectError(
      await writeFileAtomic(file, Buffer.from('three\n'), { expectedVersion: read.version }),
    );
    assert.equal(stale.code, 'FS_STALE_VERSION');
    const current = expectOk(await readFileSnapshot(file));
    await rm(file);
    const removed = expectError(
      await writeFileAtomic(file, Buffer.from('four\n'), { expectedVersion: current.version }),
    );
    assert.equal(removed.code, 'FS_STALE_VERSION');
    assert.match(removed.message, /removed/);
    assert.deepEqual(await readdir(directory), []);
  });

  it('refuses a write that lands right before the final fstat (RE-21)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const read = expectOk(await readFileSnapshot(file));
    let checks = 0;
    const refused = expectError(
      await writeFileAtomic(file, Buffer.from('mine\n'), {
        expectedVersion: read.version,
        // The first call runs right before the final fstat and the rename.
        commitCheck: () => {
          if (++checks === 1) appendFileSync(file, 'appended\n');
          return undefined;
        },
      }),
    );
    assert.equal(refused.code, 'FS_STALE_VERSION');
    assert.equal(await readFile(file, 'utf8'), 'one\nappended\n');
  });

  it('reports a write to the replaced file after its final fstat as concurrentChange (RE-21)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const read = expectOk(await readFileSnapshot(file));
    // A writer that keeps the file open (its writes go to the old inode whatever its name becomes).
    const writer = openSync(file, constants.O_WRONLY | constants.O_APPEND);
    t.after(() => closeSync(writer));
    let checks = 0;
    const committed = expectOk(
      await writeFileAtomic(file, Buffer.from('mine\n'), {
        expectedVersion: read.version,
        commitCheck: () => {
          // The second call runs right after the rename, inside the stretch the option watches.
          if (++checks === 2) writeSync(writer, 'lost\n');
          return undefined;
        },
      }),
    );
    assert.equal(checks, 2, 'the check runs right before and right after the rename');
    assert.equal(committed.concurrentChange, true);
    assert.equal(await readFile(file, 'utf8'), 'mine\n');
    const quiet = expectOk(
      await writeFileAtomic(file, Buffer.from('again\n'), {
        expectedVersion: fileVersionOf(committed.stats!, null),
      }),
    );
    assert.equal(quiet.concurrentChange, false);
  });
});

describe('commitCheck', () => {
  it('abandons a write when it refuses before the commit, and removes an exclusive create it refuses after (RE-22)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    const refusal = { code: 'PATH_INVALID' as const, message: 'moved' };
    const before = expectError(
      await writeFileAtomic(file, Buffer.from('x'), { exclusive: true, commitCheck: () => refusal }),
    );
    assert.equal(before.code, 'PATH_INVALID');
    assert.deepEqual(await readdir(directory), []);
    let calls = 0;
    const after = expectError(
      await writeFileAtomic(file, Buffer.from('x'), {
        exclusive: true,
        commitCheck: () => (++calls === 2 ? refusal : undefined),
      }),
    );
    assert.equal(after.code, 'PATH_INVALID');
    assert.deepEqual(await readdir(directory), [], 'the file created before the refusal is removed again');
    // A replace cannot be undone: the error is returned with the new content in place.
    await writeFile(file, 'old');
    calls = 0;
    const replaced = expectError(
      await writeFileAtomic(file, Buffer.from('new'), {
        commitCheck: () => (++calls === 2 ? refusal : undefined),
      }),
    );
    assert.equal(replaced.code, 'PATH_INVALID');
    assert.equal(await readFile(file, 'utf8'), 'new');
    assert.deepEqual(await leftovers(directory), []);
  });

  it('removes the destination of a move it refuses after the link, keeping the source (RE-22)', async (t) => {
    const directory = await tempDir(t);
    await writeFile(join(directory, 'a.txt'), 'a');
    let calls = 0;
    const refused = expectError(
      await moveFileNoReplace(join(directory, 'a.txt'), join(directory, 'b.txt'), {
        commitCheck: () => (++calls === 2 ? { code: 'PATH_INVALID', message: 'moved' } : undefined),
      }),
    );
    assert.equal(refused.code, 'PATH_INVALID');
    assert.deepEqual(await readdir(directory), ['a.txt']);
  });
});

describe('descriptor-relative paths', { skip: onLinux }, () => {
  it('write, replace, move and read inside the directory a descriptor holds (RE-22)', async (t) => {
    const directory = await tempDir(t);
    const held = openSync(directory, constants.O_RDONLY | constants.O_DIRECTORY);
    t.after(() => closeSync(held));
    const at = (name: string) => `/proc/self/fd/${held}/${name}`;
    expectOk(
      await writeFileAtomic(at('a.txt'), Buffer.from('one\n'), {
        exclusive: true,
        directoryRealPath: directory,
      }),
    );
    const read = expectOk(await readFileSnapshot(at('a.txt')));
    assert.equal(read.bytes.toString(), 'one\n');
    expectOk(
      await writeFileAtomic(at('a.txt'), Buffer.from('two\n'), {
        expectedVersion: read.version,
        directoryRealPath: directory,
      }),
    );
    expectOk(await moveFileNoReplace(at('a.txt'), at('b.txt')));
    assert.equal(await readFile(join(directory, 'b.txt'), 'utf8'), 'two\n');
    assert.deepEqual((await readdir(directory)).sort(), ['b.txt']);
    // Hard links keep working through the descriptor too (the exclusive create uses link(2)).
    await link(join(directory, 'b.txt'), join(directory, 'c.txt'));
    assert.equal((await lstat(join(directory, 'c.txt'))).nlink, 2);
    assert.equal((await stat(at('c.txt'))).size, 4);
  });
});
