import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPathPolicy, MAX_NAME_LENGTH, resolveLexicalPath } from '../src/index.js';
import { buildTree, useSandbox } from './helpers.js';

describe('PathPolicy.resolve inputs', () => {
  const sandbox = useSandbox();
  const setup = () => {
    buildTree(sandbox.dir, { 'proj/src/a.ts': 'a', 'proj/~/notes.txt': 'tilde dir' });
    const root = path.join(sandbox.dir, 'proj');
    return { root, policy: createPathPolicy({ mode: 'current_project', root }) };
  };

  it('treats a missing input as the root (PP-IN-1)', () => {
    const { root, policy } = setup();
    assert.deepEqual(policy.resolve(undefined, { access: 'list' }), {
      ok: true,
      path: root,
      displayPath: '.',
      exists: true,
    });
  });

  it('treats a blank input as the root only when the argument is optional (PP-IN-1, PP-IN-2)', () => {
    const { root, policy } = setup();
    for (const blank of ['', '   ', '\t\n', null as unknown as string]) {
      const optional = policy.resolve(blank, { access: 'list', optional: true });
      assert.equal(optional.ok && optional.path, root);
      const required = policy.resolve(blank, { access: 'read' });
      assert.equal(!required.ok && required.error.code, 'PATH_INVALID');
      assert.equal(!required.ok && required.error.reason, blank === null ? 'not_a_string' : 'empty');
      if (blank !== null) assert.match(!required.ok ? required.error.message : '', /The path is empty/);
    }
  });

  it('refuses values that are not strings (PP-IN-2)', () => {
    const { policy } = setup();
    // null is accepted only for optional arguments (PP-IN-1).
    for (const value of [null, 42, {}, ['a'], true]) {
      const result = policy.resolve(value as unknown as string, { access: 'read' });
      assert.equal(!result.ok && result.error.code, 'PATH_INVALID');
      assert.equal(!result.ok && result.error.reason, 'not_a_string');
    }
  });

  it('refuses a NUL byte anywhere in the input (PP-IN-3)', () => {
    const { policy } = setup();
    for (const input of ['\u0000', 'src/a.ts\u0000', 'src/a.ts\u0000../../etc/passwd', '\u0000/etc/passwd']) {
      const result = policy.resolve(input, { access: 'read' });
      assert.equal(!result.ok && result.error.code, 'PATH_INVALID');
      assert.equal(!result.ok && result.error.reason, 'nul_byte');
      assert.match(!result.ok ? result.error.message : '', /NUL byte/);
    }
  });

  it('refuses an unpaired surrogate but accepts paired ones (PP-IN-3)', () => {
    const { policy } = setup();
    const lone = policy.resolve('src/\uD800.ts', { access: 'write' });
    assert.equal(!lone.ok && lone.error.reason, 'invalid_unicode');
    const paired = policy.resolve('src/😀.ts', { access: 'write' });
    assert.equal(paired.ok && paired.displayPath, 'src/😀.ts');
  });

  it('refuses an input over the length limit and reports the limit (PP-IN-4)', () => {
    const { policy, root } = setup();
    const long = `${'a/'.repeat(2048)}x`;
    const result = policy.resolve(long, { access: 'write' });
    assert.equal(!result.ok && result.error.code, 'PATH_INVALID');
    assert.equal(!result.ok && result.error.reason, 'too_long');
    assert.match(!result.ok ? result.error.message : '', /is 4097 bytes long; the limit is 4096 bytes/);
    const strict = createPathPolicy({ mode: 'current_project', root, maxPathLength: 10 });
    const cut = strict.resolve('src/abc/def.ts', { access: 'read' });
    assert.match(!cut.ok ? cut.error.message : '', /is 14 bytes long; the limit is 10 bytes/);
    assert.equal(strict.resolve('src/a.ts', { access: 'read' }).ok, true);
  });

  it('counts the length limit in UTF-8 bytes (PP-IN-4)', () => {
    const { policy } = setup();
    // 1366 three-byte characters: 4098 bytes but only 1366 UTF-16 units.
    const result = policy.resolve('界'.repeat(1366), { access: 'write' });
    assert.equal(!result.ok && result.error.reason, 'too_long');
  });

  it('refuses a name over 255 bytes and accepts one of exactly 255 (PP-IN-4)', () => {
    const { policy, root } = setup();
    const exact = policy.resolve('n'.repeat(MAX_NAME_LENGTH), { access: 'write' });
    assert.equal(exact.ok && exact.path, path.join(root, 'n'.repeat(255)));
    const over = policy.resolve(`src/${'n'.repeat(256)}`, { access: 'write' });
    assert.equal(!over.ok && over.error.reason, 'name_too_long');
    assert.match(
      !over.ok ? over.error.message : '',
      /a name of 256 bytes; the limit for one name is 255 bytes/,
    );
    // 86 three-byte characters = 258 bytes.
    const wide = policy.resolve('界'.repeat(86), { access: 'write' });
    assert.equal(!wide.ok && wide.error.reason, 'name_too_long');
  });

  it('refuses a path the file system finds too long once joined to the root (PP-IN-4)', () => {
    const { root } = setup();
    const policy = createPathPolicy({ mode: 'current_project', root, maxPathLength: 100_000 });
    const result = policy.resolve(`${'d'.repeat(200)}/`.repeat(30), { access: 'write' });
    // The input itself passes the configured limit; the joined path exceeds the file system's.
    assert.equal(!result.ok && result.error.code, 'PATH_INVALID');
    assert.equal(!result.ok && result.error.reason, 'too_long');
    assert.match(
      !result.ok ? result.error.message : '',
      /once joined to its root; the file system limit is \d+ bytes/,
    );
  });

  it('applies . and .. as text and ignores repeated and trailing separators (PP-IN-5)', () => {
    const { policy, root } = setup();
    const cases: Array<[string, string]> = [
      ['src/./a.ts', 'src/a.ts'],
      ['src//a.ts', 'src/a.ts'],
      ['src/a.ts/', 'src/a.ts'],
      ['./src/../src/a.ts', 'src/a.ts'],
      ['src/', 'src'],
      ['src/..', '.'],
      ['./', '.'],
      ['src/missing/../a.ts', 'src/a.ts'],
    ];
    for (const [input, display] of cases) {
      const result = policy.resolve(input, { access: 'read' });
      assert.ok(result.ok, input);
      assert.equal(result.displayPath, display, input);
      assert.equal(result.path, display === '.' ? root : path.join(root, display), input);
    }
  });

  it('does not expand ~ and says so when the path does not exist (PP-IN-6)', () => {
    setup();
    // A root without an entry named `~`.
    const policy = createPathPolicy({ mode: 'current_project', root: path.join(sandbox.dir, 'proj/src') });
    for (const input of ['~', '~/.ssh/id_rsa', '~/missing.txt', '~root/x', '~\\x']) {
      for (const access of ['read', 'write', 'list'] as const) {
        const result = policy.resolve(input, { access });
        assert.equal(!result.ok && result.error.code, 'PATH_INVALID', input);
        assert.equal(!result.ok && result.error.reason, 'tilde_not_expanded', input);
        assert.match(!result.ok ? result.error.message : '', /"~" is not expanded/);
      }
    }
    assert.equal(existsSync(path.join(sandbox.dir, 'proj/src/~')), false);
  });

  it('treats ~ as an ordinary name when it exists or is not a home form (PP-IN-6)', () => {
    const { policy, root } = setup();
    const bare = policy.resolve('~', { access: 'list' });
    assert.equal(bare.ok && bare.displayPath, '~');
    const existing = policy.resolve('~/notes.txt', { access: 'read' });
    assert.equal(existing.ok && existing.path, path.join(root, '~', 'notes.txt'));
    const plain = policy.resolve('~backup.txt', { access: 'write' });
    assert.equal(plain.ok && plain.displayPath, '~backup.txt');
  });

  it('refuses the same inputs in the pure resolveLexicalPath (PP-IN-2, PP-IN-3, PP-IN-4)', () => {
    const base = '/base';
    assert.deepEqual(resolveLexicalPath('a/../b', { base }), { ok: true, path: '/base/b' });
    assert.equal(resolveLexicalPath('', { base }).ok, false);
    assert.equal(resolveLexicalPath('a\u0000', { base }).ok, false);
    assert.equal(resolveLexicalPath(undefined, { base }).ok, false);
    assert.equal(resolveLexicalPath('x'.repeat(4097), { base }).ok, false);
    assert.deepEqual(resolveLexicalPath('/../../x', { base }), { ok: true, path: '/x' });
  });
});
