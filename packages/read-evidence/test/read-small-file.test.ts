// Requirements cited: RE-8 (version from the descriptor, confirmed after reading; no symlink at the
// final component; never blocking on a FIFO), RE-19 (the synchronous read of small local files).
// See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_SYNC_READ_LIMIT,
  isBlockDeviceNumber,
  isLocalFileSystem,
  readSmallFileSync,
  readWholeFileSync,
} from '../src/read-small-file.js';
import { mkfifo } from './fifo.js';
import { changeAtFirstCheck, expectError, expectOk, localTempDir, tempDir } from './helpers.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('readSmallFileSync', () => {
  it('reads a file of exactly the limit and leaves a file one byte larger to the streaming path (RE-19)', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    const atLimit = Buffer.alloc(DEFAULT_SYNC_READ_LIMIT, 'a');
    writeFileSync(join(directory, 'at.txt'), atLimit);
    writeFileSync(join(directory, 'over.txt'), Buffer.alloc(DEFAULT_SYNC_READ_LIMIT + 1, 'a'));
    const read = expectOk(
      readSmallFileSync(join(directory, 'at.txt'), {
        displayPath: 'at.txt',
        limit: DEFAULT_SYNC_READ_LIMIT,
      })!,
    );
    assert.ok(read.bytes.equals(atLimit));
    assert.equal(read.stats.size, BigInt(DEFAULT_SYNC_READ_LIMIT));
    assert.equal(
      readSmallFileSync(join(directory, 'over.txt'), {
        displayPath: 'over.txt',
        limit: DEFAULT_SYNC_READ_LIMIT,
      }),
      undefined,
    );
    assert.equal(
      readSmallFileSync(join(directory, 'at.txt'), { displayPath: 'at.txt', limit: 0 }),
      undefined,
    );
  });

  it('reads an empty file', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    writeFileSync(join(directory, 'empty.txt'), '');
    const read = expectOk(readSmallFileSync(join(directory, 'empty.txt'), { displayPath: 'e', limit: 10 })!);
    assert.equal(read.bytes.length, 0);
  });

  it('leaves directories, FIFOs, missing paths and pseudo file systems to the streaming path (RE-19)', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    await mkdir(join(directory, 'dir'));
    const options = { displayPath: 'x', limit: DEFAULT_SYNC_READ_LIMIT };
    assert.equal(readSmallFileSync(join(directory, 'dir'), options), undefined);
    assert.equal(readSmallFileSync(join(directory, 'missing.txt'), options), undefined);
    if (await mkfifo(join(directory, 'pipe')))
      assert.equal(readSmallFileSync(join(directory, 'pipe'), options), undefined);
    // procfs reports size 0 for files with content: it is not a local disk file system.
    if (process.platform === 'linux')
      assert.equal(readSmallFileSync('/proc/self/status', options), undefined);
  });

  it('refuses a symlink at the final component itself, with PATH_INVALID (RE-8)', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    await writeFile(join(directory, 'target.txt'), 'small\n');
    await symlink(join(directory, 'target.txt'), join(directory, 'link.txt'));
    // The synchronous path opens first (O_NOFOLLOW) and answers for the link itself.
    const result = readSmallFileSync(join(directory, 'link.txt'), { displayPath: 'link.txt', limit: 1024 });
    assert.ok(result, 'the synchronous path answers for a link to a small local file');
    assert.equal(expectError(result).code, 'PATH_INVALID');
  });

  for (const [change, mutate] of [
    ['grows', (file: string) => appendFileSync(file, 'one more line\n')],
    ['shrinks', (file: string) => truncateSync(file, 3)],
    [
      'is replaced by another file',
      (file: string) => {
        writeFileSync(`${file}.new`, 'a different file\n');
        renameSync(`${file}.new`, file);
      },
    ],
  ] as const) {
    it(`fails with FS_STALE_VERSION when the file ${change} between the descriptor's stat and the read (RE-8)`, async (t) => {
      const directory = await localTempDir(t);
      if (!directory) return t.skip('no local file system for temp files');
      const file = join(directory, 'a.txt');
      writeFileSync(file, 'first line\nsecond line\n');
      const signal = changeAtFirstCheck(() => mutate(file));
      const result = readSmallFileSync(file, { displayPath: 'a.txt', limit: 1024, signal });
      assert.equal(signal.checks, 1, 'the synchronous path asked once, before reading');
      const error = expectError(result!);
      assert.equal(error.code, 'FS_STALE_VERSION');
      assert.match(error.message, /a\.txt changed while it was being read/);
    });
  }

  it('reads nothing when the signal is already aborted', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    await writeFile(join(directory, 'a.txt'), 'x\n');
    const controller = new AbortController();
    controller.abort();
    const result = readSmallFileSync(join(directory, 'a.txt'), {
      displayPath: 'a.txt',
      limit: 1024,
      signal: controller.signal,
    });
    assert.equal(expectError(result!).code, 'ABORTED');
  });
});

