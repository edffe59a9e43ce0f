// Requirements cited: RE-9 (atomic replace), RE-10 (no symlink following), RE-11 (no-overwrite
// creation), RE-12 (re-check before commit), RE-13 (temp clean-up). See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { watch } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeStaleTempFiles, writeFileAtomic } from '../src/index.js';
import { expectError, expectOk, tempDir } from './helpers.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function spawnTs(script: string, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, ['--conditions=@toolhost/source', '--import', 'tsx', script, ...args], {
    cwd: packageDir,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(child.signalCode ?? child.exitCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
}

function readLines(child: ChildProcess, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const lines = text.split('\n').filter(Boolean);
      if (lines.length >= count) {
        child.stdout!.off('data', onData);
        resolve(lines);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', () => reject(new Error(`child exited after ${JSON.stringify(text)}`)));
  });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const tempFiles = async (directory: string) =>
  (await readdir(directory)).filter((name) => name.endsWith('.toolhost-tmp'));

describe('writeFileAtomic', () => {
  it('replaces a file keeping its mode and leaves no temp file (RE-9)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.sh');
    await writeFile(file, 'old\n');
    await chmod(file, 0o751);
    const before = await stat(file);
    const committed = expectOk(await writeFileAtomic(file, Buffer.from('new\n')));
    assert.equal(await readFile(file, 'utf8'), 'new\n');
    assert.equal((await stat(file)).mode & 0o7777, 0o751);
    assert.notEqual(committed.stats?.ino, BigInt(before.ino), 'the new content is a new inode, renamed in');
    assert.equal(committed.stats?.ino, (await stat(file, { bigint: true })).ino);
    assert.deepEqual(await tempFiles(directory), []);
  });

  it('creates new files with the same default mode as any other file of the process', async (t) => {
    const directory = await tempDir(t);
    await writeFile(join(directory, 'reference'), '');
    expectOk(await writeFileAtomic(join(directory, 'new.txt'), Buffer.from('x')));
    assert.equal(
      (await stat(join(directory, 'new.txt'))).mode,
      (await stat(join(directory, 'reference'))).mode,
    );
  });

  it('replaces a symlink at the final component instead of writing through it (RE-10)', async (t) => {
    const directory = await tempDir(t);
    const outside = await tempDir(t);
    await writeFile(join(outside, 'victim.txt'), 'untouched\n');
    await symlink(join(outside, 'victim.txt'), join(directory, 'link.txt'));
    expectOk(await writeFileAtomic(join(directory, 'link.txt'), Buffer.from('replaced\n')));
    assert.equal(await readFile(join(outside, 'victim.txt'), 'utf8'), 'untouched\n');
    assert.ok((await lstat(join(directory, 'link.txt'))).isFile());
  });

  it('never creates through a dangling symlink when exclusive (RE-10, RE-11)', async (t) => {
    const directory = await tempDir(t);
    const outside = await tempDir(t);
    await symlink(join(outside, 'created.txt'), join(directory, 'dangling.txt'));
    const error = expectError(
      await writeFileAtomic(join(directory, 'dangling.txt'), Buffer.from('x'), { exclusive: true }),
    );
    assert.equal(error.code, 'FS_ALREADY_EXISTS');
    assert.deepEqual(await readdir(outside), []);
    assert.equal(await readlink(join(directory, 'dangling.txt')), join(outside, 'created.txt'));
    assert.deepEqual(await tempFiles(directory), []);
  });

  it('lets exactly one of two racing exclusive creators win, 50 rounds out of 50 (RE-11)', async (t) => {
    const directory = await tempDir(t);
    for (let round = 0; round < 50; round++) {
      const file = join(directory, `race-${round}.txt`);
      const results = await Promise.all(
        ['first', 'second'].map((who) => writeFileAtomic(file, Buffer.from(who), { exclusive: true })),
      );
      const winners = results.flatMap((result, index) => (result.ok ? [index] : []));
      const losers = results.filter((result) => !result.ok);
      assert.equal(winners.length, 1, `round ${round}: exactly one winner`);
      assert.equal(losers.length, 1);
      assert.equal(expectError(losers[0]!).code, 'FS_ALREADY_EXISTS');
      assert.equal(
        await readFile(file, 'utf8'),
        winners[0] === 0 ? 'first' : 'second',
        'the winner is intact',
      );
    }
    assert.deepEqual(await tempFiles(directory), []);
  });

  it('lets exactly one creator win per file when two processes race on 200 files (RE-11)', async (t) => {
    const directory = await tempDir(t);
    const paths = Array.from({ length: 200 }, (_, index) => join(directory, `file-${index}.txt`));
    await writeFile(join(directory, 'list.json'), JSON.stringify(paths));
    const child = spawnTs(fixture('create-many.ts'), [join(directory, 'list.json'), 'child']);
    t.after(() => child.kill('SIGKILL'));
    await readLines(child, 1);
    const childLines = readLines(child, 200);
    child.stdin!.write('go\n');
    const parent = await Promise.all(
      paths.map((path) => writeFileAtomic(path, Buffer.from('parent'), { exclusive: true })),
    );
    const childResults = new Map((await childLines).map((line) => [line.split(' ')[1]!, line]));
    await exited(child);
    t.diagnostic(`the parent won ${parent.filter((result) => result.ok).length} of 200 files`);
    for (const [index, path] of paths.entries()) {
      const parentWon = parent[index]!.ok;
      const childLine = childResults.get(path)!;
      assert.equal(parentWon, childLine.startsWith('lost'), `${path}: exactly one winner`);
      if (!parentWon) assert.equal(expectError(parent[index]!).code, 'FS_ALREADY_EXISTS');
      else assert.match(childLine, /FS_ALREADY_EXISTS$/);
      assert.equal(await readFile(path, 'utf8'), parentWon ? 'parent' : 'child');
    }
  });

  it('leaves the target entirely old or entirely new when the writer is SIGKILLed mid-write (RE-9, RE-13)', async (t) => {
    const directory = await tempDir(t);
    const target = join(directory, 'large.bin.txt');
    const oldContent = Buffer.alloc(4 * 1024 * 1024, 'o');
    const newSize = 48 * 1024 * 1024;
    const newHash = sha256(Buffer.alloc(newSize, 'n'));
    const oldHash = sha256(oldContent);
    let killedMidWrite = 0;
    let finished = 0;
    for (let round = 0; round < 12; round++) {
      await writeFile(target, oldContent);
      const sawTemp = new Promise<void>((resolve) => {
        const watcher = watch(directory, (_event, name) => {
          if (name?.endsWith('.toolhost-tmp')) {
            watcher.close();
            resolve();
          }
        });
        t.after(() => watcher.close());
      });
      const child = spawnTs(fixture('write-large-file.ts'), [target, String(newSize), 'n']);
      t.after(() => child.kill('SIGKILL'));
      await Promise.race([sawTemp, exited(child)]);
      // Vary the moment: right away, while the bytes are being written, or around the fsync and rename.
      const delay = [0, 15, 80, 300][round % 4]!;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      child.kill('SIGKILL');
      await exited(child);
      const hash = sha256(await readFile(target));
      assert.ok(
        hash === oldHash || hash === newHash,
        `round ${round}: the target is entirely old or entirely new`,
      );
      const leftovers = await tempFiles(directory);
      if (hash === oldHash && leftovers.length > 0) killedMidWrite++;
      if (hash === newHash) finished++;
      assert.equal(await removeStaleTempFiles(directory), leftovers.length);
      assert.deepEqual(await tempFiles(directory), [], 'the dead writer’s temp file is cleaned up');
    }
    t.diagnostic(
      `${killedMidWrite} of 12 kills landed before the rename (old content, temp file left), ${finished} after it`,
    );
    assert.ok(killedMidWrite > 0, 'at least one kill landed in the middle of a write');
  });

  it('abandons the write when the re-check before commit refuses it (RE-12)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'old\n');
    let called = 0;
    const error = expectError(
      await writeFileAtomic(file, Buffer.from('new\n'), {
        beforeCommit: () => {
          called++;
          return { code: 'FS_STALE_VERSION', message: 'a.txt changed after it was read' };
        },
      }),
    );
    assert.equal(called, 1);
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.equal(await readFile(file, 'utf8'), 'old\n');
    assert.deepEqual(await tempFiles(directory), []);
  });

  it('creates missing parents only when asked and refuses a directory target', async (t) => {
    const directory = await tempDir(t);
    const nested = join(directory, 'a', 'b', 'c.txt');
    assert.equal(expectError(await writeFileAtomic(nested, Buffer.from('x'))).code, 'FS_NOT_FOUND');
    expectOk(await writeFileAtomic(nested, Buffer.from('x'), { createParents: true }));
    assert.equal(await readFile(nested, 'utf8'), 'x');
    await mkdir(join(directory, 'dir'));
    assert.equal(
      expectError(await writeFileAtomic(join(directory, 'dir'), Buffer.from('x'))).code,
      'NOT_A_FILE',
    );
  });
});

