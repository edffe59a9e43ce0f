import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildBubblewrapArguments } from '../src/bubblewrap.js';
import { isAbsoluteLiteral, planProtectedPaths } from '../src/protected-paths.js';
import { buildSeatbeltProfile, patternToSeatbeltRegex } from '../src/seatbelt.js';
import { tempDir } from './helpers.js';

/** The mount operations of an argument list, as `[flag, ...operands]` triples in order. */
function mounts(args: readonly string[]): string[][] {
  const operations: string[][] = [];
  const arity: Record<string, number> = {
    '--ro-bind': 2,
    '--bind': 2,
    '--tmpfs': 1,
    '--remount-ro': 1,
    '--dev': 1,
    '--proc': 1,
    '--chdir': 1,
    '--symlink': 2,
    '--dir': 1,
  };
  for (let index = 0; index < args.length; index++) {
    const flag = args[index]!;
    const count = arity[flag];
    if (count === undefined) continue;
    operations.push([flag, ...args.slice(index + 1, index + 1 + count)]);
    index += count;
  }
  return operations;
}

/** A small host view: /usr read-only, /bin a link into it, an empty /run. */
const hostView = {
  mounts: [
    { kind: 'ro-bind', source: '/usr', path: '/usr' },
    { kind: 'symlink', target: 'usr/bin', path: '/bin' },
    { kind: 'dir', path: '/run' },
  ],
  hiddenFiles: [],
  hiddenDirectories: [],
  exposed: [],
} as const;

describe('buildBubblewrapArguments', () => {
  it('isolates every namespace, drops capabilities and dies with its parent (SB-6)', () => {
    const args = buildBubblewrapArguments({
      mode: 'read_only',
      hostView,
      roots: ['/repo'],
      network: false,
      stateDir: '/state',
      cwd: '/repo',
    });
    for (const flag of [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--new-session',
      '--die-with-parent',
    ]) {
      assert.ok(args.includes(flag), flag);
    }
    assert.deepEqual(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2), [
      '--cap-drop',
      'ALL',
    ]);
    assert.ok(!args.includes('--share-net'));
    assert.equal(args.at(-1), '--');
  });

  // The old layout bound the whole host (`--ro-bind / /`): every secret outside the roots was readable
  // (issue 15). The host view replaces it.
  it('shows only the host view read-only, with fresh /dev, /proc and a private /tmp, and roots read-only in read_only (SB-2, SB-9)', () => {
    const args = buildBubblewrapArguments({
      mode: 'read_only',
      hostView,
      roots: ['/repo'],
      network: true,
      stateDir: '/state',
      cwd: '/repo/src',
    });
    assert.deepEqual(mounts(args), [
      // /tmp before the host view, so nothing of the view under the host's /tmp is hidden by it.
      ['--tmpfs', '/tmp'],
      ['--ro-bind', '/usr', '/usr'],
      ['--symlink', 'usr/bin', '/bin'],
      ['--dir', '/run'],
      ['--dev', '/dev'],
      ['--proc', '/proc'],
      ['--ro-bind', '/repo', '/repo'],
      ['--ro-bind', '/state', '/state'],
      ['--remount-ro', '/'],
      ['--chdir', '/repo/src'],
    ]);
    assert.ok(
      !args.includes('/') || args[args.indexOf('/') - 1] === '--remount-ro',
      'the host root is never bound',
    );
    assert.ok(
      args.includes('--share-net'),
      'the layout passes network through; the manager forces it off in read_only',
    );
  });

  it('orders workspace_write mounts: roots, pinned parents, read-only paths, secrets, state (SB-3, SB-4, SB-5, SB-7)', () => {
    const args = buildBubblewrapArguments({
      mode: 'workspace_write',
      hostView,
      roots: ['/repo/nested', '/repo'],
      protection: {
        readOnly: ['/repo/vendor/x/.git', '/repo/.git'],
        hidden: [
          { path: '/repo/.env', kind: 'file' },
          { path: '/repo/keys', kind: 'directory' },
        ],
        pinned: ['/repo/vendor', '/repo/vendor/x'],
      },
      placeholders: ['/repo/.toolhost'],
      emptyFile: '/state/empty',
      network: false,
      stateDir: '/state',
      cwd: '/repo',
    });
    assert.deepEqual(mounts(args).slice(6), [
      ['--bind', '/repo', '/repo'],
      ['--bind', '/repo/nested', '/repo/nested'],
      ['--bind', '/repo/vendor', '/repo/vendor'],
      ['--bind', '/repo/vendor/x', '/repo/vendor/x'],
      ['--ro-bind', '/repo/.git', '/repo/.git'],
      ['--ro-bind', '/repo/.toolhost', '/repo/.toolhost'],
      ['--ro-bind', '/repo/vendor/x/.git', '/repo/vendor/x/.git'],
      ['--ro-bind', '/state/empty', '/repo/.env'],
      ['--tmpfs', '/repo/keys'],
      ['--ro-bind', '/state', '/state'],
      ['--remount-ro', '/repo/keys'],
      ['--remount-ro', '/'],
      ['--chdir', '/repo'],
    ]);
  });

  it('binds a state directory that sits inside a hidden directory before making the cover read-only', () => {
    const args = buildBubblewrapArguments({
      mode: 'read_only',
      hostView,
      roots: ['/repo'],
      protection: { readOnly: [], hidden: [{ path: '/repo/.toolhost', kind: 'directory' }], pinned: [] },
      network: false,
      stateDir: '/repo/.toolhost/jobs',
      cwd: '/repo',
    });
    assert.deepEqual(mounts(args).slice(6), [
      ['--ro-bind', '/repo', '/repo'],
      ['--tmpfs', '/repo/.toolhost'],
      ['--ro-bind', '/repo/.toolhost/jobs', '/repo/.toolhost/jobs'],
      ['--remount-ro', '/repo/.toolhost'],
      ['--remount-ro', '/'],
      ['--chdir', '/repo'],
    ]);
  });
});

