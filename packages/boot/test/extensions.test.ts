import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  createHost,
  type ExtensionCall,
  type Host,
  type HostExtension,
  type HostOptions,
} from '../src/index.js';
import { auditSink, parallelReader, sequentialWriter, type ToolLog, tempRoot, toolLog } from './helpers.js';

let root: { dir: string; cleanup: () => void };
let outside: { dir: string; cleanup: () => void };
let log: ToolLog;
const hosts: Host[] = [];

async function host(extensions: HostExtension[], options: HostOptions = {}): Promise<Host> {
  const created = await createHost({
    root: root.dir,
    config: false,
    sandbox: 'workspace_write',
    tools: [parallelReader(log), sequentialWriter(root.dir, log)],
    extensions,
    ...options,
  });
  hosts.push(created);
  return created;
}

beforeEach(() => {
  root = tempRoot();
  outside = tempRoot('toolhost-ext-outside-');
  log = toolLog();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
  outside.cleanup();
});

describe('createHost({ extensions })', () => {
  it('lets an extension observe a frozen copy of the validated call and deny it before permission (HOOK_BLOCKED)', async () => {
    const seen: ExtensionCall[] = [];
    const sink = auditSink();
    const h = await host(
      [
        {
          name: 'policy',
          beforeCall(call) {
            seen.push(call);
            assert.throws(() => {
              (call.arguments as Record<string, unknown>).path = 'elsewhere';
            }, TypeError);
            return call.toolName === 'test_write'
              ? { action: 'deny', reason: 'writes go through review in this repository' }
              : undefined;
          },
        },
      ],
      { onAudit: sink.onAudit },
    );
    const denied = await h.dispatch({
      id: 'w',
      name: 'test_write',
      arguments: { path: 'a.txt', content: 'x' },
    });
    assert.equal(denied.error?.code, 'HOOK_BLOCKED', denied.output);
    assert.match(denied.output, /writes go through review in this repository/);
    assert.ok(!existsSync(join(root.dir, 'a.txt')));
    assert.deepEqual(log.entries, []);
    // Extensions run before permission: no permission decision was made for the denied call.
    assert.ok(!sink.types('w').includes('permission-decided'));
    assert.equal(seen[0]?.calledName, 'test_write');
    assert.equal(seen[0]?.sessionId, h.defaultSession().id);
    const read = await h.dispatch({ name: 'test_read', arguments: { path: 'b.txt' } });
    assert.equal(read.status, 'ok', read.output);
    assert.ok(sink.events.some((event) => event.type === 'extension-decided' && event.decision === 'deny'));
  });

  it('sends a replacement back through resolve, validate and permission', async () => {
    writeFileSync(join(outside.dir, 'x.txt'), 'outside\n');
    writeFileSync(join(root.dir, 'in.txt'), 'inside\n');
    let mode: 'invalid' | 'outside' | 'other-tool' = 'invalid';
    const h = await host([
      {
        name: 'rewriter',
        beforeCall(call) {
          if (call.toolName !== 'read_file') return undefined;
          if (mode === 'invalid') return { action: 'replace', arguments: { path: 7 } };
          if (mode === 'outside')
            return { action: 'replace', arguments: { path: join(outside.dir, 'x.txt') } };
          return { action: 'replace', name: 'test_read', arguments: { path: 'replaced.txt' } };
        },
      },
    ]);
    const read = { name: 'read_file', arguments: { path: 'in.txt' } };
    assert.equal((await h.dispatch(read)).error?.code, 'ARGUMENT_VALIDATION');
    mode = 'outside';
    assert.equal((await h.dispatch(read)).error?.code, 'PATH_OUTSIDE_ROOT');
    mode = 'other-tool';
    const other = await h.dispatch(read);
    assert.equal(other.status, 'ok', other.output);
    assert.equal(other.toolName, 'test_read');
    assert.equal(other.name, 'read_file', 'the name as the model called it');
    assert.deepEqual(log.entries, ['read:start:replaced.txt', 'read:end:replaced.txt']);
  });

  it('refuses a replacement loop, and a read replaced by a writer beside other reads', async () => {
    const loop = await host([
      {
        name: 'looper',
        beforeCall: (call) => ({ action: 'replace', arguments: { path: `${call.arguments.path}x` } }),
      },
    ]);
    const looped = await loop.dispatch({ name: 'test_read', arguments: { path: 'a' } });
    assert.equal(looped.error?.code, 'HOOK_BLOCKED', looped.output);
    assert.match(looped.output, /replaced more than 4 times/);
    assert.deepEqual(log.entries, []);
    const writer = await host([
      {
        name: 'to-writer',
        beforeCall: (call) =>
          call.toolName === 'test_read' && call.arguments.path === 'b'
            ? { action: 'replace', name: 'test_write', arguments: { path: 'w.txt' } }
            : undefined,
      },
    ]);
    const batch = await writer.dispatchBatch([
      { name: 'test_read', arguments: { path: 'a' } },
      { name: 'test_read', arguments: { path: 'b' } },
    ]);
    assert.equal(batch.results[0]?.status, 'ok');
    assert.equal(batch.results[1]?.error?.code, 'HOOK_BLOCKED');
    assert.ok(!existsSync(join(root.dir, 'w.txt')));
  });

  it('adds context after the result, fails closed when it throws, and can stop the turn', async () => {
    const h = await host([
      {
        name: 'notes',
        afterCall: (call) =>
          call.response.status === 'ok' ? { additionalContext: `checked ${call.toolName}` } : undefined,
      },
    ]);
    const read = await h.dispatch({ name: 'test_read', arguments: { path: 'a' } });
    assert.match(read.output, /^read a\n\n\[extension notes\] checked test_read$/);
    const broken = await host([
      {
        name: 'broken',
        beforeCall: () => {
          throw new Error('bug');
        },
      },
    ]);
    const failed = await broken.dispatch({ name: 'test_read', arguments: { path: 'a' } });
    assert.equal(failed.error?.code, 'HOOK_BLOCKED');
    assert.match(failed.output, /"broken" failed \(threw\)/);
    const stopper = await host([
      {
        name: 'stopper',
        beforeCall: (call) =>
          call.arguments.path === 'first.txt' ? { action: 'stop', reason: 'the budget is spent' } : undefined,
      },
    ]);
    const turn = await stopper.dispatchBatch([
      { name: 'test_write', arguments: { path: 'first.txt' } },
      { name: 'test_write', arguments: { path: 'second.txt' } },
    ]);
    assert.deepEqual(turn.stop, { reason: 'the budget is spent', by: 'extension:stopper' });
    assert.equal(turn.results[0]?.error?.code, 'HOOK_BLOCKED');
    assert.equal(turn.results[1]?.error?.code, 'HOOK_BLOCKED');
    assert.match(turn.results[1]?.output ?? '', /an earlier call of this turn was stopped/);
    assert.ok(!existsSync(join(root.dir, 'second.txt')), 'later calls of the turn did not run');
  });

  it('asks a person when an extension asks, after the permission step allowed the call', async () => {
    const asked: string[] = [];
    const h = await host(
      [{ name: 'careful', beforeCall: () => ({ action: 'ask', reason: 'a second pair of eyes' }) }],
      {
        approve: (request) => {
          asked.push(`${request.decisionSource}:${request.reason}`);
          return false;
        },
      },
    );
    const result = await h.dispatch({ name: 'test_read', arguments: { path: 'a' } });
    assert.equal(result.error?.code, 'APPROVAL_DENIED');
    assert.deepEqual(asked, ['extension:a second pair of eyes']);
    assert.deepEqual(log.entries, []);
  });

  it('refuses a malformed extension at createHost (CONFIG_INVALID)', async () => {
    await assert.rejects(
      createHost({ root: root.dir, config: false, extensions: [{ name: '' } as HostExtension] }),
      /CONFIG_INVALID|extensions\[0\]/,
    );
  });
});
