// RE-20: cross-process file locks.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createFileLocks, defaultLockDirectory } from '../src/index.js';
import { expectError, expectOk, tempDir } from './helpers.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const holder = fileURLToPath(new URL('./fixtures/hold-lock.ts', import.meta.url));

function spawnHolder(file: string, directory: string): ChildProcess {
  return spawn(
    process.execPath,
    ['--conditions=@toolhost/source', '--import', 'tsx', holder, file, directory],
    {
      cwd: packageDir,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
}

function nextLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end >= 0) {
        child.stdout!.off('data', onData);
        resolve(text.slice(0, end));
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`holder exited (${code})`)));
  });
}

async function keyOf(file: string): Promise<string> {
  const stats = await stat(file, { bigint: true });
  return `${stats.dev}-${stats.ino}`;
}

describe('createFileLocks', () => {
  it('makes a second process wait until the holder releases (RE-20)', { timeout: 60_000 }, async (t) => {
    const directory = await tempDir(t);
    const locks = join(directory, 'locks');
    const file = join(directory, 'a.txt');
    await writeFile(file, 'a\n');
    const child = spawnHolder(file, locks);
    t.after(() => child.kill('SIGKILL'));
    assert.equal(await nextLine(child), `held ${await keyOf(file)}`);
    const mine = createFileLocks({ directory: locks, timeoutMs: 30_000 });
    let acquired = false;
    const waiting = mine.acquire(file).then((result) => {
      acquired = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(acquired, false, 'took a lock another live process holds');
    child.stdin!.write('release\n');
    assert.equal(await nextLine(child), 'released');
    const lock = expectOk(await waiting);
    assert.equal(lock.key, await keyOf(file));
    lock.release();
    lock.release();
    assert.deepEqual(
      (await readdir(locks)).filter((name) => name.endsWith('.lock')),
      [],
    );
  });

  it('breaks the lock of a holder that was killed while holding it (RE-20)', {
    timeout: 60_000,
  }, async (t) => {
    const directory = await tempDir(t);
    const locks = join(directory, 'locks');
    const file = join(directory, 'a.txt');
    await writeFile(file, 'a\n');
    const child = spawnHolder(file, locks);
    assert.match(await nextLine(child), /^held /);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    assert.equal(
      (await readdir(locks)).filter((name) => name.endsWith('.lock')).length,
      1,
      'the dead lock is left',
    );
    // A timeout of 0 would fail on any live holder: the dead one must be broken at once.
    const lock = expectOk(await createFileLocks({ directory: locks, timeoutMs: 0 }).acquire(file));
    assert.equal(lock.key, await keyOf(file));
    lock.release();
  });

  it('breaks a lock whose pid now belongs to another process (start time differs) (RE-20)', {
    skip: process.platform !== 'linux',
  }, async (t) => {
    const directory = await tempDir(t);
    const locks = join(directory, 'locks');
    await mkdir(locks, { mode: 0o700 });
    const file = join(directory, 'a.txt');
    await writeFile(file, 'a\n');
    // pid 1 is alive, but it did not start at tick 1: a recycled pid, not the holder.
    await writeFile(join(locks, `${await keyOf(file)}.lock`), JSON.stringify({ pid: 1, start: '1' }));
    const lock = expectOk(await createFileLocks({ directory: locks, timeoutMs: 0 }).acquire(file));
    lock.release();
  });

  it('times out on a live holder with FS_LOCKED, naming the file as given (RE-20)', {
    timeout: 60_000,
  }, async (t) => {
    const directory = await tempDir(t);
    const locks = join(directory, 'locks');
    const file = join(directory, 'a.txt');
    await writeFile(file, 'a\n');
    const child = spawnHolder(file, locks);
    t.after(() => child.kill('SIGKILL'));
    assert.match(await nextLine(child), /^held /);
    const refused = expectError(
      await createFileLocks({ directory: locks, timeoutMs: 150 }).acquire(file, { displayPath: 'src/a.txt' }),
    );
    assert.equal(refused.code, 'FS_LOCKED');
    assert.match(refused.message, /^src\/a\.txt is being modified by another toolhost process \(pid \d+\)/);
    assert.ok(!refused.message.includes(directory));
  });

  it('follows a file replaced while it waited and locks the new inode (RE-20)', {
    timeout: 60_000,
  }, async (t) => {
    const directory = await tempDir(t);
    const locks = join(directory, 'locks');
    const file = join(directory, 'a.txt');
    await writeFile(file, 'a\n');
    const oldKey = await keyOf(file);
    const child = spawnHolder(file, locks);
    t.after(() => child.kill('SIGKILL'));
    assert.equal(await nextLine(child), `held ${oldKey}`);
    const waiting = createFileLocks({ directory: locks, timeoutMs: 30_000 }).acquire(file);
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.stdin!.write('replace\n');
    assert.equal(await nextLine(child), 'released');
    const lock = expectOk(await waiting);
    assert.notEqual(lock.key, oldKey);
    assert.equal(lock.key, await keyOf(file));
    lock.release();
  });

  it('gives a no-op lock for a missing path or a non-file, and shares one lock between agents of a process (RE-20)', async (t) => {
    const directory = await tempDir(t);
    const locks = createFileLocks({ directory: join(directory, 'locks'), timeoutMs: 100 });
    assert.equal(expectOk(await locks.acquire(join(directory, 'missing'))).key, null);
    assert.equal(expectOk(await locks.acquire(directory)).key, null);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'a\n');
    const first = expectOk(await locks.acquire(file));
    // Another agent of this process (a hard link, so the in-process path locks differ) waits too.
    const second = await createFileLocks({ directory: join(directory, 'locks'), timeoutMs: 100 }).acquire(
      file,
    );
    assert.equal(expectError(second).code, 'FS_LOCKED');
    assert.match(expectError(second).message, /another agent of this one/);
    first.release();
    expectOk(await locks.acquire(file)).release();
  });

  it('refuses a lock directory that is not private, and defaults to one per user (RE-20)', {
    skip: process.platform === 'win32',
  }, async (t) => {
    const directory = await tempDir(t);
    const locks = join(directory, 'locks');
    await mkdir(locks);
    await chmod(locks, 0o777);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'a\n');
    const refused = expectError(await createFileLocks({ directory: locks }).acquire(file));
    assert.equal(refused.code, 'EXECUTION_ERROR');
    assert.match(refused.message, /not made/);
    assert.ok(!refused.message.includes(locks));
    assert.ok(defaultLockDirectory().endsWith(`toolhost-locks-${process.getuid?.()}`));
  });
});