describe('removeStaleTempFiles', () => {
  it('runs once per directory when a write first touches it, removing a dead writer’s leftovers (RE-13)', async (t) => {
    const directory = await tempDir(t);
    const child = spawn(process.execPath, ['-e', '']);
    await exited(child);
    const leftover = `.other.txt.${child.pid}.abcdefabcdef.toolhost-tmp`;
    await writeFile(join(directory, leftover), 'half a file');
    expectOk(await writeFileAtomic(join(directory, 'fresh.txt'), Buffer.from('x')));
    assert.deepEqual(await readdir(directory), ['fresh.txt']);
  });

  it('removes temp files of dead processes and keeps those of live ones (RE-13)', async (t) => {
    const directory = await tempDir(t);
    const child = spawn(process.execPath, ['-e', '']);
    await exited(child);
    const dead = `.a.txt.${child.pid}.0123456789ab.toolhost-tmp`;
    const live = `.a.txt.${process.pid}.0123456789ab.toolhost-tmp`;
    const unrelated = '.a.txt.1.notours.tmp';
    for (const name of [dead, live, unrelated]) await writeFile(join(directory, name), 'partial');
    assert.equal(await removeStaleTempFiles(directory), 1);
    assert.deepEqual((await readdir(directory)).sort(), [live, unrelated].sort());
    assert.equal(await removeStaleTempFiles(join(directory, 'missing')), 0);
  });
});
