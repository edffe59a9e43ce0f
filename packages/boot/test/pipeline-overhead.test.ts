// What a small call that needs none of wave 2's machinery no longer pays for (issue 25: pipeline
// overhead): no AsyncLocalStorage scope without hooks, no AbortSignal for a handler that never reads
// it. Behaviour is kept: with hooks the scope is there, and a signal read late has already fired.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { defineTool, type ToolCallContext, textResult } from '@toolhost/contracts';
import { executionScope } from '../src/call-interceptors.js';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { deferred, tempRoot } from './helpers.js';

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
});
