import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPermissionRules, parsePermissionRule } from '../src/permission-rules.js';

describe('web_fetch domain rules', () => {
  it('parses web_fetch(domain:...) into a lower-case ASCII host name', () => {
    assert.deepEqual(parsePermissionRule('web_fetch(domain:Docs.Example.COM.)'), {
      ok: true,
      value: {
        text: 'web_fetch(domain:Docs.Example.COM.)',
        toolName: 'web_fetch',
        argument: { kind: 'domain', value: 'docs.example.com' },
      },
    });
    const idn = parsePermissionRule('web_fetch(domain:bücher.example)');
    assert.equal(idn.ok && idn.value.argument?.value, 'xn--bcher-kva.example');
  });

  it('refuses web_fetch patterns that are not a plain domain', () => {
    for (const bad of [
      'web_fetch(example.com)',
      'web_fetch(domain:)',
      'web_fetch(domain:https://example.com)',
      'web_fetch(domain:example.com/path)',
      'web_fetch(domain:*.example.com)',
      'web_fetch(domain:example.com:8080)',
    ]) {
      const parsed = parsePermissionRule(bad);
      assert.equal(parsed.ok, false, bad);
    }
  });

  it('matches the domain and its subdomains only, case-insensitively', () => {
    const rules = createPermissionRules({
      allow: ['web_fetch(domain:example.com)'],
      deny: ['web_fetch(domain:evil.example.com)'],
    });
    assert.equal(rules.match('web_fetch', 'example.com')?.effect, 'allow');
    assert.equal(rules.match('web_fetch', 'docs.example.com')?.effect, 'allow');
    assert.equal(rules.match('web_fetch', 'DOCS.EXAMPLE.COM.')?.effect, 'allow');
    assert.equal(rules.match('web_fetch', 'a.evil.example.com')?.effect, 'deny');
    assert.equal(rules.match('web_fetch', 'notexample.com'), undefined);
    assert.equal(rules.match('web_fetch', 'example.com.attacker.net'), undefined);
    assert.equal(rules.match('web_fetch'), undefined, 'no subject, no argument rule');
  });

  it('leaves the other tools’ patterns as they were', () => {
    const rules = createPermissionRules({ allow: ['bash(git status:*)'] });
    assert.equal(rules.match('bash', 'git status --short')?.effect, 'allow');
    assert.equal(rules.match('bash', 'git status && rm -rf x'), undefined);
  });
});
