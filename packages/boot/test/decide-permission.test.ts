import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decidePermission, type PermissionToolFacts } from '../src/decide-permission.js';
import type { ApprovalPolicy, SandboxMode } from '../src/index.js';
import { createPermissionRules } from '../src/permission-rules.js';

const read: PermissionToolFacts = {
  name: 'read_file',
  source: 'builtin',
  group: 'read_only_builtins',
  category: 'read',
  annotations: { readOnly: true, destructive: false, openWorld: false },
};
const write: PermissionToolFacts = {
  name: 'edit_file',
  source: 'builtin',
  group: 'editing_builtins',
  category: 'write',
  annotations: { readOnly: false, destructive: true, openWorld: false },
};
const shell: PermissionToolFacts = {
  name: 'bash',
  source: 'builtin',
  group: 'shell_builtins',
  category: 'shell',
  annotations: { readOnly: false, destructive: true, openWorld: true },
};
const jobKill: PermissionToolFacts = {
  name: 'job_kill',
  source: 'builtin',
  group: 'shell_builtins',
  category: 'shell',
  annotations: { readOnly: false, destructive: false, openWorld: false },
};
const unknownMcp: PermissionToolFacts = {
  name: 'mcp__srv__echo',
  source: 'mcp',
  group: 'utility_builtins',
  category: 'utility',
  annotations: {},
};
const openWorld: PermissionToolFacts = {
  name: 'web_fetch',
  source: 'builtin',
  group: 'read_only_builtins',
  category: 'read',
  annotations: { readOnly: true, destructive: false, openWorld: true },
};

type Row = [string, PermissionToolFacts, SandboxMode, ApprovalPolicy, string, string];

// BT-PERM-1: the decision order is fixed and table-testable, with the sandbox write-deny before
// anything else.
const table: Row[] = [
  ['read in read_only', read, 'read_only', 'on_request', 'allow', 'annotation'],
  ['read in read_only, strict', read, 'read_only', 'strict', 'allow', 'annotation'],
  ['write in read_only', write, 'read_only', 'never', 'deny', 'sandbox'],
  ['write in read_only, strict', write, 'read_only', 'strict', 'deny', 'sandbox'],
  ['write in workspace_write', write, 'workspace_write', 'on_request', 'allow', 'policy'],
  ['write in workspace_write, strict', write, 'workspace_write', 'strict', 'ask', 'policy'],
  ['write in danger_full_access', write, 'danger_full_access', 'on_request', 'allow', 'policy'],
  ['shell in read_only (OS sandbox)', shell, 'read_only', 'on_request', 'allow', 'sandbox'],
  ['shell in workspace_write, strict', shell, 'workspace_write', 'strict', 'ask', 'policy'],
  ['shell unsandboxed', shell, 'danger_full_access', 'on_request', 'ask', 'annotation'],
  ['shell unsandboxed, never', shell, 'danger_full_access', 'never', 'allow', 'policy'],
  ['job_kill in read_only', jobKill, 'read_only', 'on_request', 'allow', 'sandbox'],
  ['unknown annotations', unknownMcp, 'workspace_write', 'on_request', 'ask', 'annotation'],
  ['unknown annotations, never', unknownMcp, 'workspace_write', 'never', 'allow', 'policy'],
  ['unknown annotations, strict', unknownMcp, 'workspace_write', 'strict', 'ask', 'policy'],
  ['open world', openWorld, 'workspace_write', 'on_request', 'ask', 'annotation'],
  ['trusted mcp', { ...unknownMcp, trusted: true }, 'workspace_write', 'on_request', 'allow', 'config'],
  ['trusted mcp, strict', { ...unknownMcp, trusted: true }, 'workspace_write', 'strict', 'ask', 'policy'],
  [
    'trusted but destructive',
    { ...unknownMcp, trusted: true, annotations: { destructive: true } },
    'danger_full_access',
    'on_request',
    'ask',
    'annotation',
  ],
  [
    'declared mcp writer in read_only',
    { ...unknownMcp, annotations: { readOnly: false } },
    'read_only',
    'never',
    'deny',
    'sandbox',
  ],
];

describe('decidePermission', () => {
  for (const [label, tool, sandbox, approval, type, source] of table) {
    it(`decides ${label}: ${type} by ${source}`, () => {
      const decision = decidePermission({ tool, sandbox, approval });
      assert.equal(decision.type, type);
      assert.equal(decision.source, source);
    });
  }

  it('refuses a write in read_only as PERMISSION_DENIED before the path policy is consulted', () => {
    const decision = decidePermission({
      tool: write,
      sandbox: 'read_only',
      approval: 'on_request',
      pathDenial: { code: 'PATH_OUTSIDE_ROOT', message: 'outside', argument: 'path' },
    });
    assert.equal(decision.type, 'deny');
    assert.ok(decision.type === 'deny' && decision.code === 'PERMISSION_DENIED');
    assert.match(decision.reason, /sandbox read_only/);
  });

  it('makes a path denial final, even under never and an allow rule', () => {
    const decision = decidePermission({
      tool: read,
      sandbox: 'workspace_write',
      approval: 'never',
      rules: createPermissionRules({ allow: ['read_file'] }),
      pathDenial: { code: 'PATH_OUTSIDE_ROOT', message: 'outside the root', argument: 'path' },
    });
    assert.deepEqual(decision, {
      type: 'deny',
      source: 'path_policy',
      code: 'PATH_OUTSIDE_ROOT',
      reason: 'outside the root',
    });
  });

  it('applies configured rules after the boundaries: deny, then ask, then allow', () => {
    const rules = createPermissionRules({
      deny: ['read_file'],
      ask: ['bash(git push:*)'],
      allow: ['mcp__srv__echo', 'bash(git status:*)'],
    });
    const denied = decidePermission({ tool: read, sandbox: 'read_only', approval: 'never', rules });
    assert.ok(denied.type === 'deny' && denied.code === 'APPROVAL_DENIED' && denied.rule === 'read_file');
    const asked = decidePermission({
      tool: shell,
      sandbox: 'workspace_write',
      approval: 'never',
      rules,
      subject: 'git push',
    });
    assert.equal(asked.type, 'ask');
    assert.equal(asked.source, 'rule');
    const allowed = decidePermission({
      tool: unknownMcp,
      sandbox: 'workspace_write',
      approval: 'strict',
      rules,
    });
    assert.equal(allowed.type, 'allow');
    assert.equal(allowed.source, 'rule');
    const unsandboxed = decidePermission({
      tool: shell,
      sandbox: 'danger_full_access',
      approval: 'on_request',
      rules,
      subject: 'git status --short',
    });
    assert.equal(unsandboxed.type, 'allow');
    assert.equal(unsandboxed.rule, 'bash(git status:*)');
  });

  it('is pure: the same input gives the same decision', () => {
    const request = { tool: unknownMcp, sandbox: 'workspace_write', approval: 'on_request' } as const;
    assert.deepEqual(decidePermission(request), decidePermission(request));
  });
});
