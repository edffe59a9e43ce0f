// What a small call that needs none of wave 2's machinery no longer pays for (issue 25: pipeline
// overhead): no AsyncLocalStorage scope without hooks, no AbortSignal for a handler that never reads
// it. Behaviour is kept: with hooks the scope is there, and a signal read late has already fired.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { defineTool, type ToolCallContext, textResult } from '@toolhost/contracts';
import { executionScope } from '../src/call-interceptors.js';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { auditSink, deferred, tempRoot } from './helpers.js';

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];

async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, config: false, ...options });
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

/** A read tool that hands its context (and the execution scope it ran in) to the test. */
function probe(
  seen: (context: ToolCallContext, scoped: boolean) => Promise<void> | void,
  timeoutMs = 10_000,
) {
  return defineTool<Record<string, never>>({
    name: 'test_probe',
    source: 'dynamic',
    group: 'read_only_builtins',
    category: 'read',
    annotations: { readOnly: true, destructive: false, openWorld: false, idempotent: true },
    execution: { mode: 'parallel', timeoutMs, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: {
      name: 'test_probe',
      description: 'Reports its context (test).',
      inputSchema: { type: 'object', properties: {} },
    },
    execute: async (_args, context) => {
      await seen(context, executionScope.getStore() !== undefined);
      return textResult('ok');
    },
  });
}

describe('pipeline overhead (issue 25)', () => {
  it('a call on a host without hooks runs its handler outside AsyncLocalStorage; with hooks it has its scope', async () => {
    const scoped: boolean[] = [];
    const plain = await host({ tools: [probe((_context, inScope) => void scoped.push(inScope))] });
    const first = await plain.dispatch({ id: 'a', name: 'test_probe', arguments: {} });
    assert.equal(first.status, 'ok');
    assert.deepEqual(scoped, [false], 'no hooks configured: no execution scope');

    const hooked = await host({
      tools: [probe((_context, inScope) => void scoped.push(inScope))],
      config: {
        hooks: {
          PostToolUse: [{ matcher: 'nothing_matches_this', hooks: [{ type: 'command', command: 'true' }] }],
        },
      },
    });
    const second = await hooked.dispatch({ id: 'b', name: 'test_probe', arguments: {} });
    assert.equal(second.status, 'ok');
    assert.deepEqual(scoped, [false, true], 'with hooks the seam finds the call scope');
  });

  it('a handler gets its abort signal on first read, and one read after a timeout has already fired', async () => {
    const lazy: boolean[] = [];
    const quick = await host({
      tools: [
        probe(
          (context) => void lazy.push(Object.getOwnPropertyDescriptor(context, 'signal')?.get !== undefined),
        ),
      ],
    });
    assert.equal((await quick.dispatch({ id: 'a', name: 'test_probe', arguments: {} })).status, 'ok');
    assert.deepEqual(lazy, [true], 'the signal is made when read, not for every call');

    const readLate = deferred<{ aborted: boolean; code: unknown }>();
    const release = deferred();
    const slow = await host({
      tools: [
        probe(async (context) => {
          await release.promise;
          const { signal } = context;
          readLate.resolve({ aborted: signal.aborted, code: (signal.reason as { code?: unknown })?.code });
        }, 100),
      ],
    });
    const result = await slow.dispatch({ id: 'b', name: 'test_probe', arguments: {} });
    assert.equal(result.status, 'error');
    assert.equal(result.error?.code, 'TIMEOUT');
    release.resolve();
    assert.deepEqual(await readLate.promise, { aborted: true, code: 'TIMEOUT' });
  });

  it("a result that fits is not counted up front, yet the audit reports the exact bytes of every result, read_file's counted from its read", async () => {
    const sink = auditSink();
    const text = `${'→'.repeat(50)} é 😀`;
    const echo = defineTool<Record<string, never>>({
      name: 'test_echo_text',
      source: 'dynamic',
      group: 'read_only_builtins',
      category: 'read',
      annotations: { readOnly: true, destructive: false, openWorld: false, idempotent: true },
      execution: { mode: 'parallel', timeoutMs: 10_000, abortable: true },
      pathAccess: 'none',
      visibility: 'listed',
      modelTool: {
        name: 'test_echo_text',
        description: 'Returns a text (test).',
        inputSchema: { type: 'object', properties: {} },
      },
      execute: async () => textResult(text),
    });
    const lines = Array.from({ length: 400 }, (_, index) => `line ${index + 1} ${'é'.repeat(30)} →`);
    writeFileSync(join(root.dir, 'wide.txt'), `${lines.join('\n')}\n`);
    const h = await host({ tools: [echo], onAudit: sink.onAudit });
    const small = await h.dispatch({ id: 'e1', name: 'test_echo_text', arguments: {} });
    assert.equal(small.output, text);
    const read = await h.dispatch({ id: 'r1', name: 'read_file', arguments: { path: 'wide.txt' } });
    assert.equal(read.status, 'ok');
    assert.equal(read.truncated, false);
    const partial = await h.dispatch({
      id: 'r2',
      name: 'read_file',
      arguments: { path: 'wide.txt', offset: 10, limit: 7 },
    });
    const finished = (callId: string) =>
      sink.events.find((event) => event.callId === callId && event.type === 'call-finished') as
        | { outputBytes?: number; truncated?: boolean }
        | undefined;
    assert.equal(finished('e1')?.outputBytes, Buffer.byteLength(text));
    assert.equal(finished('r1')?.outputBytes, Buffer.byteLength(read.output));
    assert.equal(finished('r2')?.outputBytes, Buffer.byteLength(partial.output));
    assert.ok(Buffer.byteLength(read.output) > read.output.length * 1.5, 'the file is mostly multi-byte');
  });

  it('a handler can poll `stopped` without an AbortSignal; a call stopped by its own signal or by a timeout reads true', async () => {
    const seen: { before: boolean; after: boolean }[] = [];
    const release = deferred();
    const polling = probe(async (context) => {
      const before = context.stopped === true;
      await release.promise;
      seen.push({ before, after: context.stopped === true });
    }, 200);
    const h = await host({ tools: [polling] });
    const timedOut = await h.dispatch({ id: 't', name: 'test_probe', arguments: {} });
    assert.equal(timedOut.error?.code, 'TIMEOUT');
    release.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen.shift(), { before: false, after: true });

    // Cancelled by the dispatch's own signal (what serve passes for every request).
    const hold = deferred();
    const again = deferred();
    const cancelled = probe(async (context) => {
      again.resolve();
      await hold.promise;
      seen.push({ before: false, after: context.stopped === true });
    });
    const c = await host({ tools: [cancelled] });
    const controller = new AbortController();
    const pending = c.dispatch({ id: 'c', name: 'test_probe', arguments: {} }, { signal: controller.signal });
    await again.promise;
    controller.abort();
    const result = await pending;
    assert.equal(result.error?.code, 'ABORTED');
    hold.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen.shift(), { before: false, after: true });
  });
});
