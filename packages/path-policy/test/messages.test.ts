import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPathPolicy, type PathAccess, type PathPolicy } from '../src/index.js';
import { buildTree, useSandbox } from './helpers.js';

const CODES = new Set(['PATH_INVALID', 'PATH_OUTSIDE_ROOT', 'PATH_PROTECTED', 'FS_ACCESS_DENIED']);

describe('PathPolicy refusal messages', () => {
  const sandbox = useSandbox();
  const setup = () => {
    buildTree(sandbox.dir, {
      'proj/src/a.ts': 'a',
      'proj/.env': 'K=1',
      'proj/out': { link: '../outside' },
      'proj/dangling': { link: '../outside/new.txt' },
      'proj/loop': { link: 'loop' },
      'outside/x.txt': 'x',
      alias: { link: 'proj' },
    });
    return { root: path.join(sandbox.dir, 'proj'), alias: path.join(sandbox.dir, 'alias') };
  };

  // Relative inputs only: the message may echo the input, so none of these contain a root.
  const refusals: Array<[string, PathAccess]> = [
    ['../outside/x.txt', 'read'],
    ['../../../../etc/passwd', 'read'],
    ['out/x.txt', 'read'],
    ['out', 'list'],
    ['dangling', 'write'],
    ['loop', 'read'],
    ['.env', 'read'],
    ['.git/config', 'write'],
    ['~/missing', 'read'],
    ['a\u0000b', 'read'],
    ['', 'read'],
    [`${'x'.repeat(300)}/y`, 'write'],
    ['q/'.repeat(2100), 'write'],
  ];

  const check = (policy: PathPolicy, roots: string[], label: string) => {
    for (const [input, access] of refusals) {
      const result = policy.resolve(input, { access });
      assert.equal(result.ok, false, `${label} ${JSON.stringify(input)} should be refused`);
      if (result.ok) continue;
      assert.ok(CODES.has(result.error.code), result.error.code);
      assert.equal(typeof result.error.reason, 'string');
      assert.ok(result.error.message.length > 20);
      for (const root of roots) {
        assert.ok(!result.error.message.includes(root), `${label}: ${result.error.message} reveals ${root}`);
      }
      assert.ok(!result.error.message.includes(sandbox.dir), `${label}: ${result.error.message}`);
    }
  };

  it('never reveals a root and always carries a code and a reason (PP-MSG-1, PP-MSG-2)', () => {
    const { root, alias } = setup();
    check(createPathPolicy({ mode: 'current_project', root: alias }), [root, alias], 'current_project');
    check(createPathPolicy({ mode: 'allowed_roots', allowedRoots: [alias] }), [root, alias], 'allowed_roots');
    check(createPathPolicy({ mode: 'allowed_roots', allowedRoots: [] }), [root, alias], 'no roots');
    check(createPathPolicy({ mode: 'none', root }), [root, alias], 'none');
  });

  it('never echoes the input, naming the argument and the rule instead (regression: errors echoed the path argument up to 160 characters, PP-MSG-1)', () => {
    const { root } = setup();
    buildTree(sandbox.dir, { 'proj/certs.key/MARKER.txt': 'k', 'proj/.git/hooks/x': '' });
    const policy = createPathPolicy({ mode: 'current_project', root });
    const cases: Array<[string, PathAccess]> = [
      ['../outside/MARKER.txt', 'read'],
      ['../../MARKER/etc/passwd', 'read'],
      ['out/MARKER.txt', 'read'],
      ['dangling/MARKER', 'write'],
      ['MARKER\u0000x', 'read'],
      ['~/MARKER', 'read'],
      [`MARKER/${'x'.repeat(300)}`, 'write'],
      ['MARKER/'.repeat(700), 'write'],
      ['.env.MARKER', 'read'],
      ['certs.key/MARKER.txt', 'read'],
      ['.git/MARKER-new-hook', 'write'],
      ['loop/MARKER', 'read'],
      [`${sandbox.dir}/outside/MARKER.txt`, 'read'],
    ];
    for (const [input, access] of cases) {
      const result = policy.resolve(input, { access, argument: 'destination' });
      assert.equal(result.ok, false, input);
      if (result.ok) continue;
      assert.ok(!result.error.message.includes('MARKER'), `${result.error.message} echoes the input`);
      assert.ok(!result.error.message.includes(sandbox.dir), result.error.message);
      assert.ok(result.error.message.startsWith('The path given as "destination" '), result.error.message);
    }
    const plain = policy.resolve('../outside/MARKER.txt', { access: 'read' });
    assert.equal(
      !plain.ok && plain.error.message,
      'The path is outside the project root; file tools may only use paths inside it. Use a path relative to the project root.',
    );
  });

  it('shows the bounded display path of an existing protected file inside the roots only (PP-MSG-1)', () => {
    const { root } = setup();
    const long = `${'d'.repeat(120)}/${'e'.repeat(120)}`;
    buildTree(sandbox.dir, { 'proj/.git/config': '[core]', [`proj/.git/${long}/config`]: 'x' });
    const policy = createPathPolicy({ mode: 'current_project', root });
    const existing = policy.resolve('.git/config', { access: 'write' });
    assert.match(
      !existing.ok ? existing.error.message : '',
      /^"\.git\/config" is protected \(it matches "\.git\/\*\*"\)/,
    );
    const missing = policy.resolve('.git/new-hook', { access: 'write' });
    assert.match(!missing.ok ? missing.error.message : '', /^The path is protected/);
    const deep = policy.resolve(`.git/${long}/config`, { access: 'write' });
    assert.ok(!deep.ok);
    const shown = /^"([^"]*)"/.exec(deep.error.message)?.[1] ?? '';
    assert.ok(shown.length <= 160 && shown.startsWith('.git/ddd') && shown.endsWith('eee/config'), shown);
  });

  it('names the rule: the project root or the allowed roots (PP-MSG-1)', () => {
    const { root } = setup();
    const project = createPathPolicy({ mode: 'current_project', root }).resolve('../x', { access: 'read' });
    assert.match(!project.ok ? project.error.message : '', /outside the project root/);
    const allowed = createPathPolicy({ mode: 'allowed_roots', allowedRoots: [root] }).resolve('../x', {
      access: 'read',
    });
    assert.match(
      !allowed.ok ? allowed.error.message : '',
      /outside the allowed roots.*one of the allowed roots/,
    );
  });
});
