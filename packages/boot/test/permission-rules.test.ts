import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPermissionRules, parsePermissionRule } from '../src/permission-rules.js';

describe('parsePermissionRule', () => {
  it('accepts exact names, exact subjects and trailing :* prefixes', () => {
    assert.deepEqual(parsePermissionRule('read_file'), {
      ok: true,
      value: { text: 'read_file', toolName: 'read_file' },
    });
    assert.deepEqual(parsePermissionRule('mcp_connect__github'), {
      ok: true,
      value: { text: 'mcp_connect__github', toolName: 'mcp_connect__github' },
    });
    assert.deepEqual(parsePermissionRule('bash(git status:*)'), {
      ok: true,
      value: {
        text: 'bash(git status:*)',
        toolName: 'bash',
        argument: { kind: 'prefix', value: 'git status' },
      },
    });
    assert.deepEqual(parsePermissionRule('bash(npm  test)'), {
      ok: true,
      value: { text: 'bash(npm  test)', toolName: 'bash', argument: { kind: 'exact', value: 'npm test' } },
    });
  });

  it('rejects wildcard names, empty patterns and inner wildcards with a reason', () => {
    for (const bad of [
      'mcp__github__*',
      '*',
      'bash()',
      'bash(:*)',
      'bash(git * status)',
      'bash(git*:*)',
      'a b',
      42,
    ]) {
      const parsed = parsePermissionRule(bad);
      assert.equal(parsed.ok, false, String(bad));
      if (!parsed.ok) assert.ok(parsed.error.length > 10);
    }
    const wildcard = parsePermissionRule('mcp__github__*');
    assert.ok(!wildcard.ok && /exact/.test(wildcard.error));
  });
});

describe('createPermissionRules', () => {
  it('evaluates deny before ask before allow', () => {
    const rules = createPermissionRules({ allow: ['bash'], ask: ['bash(git push:*)'], deny: ['bash(rm:*)'] });
    assert.deepEqual(rules.match('bash', 'rm -rf build'), { effect: 'deny', rule: 'bash(rm:*)' });
    assert.deepEqual(rules.match('bash', 'git push origin main'), {
      effect: 'ask',
      rule: 'bash(git push:*)',
    });
    assert.deepEqual(rules.match('bash', 'ls'), { effect: 'allow', rule: 'bash' });
    assert.equal(rules.match('read_file'), undefined);
    assert.equal(rules.size, 3);
  });

  it('matches names exactly: mcp names are never patterns', () => {
    const rules = createPermissionRules({ deny: ['mcp_connect__github', 'mcp__github__create_issue'] });
    assert.equal(rules.match('mcp_connect__github')?.effect, 'deny');
    assert.equal(rules.match('mcp_connect__github2'), undefined);
    assert.equal(rules.match('mcp__github__create_issue')?.effect, 'deny');
    assert.equal(rules.match('mcp__github__list_issues'), undefined);
  });

  it('matches a prefix on whole words only', () => {
    const rules = createPermissionRules({ allow: ['bash(git status:*)'] });
    assert.equal(rules.match('bash', 'git status')?.effect, 'allow');
    assert.equal(rules.match('bash', '  git   status   --short ')?.effect, 'allow');
    assert.equal(rules.match('bash', 'git statusx'), undefined);
    assert.equal(rules.match('bash', 'git'), undefined);
    assert.equal(rules.match('bash'), undefined, 'a call without a subject never matches an argument rule');
  });

  it('never lets an allow prefix approve a compound, redirected or substituted command', () => {
    const rules = createPermissionRules({ allow: ['bash(git status:*)'] });
    for (const command of [
      'git status && rm -rf x',
      'git status; rm -rf x',
      'git status | sh',
      'git status > out.txt',
      'git status $(rm -rf x)',
      'git status `rm -rf x`',
      'git status &',
      'git status\nrm -rf x',
      'GIT_EXTERNAL_DIFF=evil git status',
      'git status "$(rm x)"',
    ]) {
      assert.equal(rules.match('bash', command), undefined, command);
    }
    assert.equal(
      rules.match('bash', "git status -- 'a;b'")?.effect,
      'allow',
      'quoted operators are plain text',
    );
  });

  it('lets deny and ask rules match any simple command of a compound command', () => {
    const rules = createPermissionRules({ deny: ['bash(rm:*)'], ask: ['bash(curl:*)'] });
    assert.equal(rules.match('bash', 'ls && rm -rf x')?.effect, 'deny');
    assert.equal(rules.match('bash', 'echo $(rm -rf x)')?.effect, 'deny');
    assert.equal(rules.match('bash', 'echo "`rm -rf x`"')?.effect, 'deny');
    assert.equal(rules.match('bash', 'FOO=1 rm x')?.effect, 'deny');
    assert.equal(rules.match('bash', 'cat f | curl -d @- host')?.effect, 'ask');
    assert.equal(rules.match('bash', "echo 'rm -rf x'"), undefined, 'single-quoted text is not a command');
  });

  it('throws naming the list and index of a malformed rule', () => {
    assert.throws(() => createPermissionRules({ ask: ['ok', 'bad*'] }), /permissions\.ask\[1\]/);
  });
});
