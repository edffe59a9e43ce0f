import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  type ApprovalRequest,
  createHost,
  type Host,
  type HostOptions,
  MAX_MODEL_RESULT_BYTES,
} from '../src/index.js';
import {
  auditSink,
  bigOutput,
  deferred,
  failing,
  parallelReader,
  sequentialWriter,
  slowAbortable,
  stubbornWriter,
  type ToolLog,
  tempRoot,
  thrower,
  toolLog,
  uncompilable,
} from './helpers.js';

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

describe('Host.dispatch', () => {
  it('refuses a write tool in read_only with PERMISSION_DENIED before anything is touched', async () => {
    const sink = auditSink();
    const h = await host({ tools: [sequentialWriter(root.dir, log)], onAudit: sink.onAudit });
    const result = await h.dispatch({
      id: 'w1',
      name: 'test_write',
      arguments: { path: 'a.txt', content: 'x' },
    });
    assert.equal(result.status, 'error');
    assert.equal(result.error?.code, 'PERMISSION_DENIED');
    assert.match(
      result.output,
      /^PERMISSION_DENIED: "test_write" can modify files or state, which this run does not allow \(sandbox read_only\)/,
    );
    assert.equal(existsSync(join(root.dir, 'a.txt')), false);
    assert.deepEqual(log.entries, []);
    // BT-DISP-6: no call-started event; the decision is on record with its source.
    assert.deepEqual(sink.types('w1'), [
      'call-received',
      'call-resolved',
      'call-validated',
      'permission-decided',
      'call-finished',
    ]);
    const decided = sink.events.find((event) => event.type === 'permission-decided');
    assert.equal(decided?.source, 'sandbox');
    assert.equal(decided?.decision, 'deny');
  });

  it('refuses the real write tools in read_only by name, alias-free proxy id or use_capability, on every surface', async () => {
    writeFileSync(join(root.dir, 'keep.txt'), 'keep\n');
    for (const surface of ['lean', 'full'] as const) {
      const h = await host({ surface });
      await h.dispatch({ name: 'read_file', arguments: { path: 'keep.txt' } });
      const calls = [
        { name: 'write_file', arguments: { path: 'keep.txt', content: 'changed' } },
        { name: 'edit_file', arguments: { path: 'keep.txt', old_string: 'keep', new_string: 'x' } },
        {
          name: 'tool:multi_edit',
          arguments: { path: 'keep.txt', edits: [{ old_string: 'keep', new_string: 'x' }] },
        },
        {
          name: 'use_capability',
          arguments: {
            action: 'call',
            capability_id: 'tool:move_file',
            arguments: { source: 'keep.txt', destination: 'moved.txt' },
          },
        },
        { name: 'delete_range', arguments: { path: 'keep.txt', start_anchor: 'keep', end_anchor: 'keep' } },
      ];
      for (const call of calls) {
        const result = await h.dispatch(call);
        assert.equal(result.error?.code, 'PERMISSION_DENIED', `${surface} ${call.name}: ${result.output}`);
        assert.match(result.output, /sandbox read_only/);
      }
      assert.equal(readFileSync(join(root.dir, 'keep.txt'), 'utf8'), 'keep\n');
      assert.equal(existsSync(join(root.dir, 'moved.txt')), false);
    }
  });

  it('refuses the same write in read_only even when the path is outside the root (sandbox first)', async () => {
    const h = await host({ tools: [sequentialWriter(root.dir, log)] });
    const result = await h.dispatch({ name: 'test_write', arguments: { path: '../outside.txt' } });
    assert.equal(result.error?.code, 'PERMISSION_DENIED');
  });

  it('runs an allowed write and reports the decision source', async () => {
    const h = await host({ sandbox: 'workspace_write', tools: [sequentialWriter(root.dir, log)] });
    const result = await h.dispatch({
      id: 'w2',
      name: 'test_write',
      arguments: '{"path":"b.txt","content":"hi"}',
    });
    assert.equal(result.status, 'ok', result.output);
    assert.equal(result.output, 'wrote b.txt');
    assert.equal(readFileSync(join(root.dir, 'b.txt'), 'utf8'), 'hi');
    assert.equal(result.permission?.source, 'policy');
    assert.deepEqual(result.error, null);
    assert.equal(result.resultRef, null);
  });

  it('denies a path outside the root at the permission step, also under approval never (BT-PERM-2)', async () => {
    const sink = auditSink();
    const h = await host({ approval: 'never', tools: [parallelReader(log)], onAudit: sink.onAudit });
    const result = await h.dispatch({ id: 'r1', name: 'test_read', arguments: { path: '../etc/passwd' } });
    assert.equal(result.error?.code, 'PATH_OUTSIDE_ROOT');
    assert.deepEqual(log.entries, []);
    assert.ok(!sink.types('r1').includes('call-started'));
    assert.equal(sink.events.find((event) => event.type === 'permission-decided')?.source, 'path_policy');
  });

  it('refuses secret and protected paths through the path policy', async () => {
    writeFileSync(join(root.dir, '.env'), 'TOKEN=1');
    const h = await host({
      sandbox: 'workspace_write',
      tools: [parallelReader(log), sequentialWriter(root.dir, log)],
    });
    const secret = await h.dispatch({ name: 'test_read', arguments: { path: '.env' } });
    assert.equal(secret.error?.code, 'PATH_PROTECTED');
    const state = await h.dispatch({ name: 'test_write', arguments: { path: '.toolhost/x' } });
    assert.equal(state.error?.code, 'PATH_PROTECTED');
    assert.deepEqual(log.entries, []);
  });

  it('answers an unknown name with TOOL_NOT_FOUND and close names (BT-DISP-1)', async () => {
    const h = await host({ tools: [parallelReader(log)] });
    const result = await h.dispatch({ name: 'test_raed', arguments: {} });
    assert.equal(result.error?.code, 'TOOL_NOT_FOUND');
    assert.equal(result.toolName, null);
    assert.match(result.output, /no tool is named "test_raed"; close names: test_read/);
  });

  it('validates before permission: invalid arguments never reach the approval callback (BT-DISP-2)', async () => {
    const asked: ApprovalRequest[] = [];
    const h = await host({
      tools: [uncompilable('mcp', log), failing('needs_ok', 'EXECUTION_ERROR', () => 'x')],
      approve: (request) => {
        asked.push(request);
        return true;
      },
    });
    const result = await h.dispatch({ name: 'needs_ok', arguments: { n: 'not a number' } });
    assert.equal(result.error?.code, 'ARGUMENT_VALIDATION');
    assert.match(
      result.output,
      /argument validation failed for "needs_ok" \(id argument_validation:needs_ok:[0-9a-f]{16}:type; schema fingerprint [0-9a-f]{16}; remote_dispatched=false\)/,
    );
    assert.ok(!result.output.includes('not a number'), 'value-free');
    assert.equal(asked.length, 0);
  });

  it('treats empty and null arguments as {} without coercion', async () => {
    const h = await host({ tools: [slowAbortable(log, { timeoutMs: 5000 }), thrower()] });
    for (const args of [undefined, null, '', 'null', '  ']) {
      const result = await h.dispatch({ name: 'test_throw', arguments: args });
      assert.equal(result.error?.code, 'EXECUTION_ERROR', String(args));
    }
  });

  it('runs an MCP tool with an uncompilable schema unvalidated and refuses a built-in one (BT-DISP-3)', async () => {
    const h = await host({
      approval: 'never',
      tools: [uncompilable('mcp', log), uncompilable('builtin', log)],
    });
    const mcp = await h.dispatch({ name: 'mcp__srv__weird', arguments: { a: 1 } });
    assert.equal(mcp.status, 'ok', mcp.output);
    const builtin = await h.dispatch({ name: 'test_broken', arguments: { a: 1 } });
    assert.equal(builtin.error?.code, 'HOST_CONFIGURATION');
    assert.deepEqual(log.entries, ['mcp__srv__weird:ran']);
  });

  it("fails closed when a tool's permission inputs throw, and reports a malformed result as EXECUTION_ERROR", async () => {
    const broken = {
      ...parallelReader(log),
      name: 'test_paths_throw',
      modelTool: { ...parallelReader(log).modelTool, name: 'test_paths_throw' },
      permission: {
        paths: () => {
          throw new Error('bug');
        },
      },
    };
    const malformed = {
      ...thrower(),
      name: 'test_malformed',
      modelTool: { ...thrower().modelTool, name: 'test_malformed' },
      execute: async () => ({ ok: true }) as never,
    };
    const hosted = {
      ...thrower(),
      name: 'test_hosted',
      source: 'hosted' as const,
      modelTool: { ...thrower().modelTool, name: 'test_hosted' },
    };
    const h = await host({ tools: [broken, malformed, hosted] });
    const paths = await h.dispatch({ name: 'test_paths_throw', arguments: { path: 'x' } });
    assert.equal(paths.error?.code, 'HOST_CONFIGURATION');
    assert.deepEqual(log.entries, []);
    const bad = await h.dispatch({ name: 'test_malformed' });
    assert.equal(bad.error?.code, 'EXECUTION_ERROR');
    assert.match(bad.output, /returned a malformed result/);
    const provider = await h.dispatch({ name: 'test_hosted' });
    assert.equal(provider.error?.code, 'TOOL_NOT_FOUND');
    assert.match(provider.output, /executed by the model provider/);
  });

  it('turns a thrown error into EXECUTION_ERROR and keeps going', async () => {
    const h = await host({ tools: [thrower(), parallelReader(log)] });
    const batch = await h.dispatchBatch([
      { id: 'a', name: 'test_throw' },
      { id: 'b', name: 'test_read', arguments: { path: 'x' } },
    ]);
    assert.equal(batch.results[0]?.error?.code, 'EXECUTION_ERROR');
    assert.match(batch.results[0]?.output ?? '', /^EXECUTION_ERROR: boom; /);
    assert.equal(batch.results[1]?.status, 'ok');
  });

  it('signals an abortable tool on timeout and reports TIMEOUT with its partial output (BT-DISP-4)', async () => {
    const h = await host({ tools: [slowAbortable(log)] });
    const result = await h.dispatch({ name: 'test_slow' });
    assert.equal(result.error?.code, 'TIMEOUT');
    assert.deepEqual(log.entries, ['slow:start', 'slow:signalled']);
    assert.match(
      result.output,
      /^TIMEOUT: "test_slow" did not finish within its 150 ms limit and was stopped/,
    );
    assert.match(result.output, /partial output before the stop/);
  });

  it('ends the call of an abortable tool that ignores its signal without waiting for it', async () => {
    const h = await host({ tools: [slowAbortable(log, { ignoreSignal: true })] });
    const result = await h.dispatch({ name: 'test_stuck' });
    assert.equal(result.error?.code, 'TIMEOUT');
  });

  it('awaits a non-abortable writer before reporting TIMEOUT, so the write never lands after the report (BT-DISP-4)', async () => {
    const h = await host({ sandbox: 'workspace_write', tools: [stubbornWriter(root.dir, log)] });
    const result = await h.dispatch({
      name: 'test_stubborn',
      arguments: { path: 'late.txt', content: 'landed' },
    });
    // At the moment of the report the write has already happened; nothing changes afterwards.
    assert.equal(readFileSync(join(root.dir, 'late.txt'), 'utf8'), 'landed');
    assert.deepEqual(log.entries, ['stubborn:start', 'stubborn:signalled', 'stubborn:wrote']);
    assert.equal(result.error?.code, 'TIMEOUT');
    assert.match(
      result.output,
      /cannot be interrupted, so the host waited for it: it completed after the limit/,
    );
    assert.match(result.output, /wrote late\.txt/);
  });

  it('cancels a running call through the dispatch signal with ABORTED', async () => {
    const h = await host({ tools: [slowAbortable(log, { timeoutMs: 60_000 })] });
    const controller = new AbortController();
    const pending = h.dispatch({ name: 'test_slow' }, { signal: controller.signal });
    while (!log.entries.includes('slow:start')) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const result = await pending;
    assert.equal(result.error?.code, 'ABORTED');
  });

  it('truncates a large result to 32 KiB, stores the whole body and pages it back with the marker recipe (BT-SHAPE-2)', async () => {
    const h = await host({ tools: [bigOutput(100_000, 'shell')] });
    const result = await h.dispatch({ id: 'big1', name: 'test_big' });
    assert.equal(result.status, 'ok');
    assert.equal(result.truncated, true);
    assert.ok(Buffer.byteLength(result.output) <= MAX_MODEL_RESULT_BYTES);
    assert.match(result.resultRef ?? '', /^tr-[0-9a-f]{24}$/);
    assert.ok(
      result.output.includes(
        `[output truncated by the host: tool=test_big call_id=big1 result_ref=${result.resultRef}`,
      ),
    );
    const recipe =
      /use_capability\(action="call", capability_id="session:tool_result", arguments=(\{[^}]*\})\)/.exec(
        result.output,
      );
    assert.ok(recipe, 'the marker carries the exact recipe');
    // Follow the recipe from offset 0 through the host, as the model would, and rebuild the body.
    let offset = 0;
    let body = '';
    for (let page = 0; page < 20; page++) {
      const args = { ...JSON.parse(recipe[1] as string), offset };
      const read = await h.dispatch({
        id: `page${page}`,
        name: 'use_capability',
        arguments: { action: 'call', capability_id: 'session:tool_result', arguments: args },
      });
      assert.equal(read.status, 'ok', read.output);
      const newline = read.output.indexOf('\n');
      const header = JSON.parse(read.output.slice(0, newline));
      body += read.output.slice(newline + 1);
      offset = header.next_offset;
      if (header.complete) break;
    }
    const line = `${'b'.repeat(99)}\n`;
    assert.equal(body, line.repeat(1000));
  });

  it('reaches a tool off the surface as tool:<name> through the proxy, with capability guidance on bad arguments', async () => {
    const h = await host({ tools: [parallelReader(log)] });
    const ok = await h.dispatch({ name: 'tool:test_read', arguments: { path: 'x' } });
    assert.equal(ok.status, 'ok', ok.output);
    assert.equal(ok.output, 'read x');
    // One way through: the pipeline resolves tool:<name> to the tool itself.
    assert.equal(ok.toolName, 'test_read');
    const bad = await h.dispatch({ name: 'tool:test_read', arguments: {} });
    assert.equal(bad.error?.code, 'ARGUMENT_VALIDATION');
    assert.match(bad.output, /inside `arguments` of the use_capability call/);
    const asText = await h.dispatch({ name: 'tool:test_read', arguments: '{"path":"y"}' });
    assert.equal(asText.output, 'read y');
    const notJson = await h.dispatch({ name: 'tool:test_read', arguments: '{"path":' });
    assert.equal(notJson.error?.code, 'ARGUMENT_VALIDATION');
    assert.match(notJson.output, /argument validation failed for "tool:test_read"[^\n]*\n- \/: json;/);
    const proxied = await h.dispatch({
      name: 'use_capability',
      arguments: { action: 'call', capability_id: 'tool:test_read', arguments: { path: '../x' } },
    });
    assert.equal(proxied.error?.code, 'PATH_OUTSIDE_ROOT', 'the target meets the normal permission step');
  });
});

