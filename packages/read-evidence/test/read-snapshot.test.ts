// Requirements cited: RE-3, RE-8, RE-19. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { mkfifo } from './fifo.js';
import { writeFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readFileSnapshot, sha256Of } from '../src/index.js';
import { readSmallFileSync } from '../src/read-small-file.js';
import { expectError, expectOk, localTempDir, tempDir } from './helpers.js';

describe('readFileSnapshot', () => {
  it('reads the whole file with a hashed version within the hash limit (RE-3)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'hello\n');
    const snapshot = expectOk(await readFileSnapshot(file));
    assert.equal(snapshot.bytes.toString(), 'hello\n');
    assert.equal(snapshot.version.sha256, sha256Of(Buffer.from('hello\n')));
    assert.equal(snapshot.version.size, 6);
    assert.equal(expectOk(await readFileSnapshot(file, { hashLimit: 2 })).version.sha256, null);
  });

  it('refuses files over maxBytes with FILE_TOO_LARGE', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'x'.repeat(100));
    const error = expectError(await readFileSnapshot(file, { maxBytes: 10, displayPath: 'a.txt' }));
    assert.equal(error.code, 'FILE_TOO_LARGE');
    assert.match(error.message, /a\.txt is 100 bytes/);
  });

  it('refuses a FIFO without blocking on it', async (t) => {
    const directory = await tempDir(t);
    const fifo = join(directory, 'pipe');
    if (!(await mkfifo(fifo))) return t.skip('mkfifo is not available');
    assert.equal(expectError(await readFileSnapshot(fifo)).code, 'NOT_A_FILE');
  });

  it('returns the same snapshot from a synchronous read as from the streaming read (RE-19)', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    const file = join(directory, 'a.txt');
    writeFileSync(file, 'x\n'.repeat(5000));
    assert.ok(readSmallFileSync(file, { displayPath: 'a.txt', limit: 256 * 1024 }));
    for (const options of [{}, { hashLimit: 100 }, { maxBytes: 10_000 }]) {
      const synchronous = expectOk(await readFileSnapshot(file, options));
      assert.deepEqual(synchronous, expectOk(await readFileSnapshot(file, { ...options, syncReadLimit: 0 })));
      assert.equal(synchronous.bytes.toString(), 'x\n'.repeat(5000));
    }
    assert.equal(expectError(await readFileSnapshot(file, { maxBytes: 9_999 })).code, 'FILE_TOO_LARGE');
  });

  it('refuses a symlink at the final component on either path (RE-8)', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    await writeFile(join(directory, 'target.txt'), 'x\n');
    await symlink(join(directory, 'target.txt'), join(directory, 'link.txt'));
    for (const syncReadLimit of [undefined, 0]) {
      const options = syncReadLimit === undefined ? {} : { syncReadLimit };
      assert.equal(
        expectError(await readFileSnapshot(join(directory, 'link.txt'), options)).code,
        'PATH_INVALID',
      );
    }
  });
});
