import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compileGitignore,
  compileGlobLines,
  type IgnoreLevel,
  matchIgnoreLevels,
} from '../../src/discovery/discovery-ignore.js';

// The ignore-file rules shared by grep's JS engine, glob and ls (ripgrep's semantics). The parity
// suite (grep-parity.test.ts) checks the same rules against ripgrep on a real tree.

describe('compileGitignore', () => {
  const cases: Array<[string, string, boolean, 'ignore' | 'whitelist' | 'none']> = [
    ['*.log', 'a.log', false, 'ignore'],
    ['*.log', 'deep/dir/a.log', false, 'ignore'],
    ['*.log', 'a.logx', false, 'none'],
    ['/build', 'build', true, 'ignore'],
    ['/build', 'sub/build', true, 'none'],
    ['build/', 'build', true, 'ignore'],
    ['build/', 'build', false, 'none'],
    ['build/', 'x/build', true, 'ignore'],
    ['doc/*.txt', 'doc/a.txt', false, 'ignore'],
    ['doc/*.txt', 'doc/x/a.txt', false, 'none'],
    ['doc/*.txt', 'x/doc/a.txt', false, 'none'],
    ['**/foo', 'foo', true, 'ignore'],
    ['**/foo', 'a/b/foo', false, 'ignore'],
    ['foo/**', 'foo', true, 'none'],
    ['foo/**', 'foo/a', false, 'ignore'],
    ['foo/**', 'foo/a/b', false, 'ignore'],
    ['a/**/b', 'a/b', false, 'ignore'],
    ['a/**/b', 'a/x/y/b', false, 'ignore'],
    ['*.log\n!keep.log', 'keep.log', false, 'whitelist'],
    ['!keep.log\n*.log', 'keep.log', false, 'ignore'],
    ['\\#file', '#file', false, 'ignore'],
    ['\\!bang', '!bang', false, 'ignore'],
    ['# comment\n\n   \nreal', 'real', false, 'ignore'],
    ['# comment', '# comment', false, 'none'],
    ['trailing   ', 'trailing', false, 'ignore'],
    ['space\\ ', 'space ', false, 'ignore'],
    ['*.LOG', 'a.log', false, 'none'],
    ['.*', '.env', false, 'ignore'],
    ['*', '.hidden', false, 'ignore'],
    ['[abc].txt', 'b.txt', false, 'ignore'],
    ['[!abc].txt', 'b.txt', false, 'none'],
    ['[!abc].txt', 'd.txt', false, 'ignore'],
    ['[abc].txt', '[abc].txt', false, 'none'],
    ['file?.md', 'file1.md', false, 'ignore'],
    ['file?.md', 'file/.md', false, 'none'],
    ['\ufeff*.tmp\r\n', 'x.tmp', false, 'ignore'],
  ];
  for (const [text, subject, isDirectory, expected] of cases) {
    it(`says ${expected} for ${JSON.stringify(subject)}${isDirectory ? ' (directory)' : ''} under ${JSON.stringify(text)}`, () => {
      assert.equal(compileGitignore(text).match(subject, isDirectory), expected);
    });
  }

  it('matches case-insensitively only when asked', () => {
    assert.equal(compileGitignore('*.LOG', { caseInsensitive: true }).match('a.log', false), 'ignore');
  });
});

describe('compileGlobLines', () => {
  it('counts the positive globs (ripgrep then searches only files they match)', () => {
    assert.equal(compileGlobLines(['*.ts', '!.git', '!node_modules']).ignoreRuleCount, 1);
    assert.equal(compileGlobLines(['!.git']).ignoreRuleCount, 0);
  });
});

describe('matchIgnoreLevels', () => {
  const level = (
    directory: string,
    parent: IgnoreLevel | undefined,
    files: { gitignore?: string; ignore?: string; rgignore?: string; exclude?: string; hasGit?: boolean },
  ): IgnoreLevel => ({
    directory,
    parent,
    gitignore: files.gitignore === undefined ? undefined : compileGitignore(files.gitignore),
    ignore: files.ignore === undefined ? undefined : compileGitignore(files.ignore),
    rgignore: files.rgignore === undefined ? undefined : compileGitignore(files.rgignore),
    exclude: files.exclude === undefined ? undefined : compileGitignore(files.exclude),
    hasGit: files.hasGit ?? false,
  });

  it('lets a deeper file override a shallower one of the same kind', () => {
    const root = level('/p', undefined, { gitignore: '*.tmp' });
    const sub = level('/p/sub', root, { gitignore: '!keep.tmp' });
    assert.equal(matchIgnoreLevels(sub, '/p/sub/keep.tmp', false), 'whitelist');
    assert.equal(matchIgnoreLevels(sub, '/p/sub/other.tmp', false), 'ignore');
  });

  it('ranks .rgignore over .ignore over .gitignore over .git/info/exclude, whatever their depth', () => {
    const root = level('/p', undefined, { ignore: 'a.txt', exclude: 'b.txt\nc.txt', hasGit: true });
    const sub = level('/p/sub', root, { gitignore: '!a.txt\n!b.txt', rgignore: 'c.txt' });
    assert.equal(matchIgnoreLevels(sub, '/p/sub/a.txt', false), 'ignore');
    assert.equal(matchIgnoreLevels(sub, '/p/sub/b.txt', false), 'whitelist');
    assert.equal(matchIgnoreLevels(sub, '/p/sub/c.txt', false), 'ignore');
  });

  it('stops applying .gitignore files above the repository root, but not .ignore files', () => {
    const outer = level('/home', undefined, { gitignore: '*.x', ignore: '*.y' });
    const repo = level('/home/repo', outer, { hasGit: true });
    assert.equal(matchIgnoreLevels(repo, '/home/repo/a.x', false), 'none');
    assert.equal(matchIgnoreLevels(repo, '/home/repo/a.y', false), 'ignore');
    const noRepo = level('/home/plain', outer, {});
    assert.equal(matchIgnoreLevels(noRepo, '/home/plain/a.x', false), 'ignore');
  });

  it('matches paths relative to each file, so anchored rules stay where they were written', () => {
    const root = level('/p', undefined, { gitignore: '/build' });
    assert.equal(matchIgnoreLevels(root, '/p/build', true), 'ignore');
    assert.equal(matchIgnoreLevels(root, '/p/src/build', true), 'none');
  });
});
