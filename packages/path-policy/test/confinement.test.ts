import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { createPathPolicy, MAX_SYMLINK_HOPS, resolveRealPath } from '../src/index.js';
import { buildTree, listTree, useSandbox } from './helpers.js';

const SOURCE_DIR = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * This package's sources as plain ES modules in `directory` (mode 0755, files 0644), for a child
 * process of another user: TypeScript's own transpiler, file by file (the sources import nothing but
 * `node:` modules and each other, with `.js` specifiers).
 */
function compileForAnotherUser(directory: string): string {
  mkdirSync(directory, { mode: 0o755 });
  writeFileSync(path.join(directory, 'package.json'), '{"type":"module"}\n', { mode: 0o644 });
  for (const name of readdirSync(SOURCE_DIR).filter((file) => file.endsWith('.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(path.join(SOURCE_DIR, name), 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
      fileName: name,
    });
    writeFileSync(path.join(directory, name.replace(/\.ts$/, '.js')), outputText, { mode: 0o644 });
  }
  return path.join(directory, 'index.js');
}

/**
 * Why another user could not run `executable` from inside `directory`: the first directory above
 * either that other users cannot search, or the executable itself when they cannot run it.
 */
function unreachableForOthers(executable: string, directory: string): string | undefined {
  for (const start of [realpathSync(executable), directory]) {
    for (let current = path.dirname(start); ; current = path.dirname(current)) {
      if ((statSync(current).mode & 0o001) === 0) return current;
      if (path.dirname(current) === current) break;
    }
  }
  return (statSync(executable).mode & 0o001) === 0 ? executable : undefined;
}