describe('planProtectedPaths', () => {
  it('re-binds existing protected paths and reserves missing literal ones (SB-4)', (t) => {
    const root = tempDir(t);
    mkdirSync(path.join(root, '.git'));
    mkdirSync(path.join(root, 'pkg', 'lib', '.git'), { recursive: true });
    writeFileSync(path.join(root, 'yarn.lock'), '');
    writeFileSync(path.join(root, 'pkg', 'yarn.lock'), '');
    mkdirSync(path.join(root, 'node_modules', 'dep', '.git'), { recursive: true });
    const plan = planProtectedPaths({
      roots: [root],
      protectedPaths: ['*.lock', '/config/', '/deploy/prod.key', path.join(root, 'absolute.txt')],
      secretPaths: [],
    });
    assert.deepEqual(plan.readOnly, [
      path.join(root, '.git'),
      path.join(root, 'yarn.lock'),
      path.join(root, 'pkg', 'yarn.lock'),
      path.join(root, 'pkg', 'lib', '.git'),
    ]);
    assert.deepEqual(plan.missing, [
      { path: path.join(root, '.toolhost'), kind: 'directory' },
      { path: path.join(root, 'absolute.txt'), kind: 'file' },
      { path: path.join(root, 'config'), kind: 'directory' },
      { path: path.join(root, 'deploy'), kind: 'directory' },
    ]);
    assert.deepEqual(plan.pinned, [path.join(root, 'pkg'), path.join(root, 'pkg', 'lib')]);
    assert.equal(plan.truncated, false);
  });

  it('finds secrets, honours exceptions and reports a truncated walk (SB-5)', (t) => {
    const root = tempDir(t);
    writeFileSync(path.join(root, '.env'), '');
    writeFileSync(path.join(root, '.env.example'), '');
    mkdirSync(path.join(root, 'app'));
    writeFileSync(path.join(root, 'app', '.env.local'), '');
    const plan = planProtectedPaths({
      roots: [root],
      protectedPaths: [],
      secretPaths: ['.env', '.env.*', '!.env.example'],
    });
    assert.deepEqual(plan.hidden, [
      { path: path.join(root, '.env'), kind: 'file' },
      { path: path.join(root, 'app', '.env.local'), kind: 'file' },
    ]);
    const small = planProtectedPaths({
      roots: [root],
      protectedPaths: ['*.lock'],
      secretPaths: [],
      maxEntries: 2,
    });
    assert.equal(small.truncated, true);
  });

  it('tells absolute paths inside a root from root-anchored patterns', () => {
    assert.equal(isAbsoluteLiteral('/repo/config/app.key', ['/repo']), true);
    assert.equal(isAbsoluteLiteral('/config/app.key', ['/repo']), false);
    assert.equal(isAbsoluteLiteral('/repo/*.key', ['/repo']), false);
    assert.equal(isAbsoluteLiteral('/repo', ['/repo']), false);
  });

  it('throws a TypeError for an empty pattern', () => {
    assert.throws(() => planProtectedPaths({ roots: [], protectedPaths: ['!'], secretPaths: [] }), TypeError);
  });
});

