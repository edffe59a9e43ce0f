import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DIALECT_NAMES } from '@toolhost/provider-dialects';
import { planDenial } from '../src/decide-permission.js';
import { type ApprovalRequest, createHost, type Host, type HostOptions } from '../src/index.js';
import { EXIT_PLAN_MODE } from '../src/plan-mode.js';
import { auditSink, tempRoot } from './helpers.js';

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];

async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, config: false, sandbox: 'workspace_write', ...options });
  hosts.push(created);
  return created;
}

beforeEach(() => {
  root = tempRoot();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
});

const write = { name: 'write_file', arguments: { path: 'plan.txt', content: 'carried out\n' } };
const exitPlan = { name: EXIT_PLAN_MODE, arguments: { plan: '1. write plan.txt\n2. check it' } };

function surfaceBytes(session: {
  providerTools: Host['providerTools'];
  modelTools: Host['modelTools'];
}): string[] {
  return [
    JSON.stringify(session.modelTools()),
    ...DIALECT_NAMES.map((dialect) => JSON.stringify(session.providerTools(dialect).tools)),
  ];
}

describe('plan mode', () => {
  it('refuses write_file with PLAN_NOT_APPROVED, and after exit_plan_mode is approved the surface bytes are the same and the write succeeds', async () => {
    const requests: ApprovalRequest[] = [];
    const sink = auditSink();
    const h = await host({
      onAudit: sink.onAudit,
      approve: (request) => {
        requests.push(request);
        return 'allow_once';
      },
    });
    const session = await h.openSession({ plan: true, persist: false });
    assert.equal(session.planning, true);
    const normal = await h.openSession({ persist: false });
    assert.deepEqual(
      session.surfaceNames(),
      [...normal.surfaceNames(), EXIT_PLAN_MODE].sort(),
      'the normal surface plus exit_plan_mode',
    );
    const before = surfaceBytes(session);
    const refused = await session.dispatch(write);
    assert.equal(refused.error?.code, 'PLAN_NOT_APPROVED', refused.output);
    assert.match(refused.output, /^PLAN_NOT_APPROVED: "write_file" can change files or state/);
    assert.ok(!existsSync(join(root.dir, 'plan.txt')));
    const approved = await session.dispatch(exitPlan);
    assert.equal(approved.status, 'ok', approved.output);
    assert.match(approved.output, /The plan was approved/);
    assert.equal(requests.length, 1);
    assert.equal(requests[0]?.toolName, EXIT_PLAN_MODE);
    assert.equal(requests[0]?.preview, '1. write plan.txt\n2. check it', 'the person sees the plan');
    assert.deepEqual(requests[0]?.choices, ['allow_once', 'deny'], 'a plan approval is never remembered');
    assert.equal(session.planning, false);
    assert.deepEqual(surfaceBytes(session), before, 'byte-stable for the whole session');
    const written = await session.dispatch(write);
    assert.equal(written.status, 'ok', written.output);
    assert.equal(readFileSync(join(root.dir, 'plan.txt'), 'utf8'), 'carried out\n');
    assert.ok(sink.events.some((event) => event.type === 'plan-approved'));
    assert.ok(
      !JSON.stringify(sink.events).includes('check it'),
      'the plan text is for the person, not the audit log',
    );
  });

  it('runs the shell in the read-only sandbox during the plan phase, and in the configured one after approval', async () => {
    const h = await host({ approve: () => true });
    const session = await h.openSession({ plan: true, persist: false });
    const command = { name: 'bash', arguments: { command: 'echo planned > shell.txt' } };
    const planning = await session.dispatch(command);
    assert.equal(planning.status, 'error', planning.output);
    assert.ok(
      !existsSync(join(root.dir, 'shell.txt')),
      'the read-only sandbox kept the file from being written',
    );
    const reading = await session.dispatch({ name: 'bash', arguments: { command: 'echo read-only-ok' } });
    assert.equal(reading.status, 'ok', reading.output);
    assert.equal((await session.dispatch(exitPlan)).status, 'ok');
    const after = await session.dispatch(command);
    assert.equal(after.status, 'ok', after.output);
    assert.equal(readFileSync(join(root.dir, 'shell.txt'), 'utf8'), 'planned\n');
  });

  it('keeps planning when exit_plan_mode cannot be approved: APPROVAL_REQUIRED without a person, APPROVAL_DENIED on a refusal', async () => {
    const nobody = await host();
    const session = await nobody.openSession({ plan: true, persist: false });
    const result = await session.dispatch(exitPlan);
    assert.equal(result.error?.code, 'APPROVAL_REQUIRED', result.output);
    assert.equal(session.planning, true);
    assert.equal((await session.dispatch(write)).error?.code, 'PLAN_NOT_APPROVED');
    const declining = await host({ approve: () => ({ decision: 'deny', reason: 'check the tests first' }) });
    const declined = await declining.openSession({ plan: true, persist: false });
    const answer = await declined.dispatch(exitPlan);
    assert.equal(answer.error?.code, 'APPROVAL_DENIED', answer.output);
    assert.match(answer.output, /check the tests first/);
    assert.equal(declined.planning, true);
    // Under approval never, nobody may be asked: the phase cannot end (fails closed).
    const never = await host({ approval: 'never', approve: () => true });
    const neverSession = await never.openSession({ plan: true, persist: false });
    assert.equal((await neverSession.dispatch(exitPlan)).error?.code, 'APPROVAL_REQUIRED');
  });

  it('opens the default session in plan mode with the host option, and children of a planning session run read_only', async () => {
    const h = await host({ plan: true, approve: () => true });
    assert.ok(h.surfaceNames().includes(EXIT_PLAN_MODE));
    assert.equal(h.defaultSession().planning, true);
    const child = await h.defaultSession().openChild();
    assert.equal(child.policy.sandbox, 'read_only');
    await assert.rejects(
      h.defaultSession().openChild({ sandbox: 'workspace_write' }),
      /CONFIG_INVALID|widen/,
    );
    // Outside plan mode exit_plan_mode is not listed and changes nothing when called by name.
    const plain = await host();
    assert.ok(!plain.surfaceNames().includes(EXIT_PLAN_MODE));
    const outside = await plain.dispatch(exitPlan);
    assert.equal(outside.status, 'ok', outside.output);
    assert.match(outside.output, /not in a plan phase/);
  });

  it('keeps the plan phase across a resume, and the approval too', async () => {
    const first = await host({ approve: () => true });
    const planned = await first.openSession({ plan: true });
    const fingerprint = planned.surfaceFingerprint();
    await planned.close();
    await first.close();
    const second = await host({ approve: () => true });
    const resumed = await second.resumeSession(planned.id);
    assert.equal(resumed.planning, true, 'a resumed session is still planning');
    assert.equal(resumed.surfaceFingerprint(), fingerprint);
    assert.equal((await resumed.dispatch(write)).error?.code, 'PLAN_NOT_APPROVED');
    assert.equal((await resumed.dispatch(exitPlan)).status, 'ok');
    await resumed.close();
    await second.close();
    const third = await host();
    const again = await third.resumeSession(planned.id);
    assert.equal(again.planning, false, 'the approval was kept');
    assert.equal(again.surfaceFingerprint(), fingerprint, 'exit_plan_mode stays on the surface');
    assert.equal((await again.dispatch(write)).status, 'ok');
  });

  it('regression: a resumed session keeps its own narrower sandbox (the policy was dropped on resume)', async () => {
    const first = await host();
    const narrow = await first.openSession({ sandbox: 'read_only' });
    await narrow.close();
    await first.close();
    const second = await host();
    const resumed = await second.resumeSession(narrow.id);
    assert.equal(resumed.policy.sandbox, 'read_only');
    assert.equal((await resumed.dispatch(write)).error?.code, 'PERMISSION_DENIED');
  });

  it('refuses present by name, writers and MCP tools not known to be read-only (planDenial)', () => {
    const facts = (overrides: Record<string, unknown>) => ({
      name: 'x',
      source: 'builtin' as const,
      group: 'utility_builtins' as const,
      category: 'utility' as const,
      annotations: { readOnly: true, destructive: false, openWorld: false },
      ...overrides,
    });
    assert.equal(planDenial(facts({ name: 'present' }))?.code, 'PLAN_NOT_APPROVED');
    assert.equal(planDenial(facts({ category: 'write', annotations: {} }))?.code, 'PLAN_NOT_APPROVED');
    assert.equal(
      planDenial(facts({ name: 'mcp__s__t', source: 'mcp', annotations: {} }))?.code,
      'PLAN_NOT_APPROVED',
    );
    assert.equal(
      planDenial(
        facts({ name: 'mcp__s__t', source: 'mcp', annotations: { readOnly: true, destructive: true } }),
      )?.code,
      'PLAN_NOT_APPROVED',
    );
    assert.equal(planDenial(facts({ name: 'mcp__s__t', source: 'mcp' })), undefined);
    assert.equal(planDenial(facts({ name: 'mcp_connect__s', source: 'mcp', annotations: {} })), undefined);
    assert.equal(
      planDenial(facts({ name: 'bash', category: 'shell', annotations: { readOnly: false } })),
      undefined,
    );
    assert.equal(planDenial(facts({ name: 'read_file', category: 'read' })), undefined);
  });
});
