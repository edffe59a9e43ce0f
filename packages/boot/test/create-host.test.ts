import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { auditSink, stubbornWriter, type ToolLog, tempRoot, toolLog } from './helpers.js';

let root: { dir: string; cleanup: () => void };
let log: ToolLog;
const hosts: Host[] = [];
async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, config: false, ...options });
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

async function rejectsWith(options: HostOptions, pattern: RegExp): Promise<void> {
  await assert.rejects(
    createHost({ root: root.dir, ...options }),
    (error: { code?: string; message?: string }) => {
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.match(error.message ?? '', pattern);
      return true;
    },
  );
}

describe('createHost', () => {
  it('applies the defaults: read_only, on_request, lean, detected platform, <root>/.toolhost', async () => {
    const h = await host();
    assert.equal(h.sandbox, 'read_only');
    assert.equal(h.approval, 'on_request');
    assert.equal(h.surface, 'lean');
    assert.equal(h.platform, process.platform === 'win32' ? 'windows' : 'posix');
    assert.equal(h.stateDir, join(root.dir, '.toolhost'));
    assert.equal(h.root, root.dir);
  });

  it('reads <root>/toolhost.config.json and lets explicit options win over its defaults', async () => {
    writeFileSync(
      join(root.dir, 'toolhost.config.json'),
      JSON.stringify({ defaults: { sandbox: 'workspace_write', surface: 'full', approval: 'strict' } }),
    );
    // A project configuration widens the sandbox only once the user approved it (project-config-trust.test.ts).
    const h = await createHost({ root: root.dir, approval: 'never', projectConfigTrust: true });
    hosts.push(h);
    assert.equal(h.sandbox, 'workspace_write');
    assert.equal(h.surface, 'full');
    assert.equal(h.approval, 'never');
  });

  it('refuses bad options and configurations with CONFIG_INVALID naming the field', async () => {
    await rejectsWith(
      { config: false, sandbox: 'yolo' as never },
      /options: sandbox: expected one of read_only/,
    );
    await rejectsWith({ config: false, approval: 'sometimes' as never }, /options: approval/);
    await rejectsWith({ config: false, surface: 'huge' as never }, /options: surface/);
    await rejectsWith({ config: false, platform: 'beos' as never }, /options: platform/);
    await rejectsWith({ config: false, approvalTimeoutMs: 0 }, /options: approvalTimeoutMs/);
    await rejectsWith({ config: { permissions: { deny: ['mcp__x__*'] } } }, /permissions\.deny\[0\]/);
    await rejectsWith({ config: 'missing.json' }, /missing\.json: \(file\): cannot read/);
    await rejectsWith({ config: false, allowedRoots: ['does-not-exist'] }, /options: allowedRoots/);
    await assert.rejects(
      createHost({ root: join(root.dir, 'nope'), config: false }),
      /options: root: does not exist/,
    );
    writeFileSync(join(root.dir, 'toolhost.config.json'), '{"permisions":{}}');
    await rejectsWith({}, /toolhost\.config\.json: permisions: unknown field/);
  });

  it('refuses a registered tool name twice', async () => {
    await rejectsWith(
      { config: false, tools: [stubbornWriter(root.dir, log), stubbornWriter(root.dir, log)] },
      /options: tools: .*already registered/,
    );
  });

  it('writes one JSONL audit event per step when asked, value-free', async () => {
    writeFileSync(join(root.dir, 'a.txt'), 'secret-content-123\n');
    const h = await createHost({ root: root.dir, config: false, auditFile: true });
    await h.dispatch({ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } });
    await h.close();
    const lines = readFileSync(join(root.dir, '.toolhost', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n');
    const events = lines.map((line) => JSON.parse(line));
    assert.deepEqual(
      events.filter((event) => event.callId === 'r1').map((event) => event.type),
      [
        'call-received',
        'call-resolved',
        'call-validated',
        'permission-decided',
        'call-started',
        'call-finished',
      ],
    );
    assert.equal(events[0].type, 'host-created');
    assert.equal(events.at(-1).type, 'host-closed');
    assert.deepEqual(
      events.map((event) => event.seq),
      events.map((_, index) => index + 1),
    );
    assert.ok(!lines.join('\n').includes('secret-content-123'), 'no file contents in the audit log');
    const decided = events.find((event) => event.type === 'permission-decided');
    assert.equal(decided.source, 'annotation');
    // BT-PERM-5: the decision's request facts are on record.
    assert.equal(decided.toolSource, 'builtin');
    assert.equal(decided.group, 'read_only_builtins');
    assert.equal(decided.category, 'read');
    assert.equal(decided.pathAccess, 'current_project');
    assert.equal(decided.executionMode, 'parallel');
    assert.equal(decided.sandbox, 'read_only');
    assert.equal(decided.approval, 'on_request');
    assert.deepEqual(decided.paths, [
      { argument: 'path', path: join(root.dir, 'a.txt'), displayPath: 'a.txt', access: 'read' },
    ]);
  });

  it('waits in close() for a non-abortable call, so nothing lands after close resolved', async () => {
    const h = await host({ sandbox: 'workspace_write', tools: [stubbornWriter(root.dir, log)] });
    const pending = h.dispatch({ name: 'test_stubborn', arguments: { path: 'late.txt', content: 'landed' } });
    while (!log.entries.includes('stubborn:start')) await new Promise((resolve) => setImmediate(resolve));
    await h.close();
    assert.equal(readFileSync(join(root.dir, 'late.txt'), 'utf8'), 'landed');
    assert.equal((await pending).error?.code, 'ABORTED');
  });

  it('resumes from a snapshot without re-reading files, and finds stored results again', async () => {
    writeFileSync(join(root.dir, 'a.txt'), 'one\ntwo\n');
    writeFileSync(
      join(root.dir, 'big.txt'),
      Array.from({ length: 4000 }, (_, index) => `line ${index}`).join('\n'),
    );
    const first = await createHost({ root: root.dir, config: false, sandbox: 'workspace_write' });
    assert.equal(
      (await first.dispatch({ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } })).status,
      'ok',
    );
    const big = await first.dispatch({ id: 'r2', name: 'read_file', arguments: { path: 'big.txt' } });
    assert.ok(big.resultRef);
    const snapshot = JSON.parse(JSON.stringify(first.snapshot()));
    assert.equal(snapshot.format, 'toolhost-host-v1');
    assert.equal(snapshot.results.length, 1);
    await first.close();

    const sink = auditSink();
    const second = await host({ sandbox: 'workspace_write', restore: snapshot, onAudit: sink.onAudit });
    const edit = await second.dispatch({
      name: 'edit_file',
      arguments: { path: 'a.txt', old_string: 'two', new_string: 'TWO' },
    });
    assert.equal(edit.status, 'ok', edit.output);
    assert.equal(readFileSync(join(root.dir, 'a.txt'), 'utf8'), 'one\nTWO\n');
    const page = await second.dispatch({
      name: 'use_capability',
      arguments: {
        action: 'call',
        capability_id: 'session:tool_result',
        arguments: { tool_call_id: 'r2', result_ref: big.resultRef },
      },
    });
    assert.equal(page.status, 'ok', page.output);
    assert.ok(page.output.includes('line 0'));
    const restored = sink.events.find((event) => event.type === 'host-restored');
    assert.deepEqual(restored?.missingResults, []);
  });

  it('does not trust a restored observation of a file changed in between', async () => {
    writeFileSync(join(root.dir, 'a.txt'), 'one\ntwo\n');
    const first = await createHost({ root: root.dir, config: false, sandbox: 'workspace_write' });
    await first.dispatch({ name: 'read_file', arguments: { path: 'a.txt' } });
    const snapshot = first.snapshot();
    await first.close();
    writeFileSync(join(root.dir, 'a.txt'), 'one\nchanged\ntwo\n');
    const second = await host({ sandbox: 'workspace_write', restore: snapshot });
    const edit = await second.dispatch({
      name: 'edit_file',
      arguments: { path: 'a.txt', old_string: 'two', new_string: 'x' },
    });
    assert.equal(edit.error?.code, 'FS_STALE_VERSION');
  });

  it('cancels a call that had not started when the host closed', async () => {
    const h = await host({ sandbox: 'workspace_write', tools: [stubbornWriter(root.dir, log)] });
    const pending = h.dispatch({ name: 'test_stubborn', arguments: { path: 'never.txt' } });
    await h.close();
    const result = await pending;
    assert.equal(result.error?.code, 'ABORTED');
    assert.deepEqual(log.entries, []);
    const after = await h.dispatch({ name: 'test_stubborn', arguments: { path: 'never.txt' } });
    assert.equal(after.error?.code, 'ABORTED', 'a closed host runs nothing');
  });

  it('refuses a snapshot of another root', async () => {
    const first = await host();
    const snapshot = first.snapshot();
    mkdirSync(join(root.dir, 'other'));
    await assert.rejects(
      createHost({ root: join(root.dir, 'other'), config: false, restore: snapshot }),
      /options: restore: the snapshot was taken over another project root/,
    );
  });
});