describe('buildSeatbeltProfile', () => {
  const layout = {
    mode: 'workspace_write' as const,
    roots: ['/Users/me/repo'],
    protectedPaths: ['*.lock', '/config/'],
    secretPaths: ['.env'],
    network: false,
    tempDir: '/private/var/folders/x/T/toolhost-job-1',
    stateDir: '/Users/me/repo/.toolhost/jobs',
  };

  it('denies by default and allows reading, forking and the private temp directory (SB-MAC-1)', () => {
    const profile = buildSeatbeltProfile(layout);
    const lines = profile.trim().split('\n');
    assert.equal(lines[0], '(version 1)');
    assert.equal(lines[1], '(deny default)');
    for (const rule of ['(allow process-exec)', '(allow process-fork)', '(allow file-read*)'])
      assert.ok(lines.includes(rule), rule);
    assert.ok(
      lines.includes(
        '(allow file-write* (literal "/private/var/folders/x/T/toolhost-job-1") (subpath "/private/var/folders/x/T/toolhost-job-1"))',
      ),
    );
  });

  it('makes the roots writable only in workspace_write and denies protected paths last (SB-MAC-1)', () => {
    const profile = buildSeatbeltProfile(layout);
    const allowRoot = profile.indexOf('(allow file-write* (subpath "/Users/me/repo"))');
    const denyProtected = profile.indexOf('(deny file-write* ');
    assert.ok(allowRoot > 0);
    assert.ok(denyProtected > allowRoot, 'the last matching rule wins in SBPL');
    const deny = profile.slice(denyProtected).split('\n')[0]!;
    assert.ok(
      deny.includes('(literal "/Users/me/repo/.git") (subpath "/Users/me/repo/.git")'),
      'a .git created later is covered',
    );
    assert.ok(deny.includes('(literal "/Users/me/repo/.toolhost")'));
    assert.ok(deny.includes('(regex #"^/Users/me/repo/(.*/)?[^/]*\\\\.lock$")'));
    assert.ok(deny.includes('(regex #"^/Users/me/repo/config(/.*)?$")'));
    assert.ok(deny.includes('(subpath "/Users/me/repo/.toolhost/jobs")'), 'the state directory');
    assert.match(
      profile,
      /\(deny file-read\* file-write\* \(regex #"\^\/Users\/me\/repo\/\(\.\*\/\)\?\\\\\.env\$"\)\)/,
    );
    const readOnly = buildSeatbeltProfile({ ...layout, mode: 'read_only' });
    assert.ok(!readOnly.includes('(subpath "/Users/me/repo"))'));
  });

  it('denies the network unless asked (SB-MAC-1)', () => {
    assert.ok(!buildSeatbeltProfile(layout).includes('network'));
    assert.ok(buildSeatbeltProfile({ ...layout, network: true }).includes('(allow network*)'));
  });

  it('quotes paths so they cannot break out of the profile', () => {
    const profile = buildSeatbeltProfile({ ...layout, roots: ['/Users/me/a"b\\c'] });
    assert.ok(profile.includes('(subpath "/Users/me/a\\"b\\\\c")'));
  });
});

describe('patternToSeatbeltRegex', () => {
  it('translates the path-policy glob subset and declines the rest', () => {
    assert.equal(patternToSeatbeltRegex('/r', '.git/**'), '^/r/(.*/)?\\.git(/.*)?$');
    assert.equal(patternToSeatbeltRegex('/r', '/build/*.js'), '^/r/build/[^/]*\\.js$');
    assert.equal(patternToSeatbeltRegex('/r', 'a?c'), '^/r/(.*/)?a[^/]c$');
    assert.equal(patternToSeatbeltRegex('/r', '*.{js,ts}'), undefined);
    assert.equal(patternToSeatbeltRegex('/r', '!keep.lock'), undefined);
  });
});
