import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  createPathPatternMatcher,
  createPathPolicy,
  DEFAULT_PROTECTED_PATHS,
  DEFAULT_SECRET_PATHS,
  type PathAccess,
} from '../src/index.js';
import { buildTree, useSandbox } from './helpers.js';

type Outcome = 'ok' | 'protected' | 'secret';

describe('PathPolicy protected and secret paths', () => {
  const sandbox = useSandbox();
  const setup = (
    options: { protectedPaths?: string[]; secretPaths?: string[]; caseSensitive?: boolean } = {},
  ) => {
    buildTree(sandbox.dir, {
      'proj/.git/config': '[core]',
      'proj/.git/hooks/pre-commit': '#!/bin/sh',
      'proj/.toolhost/state.json': '{}',
      'proj/vendor/lib/.git/HEAD': 'ref',
      'proj/.env': 'KEY=1',
      'proj/.env.local': 'KEY=2',
      'proj/.env.example': 'KEY=',
      'proj/.env.sample': 'KEY=',
      'proj/.env.template': 'KEY=',
      'proj/config/.env.production': 'KEY=3',
      'proj/certs/server.pem': 'pem',
      'proj/certs/server.key': 'key',
      'proj/home/.ssh/id_rsa': 'rsa',
      'proj/home/.ssh/id_rsa.pub': 'rsa pub',
      'proj/home/.ssh/id_ed25519': 'ed',
      'proj/src/a.ts': 'a',
      'proj/src/environment.ts': 'not a secret',
      'proj/src/.envrc': 'not matched',
      'proj/secrets/token.txt': 't',
      'proj/docs/secrets/readme.md': 'r',
    });
    const root = path.join(sandbox.dir, 'proj');
    return { root, policy: createPathPolicy({ mode: 'current_project', root, ...options }) };
  };

  const outcomeOf = (
    policy: ReturnType<typeof setup>['policy'],
    input: string,
    access: PathAccess,
  ): Outcome => {
    const result = policy.resolve(input, { access });
    if (result.ok) return 'ok';
    assert.equal(result.error.code, 'PATH_PROTECTED', `${input} ${access}: ${result.error.message}`);
    return result.error.reason as Outcome;
  };

  // [input, read, list, write]
  const defaults: Array<[string, Outcome, Outcome, Outcome, string]> = [
    ['.git', 'ok', 'ok', 'protected', 'PP-PROT-1 the directory itself'],
    ['.git/config', 'ok', 'ok', 'protected', 'PP-PROT-1'],
    ['.git/hooks/pre-commit', 'ok', 'ok', 'protected', 'PP-PROT-1'],
    ['.git/hooks/new-hook', 'ok', 'ok', 'protected', 'PP-PROT-1 a missing file'],
    ['.toolhost/state.json', 'ok', 'ok', 'protected', 'PP-PROT-1'],
    ['vendor/lib/.git/HEAD', 'ok', 'ok', 'protected', 'PP-PROT-1 nested repository'],
    ['.gitignore', 'ok', 'ok', 'ok', 'PP-PROT-1 a sibling name'],
    ['.env', 'secret', 'secret', 'secret', 'PP-PROT-2'],
    ['.env.local', 'secret', 'secret', 'secret', 'PP-PROT-2'],
    ['config/.env.production', 'secret', 'secret', 'secret', 'PP-PROT-2 any depth'],
    ['.env.new', 'secret', 'secret', 'secret', 'PP-PROT-2 a missing secret'],
    ['.env.example', 'ok', 'ok', 'ok', 'PP-PROT-2 exception'],
    ['.env.sample', 'ok', 'ok', 'ok', 'PP-PROT-2 exception'],
    ['.env.template', 'ok', 'ok', 'ok', 'PP-PROT-2 exception'],
    ['certs/server.pem', 'secret', 'secret', 'secret', 'PP-PROT-2'],
    ['certs/server.key', 'secret', 'secret', 'secret', 'PP-PROT-2'],
    ['home/.ssh/id_rsa', 'secret', 'secret', 'secret', 'PP-PROT-2'],
    ['home/.ssh/id_rsa.pub', 'secret', 'secret', 'secret', 'PP-PROT-2 id_rsa*'],
    ['home/.ssh/id_ed25519', 'secret', 'secret', 'secret', 'PP-PROT-2'],
    ['src/environment.ts', 'ok', 'ok', 'ok', 'PP-PROT-2 no false positive'],
    ['src/.envrc', 'ok', 'ok', 'ok', 'PP-PROT-2 no false positive'],
    ['certs', 'ok', 'ok', 'ok', 'PP-PROT-2 the directory of secrets is not one'],
  ];
  for (const [input, read, list, write, rule] of defaults) {
    it(`decides ${input} as read=${read} list=${list} write=${write} by default (${rule})`, () => {
      const { policy } = setup();
      assert.deepEqual(
        [
          outcomeOf(policy, input, 'read'),
          outcomeOf(policy, input, 'list'),
          outcomeOf(policy, input, 'write'),
        ],
        [read, list, write],
      );
    });
  }

  it('exposes the patterns in effect (PP-PROT-3)', () => {
    const { policy } = setup();
    assert.deepEqual(policy.protectedPatterns, DEFAULT_PROTECTED_PATHS);
    assert.deepEqual(policy.secretPatterns, DEFAULT_SECRET_PATHS);
  });

  it('switches secrets and protected paths off with empty lists (PP-PROT-3)', () => {
    const { policy } = setup({ protectedPaths: [], secretPaths: [] });
    assert.equal(outcomeOf(policy, '.env', 'read'), 'ok');
    assert.equal(outcomeOf(policy, 'certs/server.pem', 'write'), 'ok');
    assert.equal(outcomeOf(policy, '.git/config', 'write'), 'ok');
    assert.deepEqual(policy.secretPatterns, []);
  });

  it('uses configured lists instead of the defaults (PP-PROT-3)', () => {
    const { policy } = setup({ protectedPaths: ['docs/**'], secretPaths: ['*.txt'] });
    assert.equal(outcomeOf(policy, '.git/config', 'write'), 'ok');
    assert.equal(outcomeOf(policy, 'docs/secrets/readme.md', 'write'), 'protected');
    assert.equal(outcomeOf(policy, 'docs/secrets/readme.md', 'read'), 'ok');
    assert.equal(outcomeOf(policy, 'secrets/token.txt', 'read'), 'secret');
    assert.equal(outcomeOf(policy, '.env', 'read'), 'ok');
  });

  it('anchors a pattern that starts with / at the root (PP-PROT-4)', () => {
    const { policy } = setup({ secretPaths: ['/secrets/**'] });
    assert.equal(outcomeOf(policy, 'secrets/token.txt', 'read'), 'secret');
    assert.equal(outcomeOf(policy, 'secrets', 'list'), 'secret');
    assert.equal(outcomeOf(policy, 'docs/secrets/readme.md', 'read'), 'ok');
  });

  it('reads dir/ as dir/** and lets the last matching pattern decide (PP-PROT-4)', () => {
    const { policy } = setup({ secretPaths: ['secrets/', '!secrets/token.txt', 'secrets/token.*'] });
    assert.equal(outcomeOf(policy, 'docs/secrets/readme.md', 'read'), 'secret');
    // `secrets/token.*` comes after the exception, so it wins again.
    assert.equal(outcomeOf(policy, 'secrets/token.txt', 'read'), 'secret');
    const matcher = createPathPatternMatcher(['secrets/', '!secrets/token.txt'], { caseSensitive: true });
    assert.equal(matcher.match('secrets/token.txt', true), undefined);
    assert.equal(matcher.match('secrets/other.txt', true), 'secrets/');
  });

  it('matches case-insensitively when names compare case-insensitively (PP-PROT-4)', () => {
    const insensitive = createPathPatternMatcher(DEFAULT_SECRET_PATHS, { caseSensitive: false });
    assert.equal(insensitive.match('config/.ENV', true), '.env');
    assert.equal(insensitive.match('KEYS/Server.PEM', true), '*.pem');
    assert.equal(insensitive.match('.ENV.Example', true), undefined);
    const sensitive = createPathPatternMatcher(DEFAULT_SECRET_PATHS, { caseSensitive: true });
    assert.equal(sensitive.match('config/.ENV', true), undefined);
    const guarded = createPathPatternMatcher(DEFAULT_PROTECTED_PATHS, { caseSensitive: false });
    assert.equal(guarded.match('.GIT/config', true), '.git/**');
  });

  it('matches ** as any number of whole names (PP-PROT-4)', () => {
    const matcher = createPathPatternMatcher(['/a/**/b', 'x/*.log', 'deep/**/*.{pem,crt}'], {
      caseSensitive: true,
    });
    for (const subject of ['a/b', 'a/x/b', 'a/x/y/b'])
      assert.equal(matcher.match(subject, true), '/a/**/b', subject);
    for (const subject of ['a/x/c', 'b', 'z/a/b', 'a/bb'])
      assert.equal(matcher.match(subject, true), undefined, subject);
    assert.equal(matcher.match('q/x/today.log', true), 'x/*.log');
    assert.equal(matcher.match('x/sub/today.log', true), undefined);
    assert.equal(matcher.match('deep/1/2/3/site.crt', true), 'deep/**/*.{pem,crt}');
    // Hundreds of names stay a name-by-name walk (a whole-path regex backtracked for seconds here).
    const long = `${'a/b/'.repeat(500)}c`;
    assert.equal(
      createPathPatternMatcher(['a/**/b/**/c/**/d'], { caseSensitive: true }).match(long, true),
      undefined,
    );
  });

  it('refuses patterns that cannot be matched name by name (PP-PROT-4, PP-MODE-5)', () => {
    for (const pattern of ['', '!', '/', '{a,b/c}', '@(x|y/z)', '[/]x', '../x', 'a/../b']) {
      assert.throws(() => createPathPatternMatcher([pattern], { caseSensitive: true }), TypeError, pattern);
    }
    assert.throws(
      () => createPathPatternMatcher('x' as unknown as string[], { caseSensitive: true }),
      TypeError,
    );
  });

  it('skips anchored patterns for paths outside every root (PP-PROT-4)', () => {
    const matcher = createPathPatternMatcher(['/secrets/**', 'id_rsa'], { caseSensitive: true });
    assert.equal(matcher.match('secrets/x', false), undefined);
    assert.equal(matcher.match('home/u/.ssh/id_rsa', false), 'id_rsa');
  });

  it('checks the path as named and the real path (PP-PROT-5)', () => {
    setup();
    buildTree(sandbox.dir, {
      'proj/src/.env': { link: 'a.ts' },
      'proj/git-config': { link: '.git/config' },
      'proj/hooks': { link: '.git/hooks' },
      'proj/creds': { link: 'home/.ssh/id_rsa' },
    });
    const policy = createPathPolicy({ mode: 'current_project', root: path.join(sandbox.dir, 'proj') });
    assert.equal(outcomeOf(policy, 'src/.env', 'read'), 'secret');
    assert.equal(outcomeOf(policy, 'git-config', 'write'), 'protected');
    assert.equal(outcomeOf(policy, 'git-config', 'read'), 'ok');
    assert.equal(outcomeOf(policy, 'hooks/post-checkout', 'write'), 'protected');
    assert.equal(outcomeOf(policy, 'creds', 'read'), 'secret');
  });

  it('agrees with the pure isProtected and allows (PP-PROT-1, PP-PROT-2, PP-DISP-4)', () => {
    const { policy, root } = setup();
    assert.equal(policy.isProtected(path.join(root, '.git/config'), 'write'), true);
    assert.equal(policy.isProtected(path.join(root, '.git/config'), 'read'), false);
    assert.equal(policy.isProtected(path.join(root, '.env'), 'list'), true);
    assert.equal(policy.isProtected(path.join(root, 'src/a.ts'), 'write'), false);
    assert.equal(policy.allows(path.join(root, '.env.example'), 'read'), true);
    assert.equal(policy.allows(path.join(root, '.env'), 'read'), false);
  });

  it('treats everything beneath a directory matching a secret pattern as secret (regression: certs.key/ was readable, PP-PROT-6)', () => {
    setup();
    buildTree(sandbox.dir, {
      'proj/certs.key/inner.txt': 'private',
      'proj/certs.key/sub/deeper.txt': 'private',
      'proj/config/.env.d/app.conf': 'private',
      'proj/link-to-secret-dir': { link: 'certs.key' },
    });
    const { policy, root } = setup();
    for (const input of [
      'certs.key',
      'certs.key/inner.txt',
      'certs.key/sub',
      'certs.key/sub/deeper.txt',
      'certs.key/missing.txt',
      'config/.env.d/app.conf',
      'link-to-secret-dir/inner.txt',
    ]) {
      for (const access of ['read', 'list', 'write'] as const)
        assert.equal(outcomeOf(policy, input, access), 'secret', `${input} ${access}`);
      if (!input.startsWith('link-')) assert.equal(policy.allows(path.join(root, input), 'read'), false);
    }
    // Protected patterns cover in the same way (the sandbox re-binds a matched directory whole).
    const guarded = createPathPolicy({ mode: 'current_project', root, protectedPaths: ['*.lock'] });
    assert.equal(outcomeOf(guarded, 'deps.lock/file.txt', 'write'), 'protected');
    assert.equal(outcomeOf(guarded, 'deps.lock/file.txt', 'read'), 'ok');
  });

  it('lets no exception re-include a path below a covered directory (PP-PROT-6)', () => {
    const { policy } = setup({ secretPaths: ['secrets/', '!secrets/token.txt'] });
    assert.equal(outcomeOf(policy, 'secrets/token.txt', 'read'), 'secret');
    // Exceptions inside a directory need a pattern for its entries, not for the directory.
    const inside = setup({ secretPaths: ['secrets/*', '!secrets/token.txt'] }).policy;
    assert.equal(outcomeOf(inside, 'secrets/token.txt', 'read'), 'ok');
    assert.equal(outcomeOf(inside, 'secrets/other.txt', 'read'), 'secret');
    assert.equal(outcomeOf(inside, 'secrets', 'list'), 'ok');
    const matcher = createPathPatternMatcher(['*.key', '!public.key', '/top/*.d/'], { caseSensitive: true });
    assert.equal(matcher.matchCovering(['a.key', 'x'], true), '*.key');
    assert.equal(matcher.matchCovering(['public.key', 'x'], true), undefined);
    assert.equal(matcher.matchCovering(['top', 'conf.d', 'x', 'y'], true), '/top/*.d/');
    assert.equal(matcher.matchCovering(['top', 'conf.d', 'x', 'y'], false), undefined);
    assert.equal(matcher.matchCovering(['a', 'b'], true), undefined);
  });

  it('agrees with deciding each directory above a path in turn (PP-PROT-6)', () => {
    const patterns = [
      '*.key',
      '!keep.key',
      'a/**/b',
      '/x/',
      'deep/**/*.pem',
      '!deep/ok/**',
      '.env*',
      '!.env.example',
    ];
    const matcher = createPathPatternMatcher(patterns, { caseSensitive: true });
    const names = ['a', 'b', 'x', 'keep.key', 'z.key', 'deep', 'ok', 'c.pem', '.env.example', '.envrc'];
    let state = 7;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state;
    };
    for (let round = 0; round < 2000; round += 1) {
      const path = Array.from({ length: 1 + (next() % 6) }, () => names[next() % names.length]!);
      for (const relative of [true, false]) {
        let expected: string | undefined;
        for (let length = 1; length <= path.length && expected === undefined; length += 1)
          expected = matcher.matchNames(path.slice(0, length), relative);
        assert.equal(matcher.matchCovering(path, relative), expected, `${path.join('/')} ${relative}`);
      }
    }
  });

  it('names the deciding pattern in the message (PP-PROT-1, PP-PROT-2)', () => {
    const { policy } = setup();
    const write = policy.resolve('.git/config', { access: 'write' });
    assert.match(
      !write.ok ? write.error.message : '',
      /protected \(it matches "\.git\/\*\*"\); it can be read but not written/,
    );
    const read = policy.resolve('certs/server.key', { access: 'read' });
    assert.match(
      !read.ok ? read.error.message : '',
      /secret file \(it matches the secret pattern "\*\.key"\)/,
    );
  });
});
