// Requirements cited: MOVE-1. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createPathPolicy } from '@toolhost/path-policy';
import { createObservationStore } from '@toolhost/read-evidence';
import { createFileTools } from '../../src/index.js';
import { callTool, errorOf, fileTools, okText, tempProject } from './file-helpers.js';

describe('move_file', () => {
  it('moves an observed file, creating parents, and the observation follows it', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'content\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    assert.equal(
      okText(await files.call('move_file', { source: 'a.txt', destination: 'lib/b.txt' })),
      'moved a.txt to lib/b.txt',
    );
    assert.deepEqual(files.store.lookup(join(files.root, 'a.txt')), { state: 'absent' });
    assert.equal(files.store.lookup(join(files.root, 'lib/b.txt')).state, 'present');
    okText(await files.call('edit_file', { path: 'lib/b.txt', old_string: 'content', new_string: 'moved' }));
    assert.equal(await readFile(join(files.root, 'lib/b.txt'), 'utf8'), 'moved\n');
  });

  it('never replaces an existing destination (MOVE-1)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'a');
    await writeFile(join(files.root, 'b.txt'), 'b');
    okText(await files.call('read_file', { path: 'a.txt' }));
    const error = errorOf(await files.call('move_file', { source: 'a.txt', destination: 'b.txt' }));
    assert.equal(error.code, 'FS_ALREADY_EXISTS');
    assert.equal(await readFile(join(files.root, 'b.txt'), 'utf8'), 'b');
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'a');
  });

  it('requires a current observation of the source', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'a\n');
    assert.equal(
      errorOf(await files.call('move_file', { source: 'a.txt', destination: 'b.txt' })).code,
      'FS_NOT_OBSERVED',
    );
    okText(await files.call('read_file', { path: 'a.txt' }));
    await writeFile(join(files.root, 'a.txt'), 'changed\n');
    assert.equal(
      errorOf(await files.call('move_file', { source: 'a.txt', destination: 'b.txt' })).code,
      'FS_STALE_VERSION',
    );
    assert.equal(
      errorOf(await files.call('move_file', { source: 'none.txt', destination: 'b.txt' })).code,
      'FS_NOT_FOUND',
    );
    assert.deepEqual((await readdir(files.root)).sort(), ['a.txt']);
  });

  it('refuses a protected destination and one outside the project', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'a\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    assert.equal(
      errorOf(await files.call('move_file', { source: 'a.txt', destination: '.git/a.txt' })).code,
      'PATH_PROTECTED',
    );
    assert.equal(
      errorOf(await files.call('move_file', { source: 'a.txt', destination: '../a.txt' })).code,
      'PATH_OUTSIDE_ROOT',
    );
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'a\n');
  });

  it('moves across file systems between two allowed roots, keeping the observation', async (t) => {
    const root = await tempProject(t);
    const shm = await stat('/dev/shm').catch(() => undefined);
    if (!shm || shm.dev === (await stat(root)).dev) return t.skip('no second file system (/dev/shm)');
    const elsewhere = await realpath(await mkdtemp('/dev/shm/toolhost-move-'));
    t.after(() => rm(elsewhere, { recursive: true, force: true }));
    const store = createObservationStore();
    const tools = createFileTools({
      pathPolicy: createPathPolicy({ mode: 'allowed_roots', allowedRoots: [root, elsewhere] }),
      observations: store,
    });
    const call = (name: string, args: Record<string, unknown>) =>
      callTool(tools.find((tool) => tool.name === name)!, args);
    await writeFile(join(root, 'a.txt'), 'cross\n');
    okText(await call('read_file', { path: 'a.txt' }));
    const destination = join(elsewhere, 'sub', 'a.txt');
    assert.match(
      okText(await call('move_file', { source: 'a.txt', destination })),
      /\(copied across file systems\)$/,
    );
    assert.deepEqual(await readdir(root), []);
    assert.equal(await readFile(destination, 'utf8'), 'cross\n');
    okText(await call('edit_file', { path: destination, old_string: 'cross', new_string: 'moved' }));
    assert.equal(await readFile(destination, 'utf8'), 'moved\n');
  });

  it('declares write access for both paths and non-destructive annotations', async (t) => {
    const files = await fileTools(t);
    const tool = files.tools.get('move_file')!;
    assert.deepEqual(tool.permission?.paths?.({ source: 'a', destination: 'b' }), [
      { argument: 'source', path: 'a', access: 'write' },
      { argument: 'destination', path: 'b', access: 'write' },
    ]);
    assert.deepEqual(tool.annotations, {
      readOnly: false,
      destructive: false,
      idempotent: false,
      openWorld: false,
    });
    assert.deepEqual(tool.execution, { mode: 'sequential', timeoutMs: 120_000, abortable: false });
  });
});