describe('readWholeFileSync', () => {
  it('refuses a FIFO with NOT_A_FILE without blocking on it (RE-8)', async (t) => {
    const directory = await tempDir(t);
    const fifo = join(directory, 'pipe');
    if (!(await mkfifo(fifo))) return t.skip('mkfifo is not available');
    // In a child process: an open that blocked would hold its event loop forever, so the parent
    // waits for one line and kills the child if it never comes.
    const child = spawn(
      process.execPath,
      ['--conditions=@toolhost/source', '--import', 'tsx', fixture('read-whole-file-sync.ts'), fifo],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const blocked = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    clearTimeout(blocked);
    assert.equal(signal, null, 'the child blocked on the FIFO and was killed');
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(output), { code: 'NOT_A_FILE', message: 'pipe is not a regular file' });
  });

  it('refuses a directory with NOT_A_FILE and a missing path with FS_NOT_FOUND', async (t) => {
    const directory = await tempDir(t);
    await mkdir(join(directory, 'dir'));
    const dir = expectError(readWholeFileSync(join(directory, 'dir'), { displayPath: 'dir', limit: 1024 })!);
    assert.equal(dir.code, 'NOT_A_FILE');
    assert.match(dir.message, /dir is a directory/);
    assert.equal(
      expectError(readWholeFileSync(join(directory, 'missing'), { displayPath: 'missing', limit: 1024 })!)
        .code,
      'FS_NOT_FOUND',
    );
  });

  it('hands a file that grew past the limit before it was opened back to the streaming path', async (t) => {
    const directory = await tempDir(t);
    await writeFile(join(directory, 'a.txt'), 'x'.repeat(2000));
    assert.equal(
      readWholeFileSync(join(directory, 'a.txt'), { displayPath: 'a.txt', limit: 1024 }),
      undefined,
    );
  });
});

describe('isLocalFileSystem', () => {
  it('is true for a tmpfs directory and false for procfs (RE-19)', (t) => {
    if (process.platform !== 'linux') return t.skip('Linux only; the fast path is off elsewhere');
    assert.equal(isLocalFileSystem('/proc/self/status', statSync('/proc/self/status').dev), false);
    if (statSync('/dev/shm', { throwIfNoEntry: false })?.isDirectory())
      assert.equal(isLocalFileSystem('/dev/shm', statSync('/dev/shm').dev), true);
  });

  it('tells block devices from anonymous ones by the major number, and caches only what is safe (RE-19)', (t) => {
    if (process.platform !== 'linux') return t.skip('Linux only; the fast path is off elsewhere');
    // procfs and tmpfs have anonymous devices (major 0); 8:1 (sda1), 254:0 (dm-0), 259:3 (nvme) do not.
    assert.equal(isBlockDeviceNumber(statSync('/proc/self/status').dev), false);
    if (statSync('/dev/shm', { throwIfNoEntry: false })?.isDirectory())
      assert.equal(isBlockDeviceNumber(statSync('/dev/shm').dev), false);
    for (const [major, minor] of [
      [8, 1],
      [254, 0],
      [259, 3],
    ] as const)
      assert.equal(isBlockDeviceNumber((major << 8) | minor), true);
    assert.equal(isBlockDeviceNumber(0x2f), false); // an anonymous device such as 0:47
    assert.equal(isBlockDeviceNumber(2 ** 32 * 1), true); // a major number above 4095
    // A device first answered local, then asked again: still local; procfs stays remote.
    const here = statSync(packageDir).dev;
    const first = isLocalFileSystem(packageDir, here);
    assert.equal(isLocalFileSystem(packageDir, here), first);
    assert.equal(isLocalFileSystem('/proc/self/status', statSync('/proc/self/status').dev), false);
  });
});
