import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createGlobTool } from '../../src/index.js';
import { runIsolatedCall } from '../isolated-call.js';
import { call, failure, makeTree, okText, resultLines, type Tree, writeTree } from '../grep/grep-fixtures.js';

// Requirements cited: DISC-1 (symlinks out of the project), GLOB-1..GLOB-3 (basename patterns,
// project-relative sorted paths, `**/` matching zero directories, limit notice). See ../REQUIREMENTS.md.

describe('createGlobTool', () => {
  let tree: Tree;
  const glob = (args: Record<string, unknown>, signal?: AbortSignal) =>
    call(createGlobTool({ pathPolicy: tree.policy }), args, signal);
  const paths = async (args: Record<string, unknown>) => resultLines(okText(await glob(args)));

  before(async () => {
    tree = await makeTree({
      'src/a.ts': '',
      'src/x/a.ts': '',
      'src/x/y/b.ts': '',
      'src/readme.md': '',
      'top.ts': '',
      'Upper.TS': '',
      '.gitignore': 'dist/\n*.gen.ts\n',
      'dist/out.ts': '',
      'src/skip.gen.ts': '',
      'node_modules/pkg/index.ts': '',
      '.git/hooks/pre.ts': '',
      '.github/workflows/ci.yml': '',
      '.hidden.ts': '',
      'config/.env': 'SECRET=1',
      'config/settings.yml': '',
    });
  });
  after(() => tree.remove());

  it('matches a pattern without "/" against names at any depth, returning sorted project-relative paths (GLOB-1)', async () => {
    assert.deepEqual(await paths({ pattern: '*.ts' }), ['src/a.ts', 'src/x/a.ts', 'src/x/y/b.ts', 'top.ts']);
  });

  it('lets `**/` match zero directories: src/**/*.ts matches src/a.ts (GLOB-2)', async () => {
    assert.deepEqual(await paths({ pattern: 'src/**/*.ts' }), ['src/a.ts', 'src/x/a.ts', 'src/x/y/b.ts']);
    assert.deepEqual(await paths({ pattern: '**/a.ts' }), ['src/a.ts', 'src/x/a.ts']);
    assert.deepEqual(await paths({ pattern: 'src/*.ts' }), ['src/a.ts']);
  });

  it('takes patterns relative to `path` and shows paths relative to the project', async () => {
    assert.deepEqual(await paths({ pattern: '**/*.ts', path: 'src/x' }), ['src/x/a.ts', 'src/x/y/b.ts']);
    assert.deepEqual(await paths({ pattern: 'y/*.ts', path: 'src/x' }), ['src/x/y/b.ts']);
    assert.deepEqual(await paths({ pattern: '*.{md,yml}', path: 'src' }), ['src/readme.md']);
  });

  it('honours .gitignore, skips node_modules and .git, and includes them with no_ignore (except .git)', async () => {
    const all = await paths({ pattern: '**/*.ts', no_ignore: true });
    assert.deepEqual(all, [
      'dist/out.ts',
      'node_modules/pkg/index.ts',
      'src/a.ts',
      'src/skip.gen.ts',
      'src/x/a.ts',
      'src/x/y/b.ts',
      'top.ts',
    ]);
    // A pattern that names node_modules looks inside it.
    assert.deepEqual(await paths({ pattern: 'node_modules/**/*.ts' }), ['node_modules/pkg/index.ts']);
    assert.match(okText(await glob({ pattern: '.git/**' })), /^No files match/);
  });

  it('lets wildcards match dot-names only with include_hidden, while explicit dot-names always match', async () => {
    assert.deepEqual(await paths({ pattern: '*.yml' }), ['config/settings.yml']);
    assert.deepEqual(await paths({ pattern: '*.yml', include_hidden: true }), [
      '.github/workflows/ci.yml',
      'config/settings.yml',
    ]);
    assert.deepEqual(await paths({ pattern: '.github/**/*.yml' }), ['.github/workflows/ci.yml']);
    assert.deepEqual(await paths({ pattern: '*.ts', include_hidden: true }), [
      '.hidden.ts',
      'src/a.ts',
      'src/x/a.ts',
      'src/x/y/b.ts',
      'top.ts',
    ]);
  });

  it('matches case-sensitively', async () => {
    assert.deepEqual(await paths({ pattern: '*.TS' }), ['Upper.TS']);
  });

  it('never returns secret files, even named exactly', async () => {
    assert.deepEqual(await paths({ pattern: 'config/*', include_hidden: true }), ['config/settings.yml']);
    assert.match(okText(await glob({ pattern: 'config/.env' })), /^No files match/);
    assert.match(
      okText(await glob({ pattern: '.env', include_hidden: true, no_ignore: true })),
      /^No files match/,
    );
  });

  it('cuts at the limit with a notice giving the total (GLOB-3)', async () => {
    const local = await makeTree(
      Object.fromEntries(
        Array.from({ length: 230 }, (_, index) => [`many/f${String(index).padStart(3, '0')}.txt`, '']),
      ),
    );
    try {
      const text = okText(await call(createGlobTool({ pathPolicy: local.policy }), { pattern: '*.txt' }));
      const lines = resultLines(text);
      assert.equal(lines.length, 200);
      assert.equal(lines[199], 'many/f199.txt');
      assert.match(
        text,
        /\[Path limit reached: showing 200 of 230 matching files\. Use a narrower path or pattern or pass limit=400\.\]/,
      );
      const exact = okText(
        await call(createGlobTool({ pathPolicy: local.policy }), { pattern: '*.txt', limit: 230 }),
      );
      assert.doesNotMatch(exact, /limit reached/);
    } finally {
      await local.remove();
    }
  });

  it('sorts by modification time, newest first, with sort="mtime"', async () => {
    const local = await makeTree({ 'old.txt': '', 'new.txt': '', 'mid.txt': '' });
    try {
      const at = (name: string, seconds: number) => utimes(path.join(local.root, name), seconds, seconds);
      await at('old.txt', 1_000_000);
      await at('mid.txt', 2_000_000);
      await at('new.txt', 3_000_000);
      const tool = createGlobTool({ pathPolicy: local.policy });
      assert.deepEqual(resultLines(okText(await call(tool, { pattern: '*.txt', sort: 'mtime' }))), [
        'new.txt',
        'mid.txt',
        'old.txt',
      ]);
      assert.deepEqual(resultLines(okText(await call(tool, { pattern: '*.txt', sort: 'mtime', limit: 1 }))), [
        'new.txt',
      ]);
    } finally {
      await local.remove();
    }
  });

  it('refuses absolute, escaping and negated patterns with ARGUMENT_VALIDATION', async () => {
    for (const pattern of ['/etc/*', '../*', 'src/../../x', '!*.ts', './']) {
      const refused = failure(await glob({ pattern }));
      assert.equal(refused.code, 'ARGUMENT_VALIDATION', pattern);
    }
  });

  it('does not follow symbolic links out of the project, and refuses such a path (DISC-1)', async () => {
    const outside = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-outside-')));
    const local = await makeTree({ 'in.ts': '' });
    try {
      await writeFile(path.join(outside, 'leak.ts'), '');
      await writeTree(local.root, {
        out: { symlink: outside },
        'leak-link.ts': { symlink: path.join(outside, 'leak.ts') },
      });
      const tool = createGlobTool({ pathPolicy: local.policy });
      const text = okText(await call(tool, { pattern: '**/*.ts', include_hidden: true, no_ignore: true }));
      assert.deepEqual(resultLines(text), ['in.ts']);
      assert.equal(failure(await call(tool, { pattern: '*.ts', path: 'out' })).code, 'PATH_OUTSIDE_ROOT');
      assert.equal(failure(await call(tool, { pattern: '*.ts', path: 'in.ts' })).code, 'NOT_A_DIRECTORY');
      assert.equal(failure(await call(tool, { pattern: '*.ts', path: 'missing' })).code, 'FS_NOT_FOUND');
    } finally {
      await local.remove();
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('a glob with 12 wildcards against a 100-character name does not block the host (issue 15: hangs)', async () => {
    // In its own process: on the old code fast-glob's backtracking regex ran on the host's thread and
    // the process never answered.
    const outcome = await runIsolatedCall('glob');
    assert.equal(outcome.blocked, false, 'the call blocked its process');
    if (outcome.blocked) return;
    assert.equal(outcome.result.ok, true, outcome.result.text);
    assert.equal(outcome.result.text, `${'a'.repeat(99)}b`);
  });

  it('refuses a pattern the linear matcher cannot run with ARGUMENT_VALIDATION saying why', async () => {
    for (const [pattern, why] of [
      ['src/!(x).ts', /negated extglob/],
      ['src/{1..5000}.ts', /brace range/],
    ] as const) {
      const error = failure(await glob({ pattern }));
      assert.equal(error.code, 'ARGUMENT_VALIDATION', pattern);
      assert.match(error.text, why);
    }
  });

  it('keeps extglobs, brace ranges and classes', async () => {
    assert.deepEqual(await paths({ pattern: 'src/@(a|x)/*.ts' }), ['src/x/a.ts']);
    assert.deepEqual(await paths({ pattern: '+(a|b).ts' }), ['src/a.ts', 'src/x/a.ts', 'src/x/y/b.ts']);
    assert.deepEqual(await paths({ pattern: '[a-b].ts' }), ['src/a.ts', 'src/x/a.ts', 'src/x/y/b.ts']);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    assert.equal(failure(await glob({ pattern: '**/*' }, controller.signal)).code, 'ABORTED');
  });
});