describe('PathPolicy.resolve confinement', () => {
  const sandbox = useSandbox();
  const setup = (extra: Parameters<typeof buildTree>[1] = {}) => {
    buildTree(sandbox.dir, {
      'proj/src/a.ts': 'a',
      'outside/secret.txt': 'outside',
      'proj-evil/x.txt': 'evil',
      ...extra,
    });
    const root = path.join(sandbox.dir, 'proj');
    return { root, policy: createPathPolicy({ mode: 'current_project', root }) };
  };

  it('realpath-s a root reached through a symbolic link, for relative and both absolute spellings (PP-REAL-1)', () => {
    setup({ alias: { link: 'proj' } });
    const alias = path.join(sandbox.dir, 'alias');
    const real = path.join(sandbox.dir, 'proj');
    const policy = createPathPolicy({ mode: 'current_project', root: alias });
    assert.deepEqual(policy.roots, [real]);
    for (const input of ['src/a.ts', path.join(alias, 'src/a.ts'), path.join(real, 'src/a.ts')]) {
      const result = policy.resolve(input, { access: 'read' });
      assert.deepEqual(result, {
        ok: true,
        path: path.join(real, 'src/a.ts'),
        displayPath: 'src/a.ts',
        exists: true,
      });
    }
    const created = policy.resolve(path.join(alias, 'src/new.ts'), { access: 'write' });
    assert.equal(created.ok && created.path, path.join(real, 'src/new.ts'));
    const escaped = policy.resolve(path.join(alias, '../outside/secret.txt'), { access: 'read' });
    assert.equal(!escaped.ok && escaped.error.code, 'PATH_OUTSIDE_ROOT');
  });

  it('realpath-s an existing target through links inside the root (PP-REAL-2)', () => {
    const { policy, root } = setup({ 'proj/lib': { link: 'src' } });
    const result = policy.resolve('lib/a.ts', { access: 'read' });
    assert.deepEqual(result, {
      ok: true,
      path: path.join(root, 'src/a.ts'),
      displayPath: 'src/a.ts',
      exists: true,
    });
  });

  it('resolves a missing target through its deepest existing ancestor (PP-REAL-3)', () => {
    const { policy, root } = setup({ 'proj/lib': { link: 'src' } });
    const result = policy.resolve('lib/new/deeper/file.ts', { access: 'write' });
    assert.deepEqual(result, {
      ok: true,
      path: path.join(root, 'src/new/deeper/file.ts'),
      displayPath: 'src/new/deeper/file.ts',
      exists: false,
    });
  });

  it('refuses a missing target below a linked directory that points outside (PP-REAL-3)', () => {
    const { policy } = setup({ 'proj/deep/out': { link: '../../outside' } });
    for (const input of ['deep/out/new.txt', 'deep/out/a/b/c.txt']) {
      const result = policy.resolve(input, { access: 'write' });
      assert.equal(!result.ok && result.error.reason, 'symlink_outside_root', input);
    }
  });

  it('contains by whole names: ..foo is inside, a sibling prefix is outside (PP-REAL-4)', () => {
    const { policy, root } = setup({ 'proj/..foo/bar': 'b' });
    const dotted = policy.resolve('..foo/bar', { access: 'read' });
    assert.deepEqual(dotted, {
      ok: true,
      path: path.join(root, '..foo/bar'),
      displayPath: '..foo/bar',
      exists: true,
    });
    const absoluteDotted = policy.resolve(path.join(root, '..foo/bar'), { access: 'write' });
    assert.equal(absoluteDotted.ok, true);
    const sibling = policy.resolve(`${root}-evil/x.txt`, { access: 'read' });
    assert.equal(!sibling.ok && sibling.error.code, 'PATH_OUTSIDE_ROOT');
    const rootItself = policy.resolve(root, { access: 'list' });
    assert.equal(rootItself.ok && rootItself.displayPath, '.');
    assert.equal(policy.contains(`${root}-evil`), false);
    assert.equal(policy.contains(`${root}/..foo`), true);
  });

  for (const access of ['read', 'list', 'write'] as const) {
    it(`refuses a link inside the root that points outside for ${access} (PP-REAL-5)`, () => {
      const { policy } = setup({
        'proj/out': { link: '../outside' },
        'proj/out-file': { link: '../outside/secret.txt' },
        'proj/out-abs': { link: path.join(sandbox.dir, 'outside') },
      });
      for (const input of ['out', 'out/secret.txt', 'out-file', 'out-abs/secret.txt', 'out/new.txt']) {
        const result = policy.resolve(input, { access });
        assert.equal(!result.ok && result.error.code, 'PATH_OUTSIDE_ROOT', input);
        assert.equal(!result.ok && result.error.reason, 'symlink_outside_root', input);
        assert.match(!result.ok ? result.error.message : '', /through a symbolic link to a location outside/);
      }
    });
  }

  it('refuses a write through a dangling link that points outside and creates nothing (PP-REAL-6)', () => {
    const { policy } = setup({
      'proj/dangling': { link: path.join(sandbox.dir, 'outside/created.txt') },
      'proj/dangling-rel': { link: '../outside/created-rel.txt' },
      'proj/dangling-dir': { link: '../outside/newdir' },
      'proj/chain': { link: 'dangling' },
    });
    const before = listTree(path.join(sandbox.dir, 'outside'));
    for (const input of ['dangling', 'dangling-rel', 'dangling-dir/x.txt', 'chain']) {
      const result = policy.resolve(input, { access: 'write' });
      assert.equal(!result.ok && result.error.reason, 'symlink_outside_root', input);
      assert.equal(policy.verifyWriteTarget(path.join(sandbox.dir, 'proj', input)).ok, false, input);
    }
    assert.deepEqual(listTree(path.join(sandbox.dir, 'outside')), before);
    assert.equal(existsSync(path.join(sandbox.dir, 'outside/created.txt')), false);
  });

  it('returns the eventual target of a dangling link that stays inside (PP-REAL-6)', () => {
    const { policy, root } = setup({
      'proj/pending': { link: 'src/pending.ts' },
      'proj/pending-abs': { link: path.join(sandbox.dir, 'proj/src/later/x.ts') },
      'proj/hop': { link: 'pending' },
    });
    assert.deepEqual(policy.resolve('pending', { access: 'write' }), {
      ok: true,
      path: path.join(root, 'src/pending.ts'),
      displayPath: 'src/pending.ts',
      exists: false,
    });
    const absolute = policy.resolve('pending-abs', { access: 'write' });
    assert.equal(absolute.ok && absolute.displayPath, 'src/later/x.ts');
    const hop = policy.resolve('hop', { access: 'write' });
    assert.equal(hop.ok && hop.displayPath, 'src/pending.ts');
    // The link itself is untouched.
    assert.equal(readlinkSync(path.join(root, 'pending')), 'src/pending.ts');
  });

  it('refuses symbolic-link loops, also through dangling links (PP-REAL-7)', () => {
    const { policy } = setup({
      'proj/self': { link: 'self' },
      'proj/ping': { link: 'pong' },
      'proj/pong': { link: 'ping' },
      'proj/dl-a': { link: 'dl-b/x' },
      'proj/dl-b': { link: 'dl-a/x' },
    });
    for (const input of ['self', 'self/x', 'ping', 'pong/new.txt', 'dl-a', 'dl-b/y']) {
      for (const access of ['read', 'write'] as const) {
        const result = policy.resolve(input, { access });
        assert.equal(!result.ok && result.error.code, 'PATH_INVALID', input);
        assert.equal(!result.ok && result.error.reason, 'symlink_loop', input);
        assert.match(!result.ok ? result.error.message : '', /loop of symbolic links/);
      }
    }
  });

  it('gives up after the hop limit on a long chain of dangling links (PP-REAL-7)', () => {
    const chain: Parameters<typeof buildTree>[1] = {};
    for (let index = 0; index <= MAX_SYMLINK_HOPS + 1; index += 1)
      chain[`proj/l${index}`] = { link: `l${index + 1}` };
    setup(chain);
    const result = resolveRealPath(path.join(sandbox.dir, 'proj/l0'));
    assert.deepEqual(result, { ok: false, reason: 'symlink_loop', errno: 'ELOOP' });
  });

  it('judges chains that leave the root and come back by the final real path (PP-REAL-8)', () => {
    const { policy, root } = setup({
      'outside/back': { link: '../proj/src' },
      'proj/via': { link: '../outside/back' },
      'proj/away': { link: '../outside' },
    });
    const back = policy.resolve('via/a.ts', { access: 'read' });
    assert.deepEqual(back, {
      ok: true,
      path: path.join(root, 'src/a.ts'),
      displayPath: 'src/a.ts',
      exists: true,
    });
    const backNew = policy.resolve('via/new.ts', { access: 'write' });
    assert.equal(backNew.ok && backNew.path, path.join(root, 'src/new.ts'));
    const stays = policy.resolve('away/back/../secret.txt', { access: 'read' });
    // Lexically `away/secret.txt`, which is a link to outside.
    assert.equal(!stays.ok && stays.error.reason, 'symlink_outside_root');
  });

  it('reports FS_ACCESS_DENIED for a directory on the way this user cannot search (PP-REAL-10)', (t) => {
    const { root } = setup({ 'proj/locked/inner/f.txt': 'f' });
    type Outcome = { ok: boolean; error?: { code: string; reason: string } };
    const inputs = [
      ['locked/inner/f.txt', 'read'],
      ['locked/new.txt', 'write'],
      ['locked', 'list'],
    ] as const;
    const probe = (): Outcome[] => {
      if (process.getuid?.() !== 0) {
        const policy = createPathPolicy({ mode: 'current_project', root });
        return inputs.map(([input, access]) => policy.resolve(input, { access }));
      }
      // root searches any directory: ask an unprivileged user (nobody) in a child process. The
      // child must not need the checkout, which may sit under a directory nobody cannot enter (a
      // mode-0700 home): it gets this package's sources compiled to plain JavaScript in the
      // world-readable sandbox, and plain node (no tsx, nothing from node_modules).
      chmodSync(sandbox.dir, 0o755);
      const entry = compileForAnotherUser(path.join(sandbox.dir, 'path-policy-js'));
      const script = `
        const { createPathPolicy } = await import(${JSON.stringify(pathToFileURL(entry).href)});
        const policy = createPathPolicy({ mode: 'current_project', root: ${JSON.stringify(root)} });
        const inputs = ${JSON.stringify(inputs)};
        console.log(JSON.stringify(inputs.map(([input, access]) => policy.resolve(input, { access }))));`;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: sandbox.dir,
        uid: 65534,
        gid: 65534,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(child.status, 0, child.stderr);
      return JSON.parse(child.stdout);
    };
    const unreachable = unreachableForOthers(process.execPath, sandbox.dir);
    if (process.getuid?.() === 0 && unreachable) {
      t.skip(`nobody cannot reach ${unreachable} (a directory on the way is closed to other users)`);
      return;
    }
    chmodSync(path.join(root, 'locked'), 0o000);
    let results: Outcome[];
    try {
      results = probe();
    } finally {
      chmodSync(path.join(root, 'locked'), 0o755);
    }
    assert.deepEqual(
      results.map((result) => (result.ok ? 'ok' : `${result.error?.code}/${result.error?.reason}`)),
      ['FS_ACCESS_DENIED/access_denied', 'FS_ACCESS_DENIED/access_denied', 'ok'],
    );
  });

  it('returns a value and never an escape for arbitrary inputs (PP-REAL-9)', () => {
    const { policy, root } = setup({
      'proj/out': { link: '../outside' },
      'proj/up': { link: '..' },
      'proj/dangling': { link: '../outside/x' },
      'proj/self': { link: 'self' },
    });
    const names = fc.constantFrom(
      '..',
      '.',
      'out',
      'up',
      'dangling',
      'self',
      'src',
      'a.ts',
      '..foo',
      '',
      'outside',
      'proj',
    );
    const structured = fc
      .tuple(fc.boolean(), fc.array(names, { maxLength: 8 }))
      .map(([absolute, parts]) => (absolute ? `${root}/${parts.join('/')}` : parts.join('/')));
    const input = fc.oneof(
      structured,
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
    );
    const before = listTree(path.join(sandbox.dir, 'outside'));
    fc.assert(
      fc.property(input, fc.constantFrom('read', 'write', 'list' as const), (candidate, access) => {
        const result = policy.resolve(candidate, { access });
        if (result.ok) {
          assert.ok(
            result.path === root || result.path.startsWith(`${root}/`),
            `${candidate} -> ${result.path}`,
          );
        } else {
          assert.ok(['PATH_INVALID', 'PATH_OUTSIDE_ROOT', 'PATH_PROTECTED'].includes(result.error.code));
        }
      }),
      { numRuns: 600 },
    );
    assert.deepEqual(listTree(path.join(sandbox.dir, 'outside')), before);
  });
});
