// Requirements cited: RE-3, RE-8. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { mkfifo } from './fifo.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readFileSnapshot, sha256Of } from '../src/index.js';
import { expectError, expectOk, tempDir } from './helpers.js';

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
});
