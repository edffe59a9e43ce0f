import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPathPolicy, DEFAULT_PROTECTED_PATHS, DEFAULT_SECRET_PATHS } from '@toolhost/path-policy';
import { createLsTool } from '../../src/index.js';
import { call, failure, makeTree, okText, writeTree } from '../grep/grep-fixtures.js';

// Requirements cited: DISC-1 (symlinks out of the project), DISC-2 (`ls` of a file), LS-1, LS-2
// (sorted entries, .git hidden, entry limit notice). See ../REQUIREMENTS.md.

async function listing(entries: Parameters<typeof makeTree>[0], args: Record<string, unknown> = {}) {
  const tree = await makeTree(entries);
  try {
    return { text: okText(await call(createLsTool({ pathPolicy: tree.policy }), args)), root: tree.root };
  } finally {
    await tree.remove();
  }
}

describe('createLsTool', () => {
  it('lists entries sorted by name: directories end in "/", files show sizes; .git, node_modules and .next are hidden (LS-1)', async () => {
    const { text } = await listing({
      'b.txt': 'x'.repeat(2048),
      'A.md': 'hello',
      'src/index.ts': '',
      '.github/ci.yml': '',
      '.git/HEAD': 'ref',
      'node_modules/pkg/index.js': '',
      '.next/cache/x': '',
      'Zeta/': '',
      'link.ts': { symlink: 'src/index.ts' },
    });
    assert.equal(
      text,
      [
        'Directory: .',
        '.github/',
        'A.md  5 B',
        'b.txt  2.0 KiB',
        'link.ts -> src/index.ts',
        'src/',
        'Zeta/',
        '',
        '[Not listed: .next/, node_modules/ (dependencies and build output); pass one as path to list it.]',
      ].join('\n'),
    );
  });

  it('lists node_modules itself when it is the path', async () => {
    const { text } = await listing(
      { 'node_modules/pkg/index.js': '', 'node_modules/.bin/': '' },
      { path: 'node_modules' },
    );
    assert.equal(text, ['Directory: node_modules', '.bin/', 'pkg/'].join('\n'));
  });

  it('lists the tree breadth-first when recursive, honouring .gitignore and skipping node_modules and .git', async () => {
    const { text } = await listing(
      {
        '.gitignore': 'dist/\n*.log\n',
        'dist/bundle.js': '',
        'debug.log': '',
        'src/a.ts': 'a',
        'src/deep/b.ts': 'bb',
        'node_modules/pkg/index.js': '',
        '.git/HEAD': '',
        'docs/readme.md': 'r',
      },
      { recursive: true },
    );
    assert.equal(
      text,
      [
        'Directory: . (recursive)',
        '.gitignore  12 B',
        'docs/',
        'docs/readme.md  1 B',
        'src/',
        'src/a.ts  1 B',
        'src/deep/',
        'src/deep/b.ts  2 B',
        '',
        '[Not listed: node_modules/ (dependencies and build output); pass one as path to list it.]',
      ].join('\n'),
    );
  });

  it('keeps the shallowest entries when a recursive listing is cut', async () => {
    const { text } = await listing(
      { 'a/x/y/z/deep.txt': '', 'b.txt': '', 'c/one.txt': '', 'd.txt': '' },
      { recursive: true, limit: 5 },
    );
    assert.deepEqual(text.split('\n\n')[0]!.split('\n').slice(1), [
      'a/',
      'a/x/',
      'b.txt  0 B',
      'c/',
      'd.txt  0 B',
    ]);
    assert.match(
      text,
      /\[Entry limit reached: showing 5 entries, the shallowest first; more exist\. Use a narrower path or pass limit=10\.\]/,
    );
  });

  it('cuts at the default limit of 200 with a notice (LS-2)', async () => {
    const entries: Record<string, string> = {};
    for (let index = 0; index < 250; index += 1) entries[`f${String(index).padStart(3, '0')}.txt`] = '';
    const { text } = await listing(entries);
    const lines = text.split('\n\n')[0]!.split('\n');
    assert.equal(lines.length, 201);
    assert.equal(lines[200], 'f199.txt  0 B');
    assert.match(
      text,
      /\[Entry limit reached: showing 200 entries; more exist\. Use a narrower path or pass limit=400\.\]/,
    );
    const exact = await listing({ 'a.txt': '', 'b.txt': '' }, { limit: 2 });
    assert.doesNotMatch(exact.text, /limit reached/);
  });

  it('refuses a file with NOT_A_DIRECTORY and a missing path with FS_NOT_FOUND (DISC-2)', async () => {
    const tree = await makeTree({ 'file.txt': 'x' });
    try {
      const ls = createLsTool({ pathPolicy: tree.policy });
      assert.equal(failure(await call(ls, { path: 'file.txt' })).code, 'NOT_A_DIRECTORY');
      assert.equal(failure(await call(ls, { path: 'nope' })).code, 'FS_NOT_FOUND');
      assert.equal(failure(await call(ls, { path: '..' })).code, 'PATH_OUTSIDE_ROOT');
    } finally {
      await tree.remove();
    }
  });

  it('never shows what lies outside the project: links out are refused or shown without their target (DISC-1)', async () => {
    const outside = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-outside-')));
    const tree = await makeTree({ 'inside.txt': '' });
    try {
      await writeFile(path.join(outside, 'private.txt'), 'x');
      await writeTree(tree.root, {
        out: { symlink: outside },
        'out-file.txt': { symlink: path.join(outside, 'private.txt') },
        dangling: { symlink: path.join(tree.root, 'missing') },
      });
      const ls = createLsTool({ pathPolicy: tree.policy });
      const text = okText(await call(ls, {}));
      assert.equal(
        text,
        [
          'Directory: .',
          'dangling -> (broken link)',
          'inside.txt  0 B',
          'out -> (outside the allowed roots)',
          'out-file.txt -> (outside the allowed roots)',
        ].join('\n'),
      );
      assert.ok(!text.includes(outside));
      assert.equal(failure(await call(ls, { path: 'out' })).code, 'PATH_OUTSIDE_ROOT');
    } finally {
      await tree.remove();
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('does not list secret files, and says how many it left out', async () => {
    const { text } = await listing({
      '.env': 'TOKEN=1',
      '.env.example': 'TOKEN=',
      'server.key': 'k',
      'app.ts': '',
    });
    assert.equal(
      text,
      [
        'Directory: .',
        '.env.example  6 B',
        'app.ts  0 B',
        '',
        '[2 secret entries are not shown (matching a secret pattern, such as .env files and keys: never read, listed or written).]',
      ].join('\n'),
    );
  });

  it('labels protected and secret entries apart: the host state next to .git is protected, not a secret file', async () => {
    const tree = await makeTree({
      '.git/HEAD': 'ref',
      '.toolhost/sessions/x': '',
      '.env': 'TOKEN=1',
      'app.ts': '',
    });
    try {
      // As the host configures it: its state directory is protected and kept from reads and listings.
      const policy = createPathPolicy({
        mode: 'current_project',
        root: tree.root,
        protectedPaths: [...DEFAULT_PROTECTED_PATHS, '/.toolhost/**'],
        secretPaths: [...DEFAULT_SECRET_PATHS, '/.toolhost/**'],
      });
      const text = okText(await call(createLsTool({ pathPolicy: policy }), {}));
      assert.equal(
        text,
        [
          'Directory: .',
          'app.ts  0 B',
          '',
          '[1 secret entry is not shown (matching a secret pattern, such as .env files and keys: never read, listed or written).]',
          "[1 protected entry is not shown (the host's own state or configuration: kept from file tools, not secret files).]",
        ].join('\n'),
      );
      const recursive = okText(await call(createLsTool({ pathPolicy: policy }), { recursive: true }));
      assert.ok(recursive.endsWith(text.slice(text.indexOf('\n\n'))), 'recursive listings count them alike');
    } finally {
      await tree.remove();
    }
  });

  it('says so when a directory is empty and stops when aborted', async () => {
    const tree = await makeTree({ 'empty/.keep-out': '' });
    try {
      const ls = createLsTool({ pathPolicy: tree.policy });
      await rm(path.join(tree.root, 'empty/.keep-out'));
      assert.equal(okText(await call(ls, { path: 'empty' })), 'Directory: empty\nNo entries.');
      const controller = new AbortController();
      controller.abort();
      assert.equal(failure(await call(ls, { recursive: true }, controller.signal)).code, 'ABORTED');
    } finally {
      await tree.remove();
    }
  });
});
