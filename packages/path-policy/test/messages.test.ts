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

  it('shows the input as given, quoted and cut at 160 characters (PP-MSG-1)', () => {
    const { root } = setup();
    const policy = createPathPolicy({ mode: 'current_project', root });
    const simple = policy.resolve('../outside/x.txt', { access: 'read' });
    assert.equal(
      !simple.ok && simple.error.message,
      'Path "../outside/x.txt" is outside the project root; file tools may only use paths inside it. Use a path relative to the project root.',
    );
    const long = policy.resolve(`../${'y'.repeat(200)}`, { access: 'read' });
    assert.ok(!long.ok);
    assert.ok(long.error.message.includes(`"../${'y'.repeat(157)}…"`));
    assert.ok(!long.error.message.includes('y'.repeat(158)));
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
