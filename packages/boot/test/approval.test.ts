import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type ApprovalRequest, createHost, type Host, type HostOptions } from '../src/index.js';
import { auditSink, sequentialWriter, type ToolLog, tempRoot, toolLog, unannotated } from './helpers.js';

let root: { dir: string; cleanup: () => void };
let log: ToolLog;
const hosts: Host[] = [];

async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({
    root: root.dir,
    config: false,
    tools: [unannotated(log), sequentialWriter(root.dir, log)],
    ...options,
  });
  hosts.push(created);
  return created;
}

beforeEach(() => {
  root = tempRoot();
  log = toolLog();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
});

describe('Host approval', () => {
  it('fails closed with APPROVAL_REQUIRED when no one can be asked (BT-PERM-4)', async () => {
    const sink = auditSink();
    const h = await host({ onAudit: sink.onAudit });
    const result = await h.dispatch({ id: 'u1', name: 'test_unknown', arguments: { command: 'x' } });
    assert.equal(result.error?.code, 'APPROVAL_REQUIRED');
    assert.match(
      result.output,
      /^APPROVAL_REQUIRED: "test_unknown" needs approval \(the tool does not declare itself safe/,
    );
    assert.deepEqual(log.entries, []);
    assert.deepEqual(sink.types('u1'), [
      'call-received',
      'call-resolved',
      'call-validated',
      'permission-decided',
      'approval-requested',
      'approval-resolved',
      'call-finished',
    ]);
    assert.equal(result.permission?.type, 'deny');
  });

  it('runs the call when a person approves, with the decision source user (BT-PERM-5)', async () => {
    const sink = auditSink();
    const requests: ApprovalRequest[] = [];
    const h = await host({
      onAudit: sink.onAudit,
      approve: (request) => {
        requests.push(request);
        return true;
      },
    });
    const result = await h.dispatch({ id: 'u2', name: 'test_unknown', arguments: { command: 'make all' } });
    assert.equal(result.status, 'ok');
    assert.equal(result.permission?.source, 'user');
    assert.deepEqual(log.entries, ['unknown:make all']);
    assert.equal(requests[0]?.subject, 'make all');
    assert.equal(requests[0]?.preview, 'run make all');
    assert.equal(requests[0]?.reason, 'the tool does not declare itself safe (annotations incomplete)');
    assert.deepEqual(sink.types('u2'), [
      'call-received',
      'call-resolved',
      'call-validated',
      'permission-decided',
      'approval-requested',
      'approval-resolved',
      'call-started',
      'call-finished',
    ]);
    const decided = sink.events.find((event) => event.type === 'permission-decided');
    assert.equal(decided?.decision, 'ask');
    assert.equal(decided?.source, 'annotation');
  });

  it("reports a person's refusal as APPROVAL_DENIED with the reason and does not run the call", async () => {
    const h = await host({ approve: () => ({ approved: false, reason: 'not on a Friday' }) });
    const result = await h.dispatch({ name: 'test_unknown', arguments: { command: 'deploy' } });
    assert.equal(result.error?.code, 'APPROVAL_DENIED');
    assert.match(
      result.output,
      /a person declined it: not on a Friday\); the action was not performed; do not retry the same call/,
    );
    assert.deepEqual(log.entries, []);
  });

  it('treats an unanswered approval as a denial after the timeout and fires the request signal', async () => {
    let seen: ApprovalRequest | undefined;
    const h = await host({
      approvalTimeoutMs: 50,
      approve: (request) => {
        seen = request;
        return new Promise(() => undefined);
      },
    });
    const result = await h.dispatch({ name: 'test_unknown', arguments: {} });
    assert.equal(result.error?.code, 'APPROVAL_DENIED');
    assert.match(result.output, /no one answered the approval request in time/);
    assert.equal(seen?.signal.aborted, true);
    assert.deepEqual(log.entries, []);
  });

  it('fails closed when the approval callback throws', async () => {
    const h = await host({
      approve: () => {
        throw new Error('ui crashed');
      },
    });
    const result = await h.dispatch({ name: 'test_unknown', arguments: {} });
    assert.equal(result.error?.code, 'APPROVAL_DENIED');
    assert.match(result.output, /the approval request failed/);
  });

  it('shows the person the resolved paths of a write under strict', async () => {
    const requests: ApprovalRequest[] = [];
    const h = await host({
      sandbox: 'workspace_write',
      approval: 'strict',
      approve: (request) => {
        requests.push(request);
        return false;
      },
    });
    const result = await h.dispatch({
      name: 'test_write',
      arguments: { path: 'sub/../new.txt', content: 'x' },
    });
    assert.equal(result.error?.code, 'APPROVAL_DENIED');
    assert.equal(existsSync(join(root.dir, 'new.txt')), false);
    assert.deepEqual(
      requests[0]?.paths.map(({ argument, path, displayPath, access }) => ({
        argument,
        path,
        displayPath,
        access,
      })),
      [{ argument: 'path', path: join(root.dir, 'new.txt'), displayPath: 'new.txt', access: 'write' }],
    );
    assert.equal(requests[0]?.reason, 'approval strict asks before every write');
  });

  it('applies configured deny, ask and allow rules on exact names (deny → ask → allow)', async () => {
    const asked: string[] = [];
    const h = await host({
      approval: 'never',
      config: { permissions: { deny: ['test_unknown(rm:*)'], ask: ['test_unknown(git push:*)'], allow: [] } },
      approve: (request) => {
        asked.push(request.subject ?? '');
        return true;
      },
    });
    const denied = await h.dispatch({ name: 'test_unknown', arguments: { command: 'rm -rf /' } });
    assert.equal(denied.error?.code, 'APPROVAL_DENIED');
    assert.equal(denied.permission?.source, 'rule');
    assert.match(denied.output, /the configured rule deny "test_unknown\(rm:\*\)" refuses this call/);
    // An ask rule under approval never: nobody may be asked, so it fails closed.
    const asking = await h.dispatch({ name: 'test_unknown', arguments: { command: 'git push' } });
    assert.equal(asking.error?.code, 'APPROVAL_REQUIRED');
    assert.deepEqual(asked, []);
    const plain = await h.dispatch({ name: 'test_unknown', arguments: { command: 'ls' } });
    assert.equal(plain.status, 'ok');
    assert.deepEqual(log.entries, ['unknown:ls']);
  });

  it('never lets a rule or approval never turn a boundary refusal into anything else (BT-PERM-3)', async () => {
    const h = await host({
      approval: 'never',
      config: { permissions: { allow: ['test_write'] } },
      approve: () => true,
    });
    const result = await h.dispatch({ name: 'test_write', arguments: { path: 'a.txt' } });
    assert.equal(result.error?.code, 'PERMISSION_DENIED');
    assert.equal(result.permission?.source, 'sandbox');
    assert.equal(existsSync(join(root.dir, 'a.txt')), false);
  });

  it('lets an allow rule run a call that would otherwise ask', async () => {
    const h = await host({ config: { permissions: { allow: ['test_unknown'] } } });
    const result = await h.dispatch({ name: 'test_unknown', arguments: {} });
    assert.equal(result.status, 'ok');
    assert.equal(result.permission?.source, 'rule');
  });

  it("resolves a hidden alias to its tool and applies the tool's rules", async () => {
    const h = await host({ config: { permissions: { deny: ['test_unknown'] } } });
    const result = await h.dispatch({ name: 'test_unknown_legacy', arguments: {} });
    assert.equal(result.toolName, 'test_unknown');
    assert.equal(result.error?.code, 'APPROVAL_DENIED');
  });
});