describe('Host.dispatchBatch', () => {
  it('runs contiguous read-only calls concurrently, at most 8, and keeps the model order (BT-DISP-5)', async () => {
    const gate = deferred();
    const h = await host({ tools: [parallelReader(log, gate.promise)] });
    const calls = Array.from({ length: 10 }, (_, index) => ({
      id: `r${index}`,
      name: 'test_read',
      arguments: { path: `f${index}` },
    }));
    const pending = h.dispatchBatch(calls);
    while (log.running < 8) await new Promise((resolve) => setImmediate(resolve));
    // Give the scheduler every chance to start a ninth call before the gate opens.
    for (let spin = 0; spin < 20; spin++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(log.running, 8);
    gate.resolve();
    const batch = await pending;
    assert.equal(log.maxRunning, 8);
    assert.deepEqual(
      batch.results.map((result) => result.id),
      calls.map((call) => call.id),
    );
    assert.ok(batch.results.every((result) => result.status === 'ok'));
  });

  it('runs a writer alone and in order between readers', async () => {
    const h = await host({
      sandbox: 'workspace_write',
      tools: [parallelReader(log), sequentialWriter(root.dir, log)],
    });
    const batch = await h.dispatchBatch([
      { id: '1', name: 'test_read', arguments: { path: 'a' } },
      { id: '2', name: 'test_read', arguments: { path: 'b' } },
      { id: '3', name: 'test_write', arguments: { path: 'c', content: '' } },
      { id: '4', name: 'test_read', arguments: { path: 'd' } },
    ]);
    const writeStart = log.entries.indexOf('write:start:c');
    const writeEnd = log.entries.indexOf('write:end:c');
    assert.equal(writeEnd, writeStart + 1, 'nothing ran beside the writer');
    assert.ok(
      log.entries.indexOf('read:end:a') < writeStart && log.entries.indexOf('read:end:b') < writeStart,
    );
    assert.ok(log.entries.indexOf('read:start:d') > writeEnd);
    assert.deepEqual(
      batch.results.map((result) => result.id),
      ['1', '2', '3', '4'],
    );
  });

  it('never skips later independent calls after a failure', async () => {
    const h = await host({
      sandbox: 'workspace_write',
      tools: [parallelReader(log), sequentialWriter(root.dir, log)],
    });
    const batch = await h.dispatchBatch([
      { id: '1', name: 'test_write', arguments: { path: '../escape' } },
      { id: '2', name: 'no_such_tool' },
      { id: '3', name: 'test_write', arguments: { path: 'ok.txt', content: 'fine' } },
      { id: '4', name: 'test_read', arguments: { path: 'missing-file' } },
      { id: '5', name: 'test_read', arguments: { path: 'present' } },
    ]);
    assert.deepEqual(
      batch.results.map((result) => result.error?.code ?? 'ok'),
      ['PATH_OUTSIDE_ROOT', 'TOOL_NOT_FOUND', 'ok', 'FS_NOT_FOUND', 'ok'],
    );
    assert.equal(readFileSync(join(root.dir, 'ok.txt'), 'utf8'), 'fine');
  });

  it('gives the storm breaker one round per batch and puts its notice on the batch (BT-STORM-5)', async () => {
    let n = 0;
    const h = await host({
      tools: [failing('test_fail', 'COMMAND_FAILED', () => `build ${++n}: exit status 2`)],
    });
    const turn = () =>
      h.dispatchBatch([
        { name: 'test_fail', arguments: { n: 1 } },
        { name: 'test_fail', arguments: { n: 2 } },
      ]);
    assert.equal((await turn()).notice, undefined);
    assert.equal((await turn()).notice, undefined);
    const third = await turn();
    assert.match(
      third.notice ?? '',
      /^\[loop guard\] this batch of 2 tool calls has now failed 3 times in a row/,
    );
    assert.match(third.notice ?? '', /COMMAND_FAILED: build 5: exit status 2/);
    // Earlier results are untouched: the notice is separate.
    assert.ok(third.results.every((result) => !result.output.includes('[loop guard]')));
  });

  it('shares one breaker between direct calls and use_capability (BT-STORM-6)', async () => {
    const h = await host({ tools: [parallelReader(log)] });
    const badCapability = () =>
      h.dispatch({
        name: 'use_capability',
        arguments: { action: 'call', capability_id: 'tool:no_such_tool' },
      });
    assert.equal((await badCapability()).error?.code, 'CAPABILITY_RESOLUTION_FAILED');
    assert.equal((await badCapability()).notice, undefined);
    const third = await badCapability();
    assert.match(third.notice ?? '', /^\[loop guard\] "use_capability" has now failed 3 times/);
    // A successful proxy call resets the shared streak.
    const ok = await h.dispatch({ name: 'tool:test_read', arguments: { path: 'x' } });
    assert.equal(ok.status, 'ok');
    assert.equal((await badCapability()).notice, undefined);
    assert.equal((await badCapability()).notice, undefined);
    assert.ok((await badCapability()).notice);
  });

  it('counts a single dispatch as a batch of one and attaches the notice to its result', async () => {
    const h = await host({ tools: [parallelReader(log)] });
    const call = () => h.dispatch({ name: 'test_read', arguments: { path: 'missing-x' } });
    await call();
    await call();
    const third = await call();
    assert.match(third.notice ?? '', /^\[loop guard\] "test_read" has now failed 3 times/);
    const ok = await h.dispatch({ name: 'test_read', arguments: { path: 'fine' } });
    assert.equal(ok.notice, undefined);
    assert.equal((await call()).notice, undefined, 'a success reset the streak');
  });
});

describe('Host.dispatch (repeated calls)', () => {
  it('repeated identical read_file calls: the fourth gets a notice, with arguments compared up to key order', async () => {
    const dir = tempRoot();
    try {
      writeFileSync(join(dir.dir, 'a.txt'), 'one\n');
      const h = await createHost({ root: dir.dir, config: false });
      try {
        const results = [];
        for (let round = 0; round < 4; round++) {
          results.push(
            await h.dispatch({
              name: 'read_file',
              arguments: round % 2 === 0 ? { path: 'a.txt', offset: 1 } : { offset: 1, path: 'a.txt' },
            }),
          );
        }
        assert.deepEqual(
          results.map((result) => result.notice === undefined),
          [true, true, true, false],
        );
        assert.match(results[3]?.notice ?? '', /same arguments and returned the same output/);
      } finally {
        await h.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});

describe('Host.dispatch (client-injected keys)', () => {
  it('wait_for_previous from Gemini CLI: ignored and audited when a tool does not declare it; any other unknown key still fails', async () => {
    const dir = tempRoot();
    const sink = auditSink();
    try {
      writeFileSync(join(dir.dir, 'a.txt'), 'one\n');
      const h = await createHost({ root: dir.dir, config: false, onAudit: sink.onAudit });
      try {
        const read = await h.dispatch({
          id: 'w1',
          name: 'read_file',
          arguments: { path: 'a.txt', wait_for_previous: true },
        });
        assert.equal(read.status, 'ok', read.output);
        const asText = await h.dispatch({
          name: 'read_file',
          arguments: '{"path":"a.txt","wait_for_previous":false}',
        });
        assert.equal(asText.status, 'ok', asText.output);
        const envelope = await h.dispatch({
          name: 'use_capability',
          arguments: { action: 'list', wait_for_previous: true },
        });
        assert.equal(envelope.status, 'ok', envelope.output);
        const other = await h.dispatch({
          name: 'read_file',
          arguments: { path: 'a.txt', wait_for_later: true },
        });
        assert.equal(other.error?.code, 'ARGUMENT_VALIDATION');
        const validated = sink.events.find(
          (event) => event.type === 'call-validated' && event.callId === 'w1',
        );
        assert.deepEqual(validated?.ignoredKeys, ['wait_for_previous']);
        assert.ok(
          !JSON.stringify(h.modelTools()).includes('wait_for_previous'),
          'the schemas sent out are unchanged',
        );
      } finally {
        await h.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});
