// Requirements cited: WRITE-1..WRITE-5. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createMutationLocks, createObservationStore } from '@toolhost/read-evidence';
import { errorOf, fileTools, okText } from './file-helpers.js';

describe('write_file', () => {
  it('creates a missing file and its parents without a prior read (WRITE-1)', async (t) => {
    const files = await fileTools(t);
    const text = okText(
      await files.call('write_file', { path: 'src/deep/new.ts', content: 'export {};\nconst a = 1;\n' }),
    );
    assert.equal(text, 'created src/deep/new.ts (2 lines, 24 bytes)');
    assert.equal(await readFile(join(files.root, 'src/deep/new.ts'), 'utf8'), 'export {};\nconst a = 1;\n');
    assert.equal(
      files.store.lookup(join(files.root, 'src/deep/new.ts')).state,
      'present',
      'its own write observes it',
    );
  });

  it('refuses to replace an existing file that was never read (WRITE-1)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'keep me\n');
    const error = errorOf(await files.call('write_file', { path: 'a.txt', content: 'replaced\n' }));
    assert.equal(error.code, 'FS_NOT_OBSERVED');
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'keep me\n');
  });

  it('replaces an observed file and shows a diff (WRITE-1)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'alpha\nbeta\n');
    okText(await files.call('read_file', { path: 'a.txt', limit: 1 }));
    const text = okText(await files.call('write_file', { path: 'a.txt', content: 'alpha\ngamma\n' }));
    assert.equal(
      text,
      'wrote 12 bytes to a.txt (replaced its content)\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n',
    );
    // The observation advanced: a second write needs no re-read.
    okText(await files.call('write_file', { path: 'a.txt', content: 'final\n' }));
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'final\n');
  });

  it('writes nothing for identical content, but only after the observation check (WRITE-2)', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'a.txt');
    await writeFile(file, 'same\n');
    assert.equal(
      errorOf(await files.call('write_file', { path: 'a.txt', content: 'same\n' })).code,
      'FS_NOT_OBSERVED',
    );
    okText(await files.call('read_file', { path: 'a.txt' }));
    const before = await stat(file, { bigint: true });
    assert.equal(
      okText(await files.call('write_file', { path: 'a.txt', content: 'same\n' })),
      'a.txt already contains the exact content; no changes made',
    );
    const after = await stat(file, { bigint: true });
    assert.equal(after.ino, before.ino);
    assert.equal(after.mtimeNs, before.mtimeNs, 'the file was not rewritten');
  });

  it('creates after a missing read, and reports a file removed since it was read as stale (WRITE-3)', async (t) => {
    const files = await fileTools(t);
    assert.equal(errorOf(await files.call('read_file', { path: 'new.txt' })).code, 'FS_NOT_FOUND');
    okText(await files.call('write_file', { path: 'new.txt', content: 'created\n' }));
    await writeFile(join(files.root, 'old.txt'), 'x\n');
    okText(await files.call('read_file', { path: 'old.txt' }));
    await rm(join(files.root, 'old.txt'));
    const error = errorOf(await files.call('write_file', { path: 'old.txt', content: 'y\n' }));
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.match(error.text, /old\.txt was removed after it was observed/);
    assert.deepEqual((await readdir(files.root)).sort(), ['new.txt']);
  });

  it('lets exactly one of two racing creators win, 50 rounds of 50, and keeps the winner intact (WRITE-4)', async (t) => {
    const root = (await fileTools(t)).root;
    // Separate locks, as if the agents ran in two processes: exclusivity comes from the file system.
    const first = await fileTools(t, { root, locks: createMutationLocks(), store: createObservationStore() });
    const second = await fileTools(t, {
      root,
      locks: createMutationLocks(),
      store: createObservationStore(),
    });
    for (let round = 0; round < 50; round++) {
      const path = `created-${round}.txt`;
      const results = await Promise.all([
        first.call('write_file', { path, content: 'first\n' }),
        second.call('write_file', { path, content: 'second\n' }),
      ]);
      const losers = results.filter((result) => !result.ok);
      assert.equal(losers.length, 1, `round ${round}: exactly one creator wins`);
      const loser = errorOf(losers[0]!);
      assert.equal(loser.code, 'FS_ALREADY_EXISTS', 'the loser is told the file was created concurrently');
      assert.equal(await readFile(join(root, path), 'utf8'), results[0]!.ok ? 'first\n' : 'second\n');
    }
  });

  it('keeps the encoding, BOM and line endings of the file it replaces', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'win.txt');
    await writeFile(file, '\ufeffa\r\nb\r\n');
    okText(await files.call('read_file', { path: 'win.txt' }));
    okText(await files.call('write_file', { path: 'win.txt', content: 'x\ny\nz\n' }));
    assert.equal(await readFile(file, 'utf8'), '\ufeffx\r\ny\r\nz\r\n');
    const utf16 = join(files.root, 'u16.txt');
    await writeFile(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('old\n', 'utf16le')]));
    okText(await files.call('read_file', { path: 'u16.txt' }));
    okText(await files.call('write_file', { path: 'u16.txt', content: 'nëw\n' }));
    assert.deepEqual(
      await readFile(utf16),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('nëw\n', 'utf16le')]),
    );
  });

  it('never writes through a dangling symlink to outside the project (WRITE-5)', async (t) => {
    const files = await fileTools(t);
    const outside = (await fileTools(t)).root;
    await symlink(join(outside, 'escaped.txt'), join(files.root, 'link.txt'));
    const error = errorOf(await files.call('write_file', { path: 'link.txt', content: 'x' }));
    assert.equal(error.code, 'PATH_OUTSIDE_ROOT');
    assert.deepEqual(await readdir(outside), []);
  });

  it('refuses protected and secret paths (WRITE-5)', async (t) => {
    const files = await fileTools(t);
    await mkdir(join(files.root, '.git'));
    assert.equal(
      errorOf(await files.call('write_file', { path: '.git/hooks/pre-commit', content: 'x' })).code,
      'PATH_PROTECTED',
    );
    assert.equal(
      errorOf(await files.call('write_file', { path: '.env', content: 'KEY=1' })).code,
      'PATH_PROTECTED',
    );
    assert.deepEqual(await readdir(join(files.root, '.git')), []);
  });

  it('refuses a directory target with NOT_A_FILE', async (t) => {
    const files = await fileTools(t);
    await mkdir(join(files.root, 'dir'));
    assert.equal(errorOf(await files.call('write_file', { path: 'dir', content: 'x' })).code, 'NOT_A_FILE');
  });

  it('declares write access, sequential non-abortable execution and destructive, idempotent annotations', async (t) => {
    const files = await fileTools(t);
    const tool = files.tools.get('write_file')!;
    assert.equal(tool.group, 'editing_builtins');
    assert.deepEqual(tool.execution, { mode: 'sequential', timeoutMs: 120_000, abortable: false });
    assert.deepEqual(tool.annotations, {
      readOnly: false,
      destructive: true,
      idempotent: true,
      openWorld: false,
    });
    assert.deepEqual(tool.permission?.paths?.({ path: 'a', content: '' }), [
      { argument: 'path', path: 'a', access: 'write' },
    ]);
  });
});
