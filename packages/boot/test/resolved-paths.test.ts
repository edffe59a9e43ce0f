// The permission step's path resolution is handed to the handler (ToolCallContext.resolvedPaths), so
// a file call costs one realpath per path instead of two (issue 25), and the handler's pin keeps the
// race safety a second resolution used to give.
import assert from 'node:assert/strict';
import fs, { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { defineTool, type ResolvedToolPath, textResult } from '@toolhost/contracts';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { tempRoot } from './helpers.js';

let root: { dir: string; cleanup: () => void };
let outside: { dir: string; cleanup: () => void };
const hosts: Host[] = [];

async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, config: false, ...options });
  hosts.push(created);
  return created;
}

beforeEach(() => {
  root = tempRoot();
  outside = tempRoot('toolhost-boot-outside-');
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
  outside.cleanup();
});

/** Counts `realpathSync.native` calls on `path` while `run` runs (the path policy resolves with it). */
async function realpathCallsOn<T>(path: string, run: () => Promise<T>): Promise<{ calls: number; value: T }> {
  const original = fs.realpathSync.native;
  let calls = 0;
  const counting = ((target: fs.PathLike, options?: unknown) => {
    if (String(target) === path) calls += 1;
    return (original as (target: fs.PathLike, options?: unknown) => string)(target, options);
  }) as typeof fs.realpathSync.native;
  fs.realpathSync.native = counting;
  try {
    const value = await run();
    return { calls, value };
  } finally {
    fs.realpathSync.native = original;
  }
}

/** A read tool that reports what the permission step handed it. */
function probe(seen: Array<readonly ResolvedToolPath[] | undefined>) {
  return defineTool<{ path: string; other?: string }>({
    name: 'test_probe',
    source: 'dynamic',
    group: 'read_only_builtins',
    category: 'read',
    annotations: { readOnly: true, destructive: false, openWorld: false, idempotent: true },
    execution: { mode: 'parallel', timeoutMs: 10_000, abortable: true },
    pathAccess: 'current_project',
    visibility: 'listed',
    modelTool: {
      name: 'test_probe',
      description: 'Reports the resolved paths it was handed.',
      inputSchema: {
        type: 'object',
        required: ['path'],
        properties: { path: { type: 'string' }, other: { type: 'string' } },
      },
    },
    permission: {
      paths: (args) => [
        { argument: 'path', path: args.path, access: 'read' },
        ...(args.other === undefined
          ? []
          : [{ argument: 'other', path: args.other, access: 'list' as const }]),
      ],
    },
    execute: async (_args, context) => {
      seen.push(context.resolvedPaths);
      return textResult('seen');
    },
  });
}

describe('ToolCallContext.resolvedPaths', () => {
  it('resolves the path of a read_file call once, not in the permission step and again in the handler (issue 25)', async () => {
    const file = join(root.dir, 'a.txt');
    writeFileSync(file, 'one\ntwo\n');
    const h = await host();
    // The first call pays the host's own start-up resolutions; count a steady-state call.
    await h.dispatch({ id: 'warm', name: 'read_file', arguments: { path: 'a.txt' } });
    const { calls, value } = await realpathCallsOn(file, () =>
      h.dispatch({ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }),
    );
    assert.equal(value.status, 'ok', value.output);
    assert.match(value.output, /^1→one\n2→two$/);
    assert.equal(calls, 1);
  });

  it('hands each resolved path with its argument, input, access, real path and the resolving policy', async () => {
    mkdirSync(join(root.dir, 'sub'));
    writeFileSync(join(root.dir, 'sub', 'b.txt'), 'b');
    const seen: Array<readonly ResolvedToolPath[] | undefined> = [];
    const h = await host({ tools: [probe(seen)] });
    const result = await h.dispatch({
      id: 'p1',
      name: 'test_probe',
      arguments: { path: './sub/../sub/b.txt', other: 'missing' },
    });
    assert.equal(result.status, 'ok', result.output);
    const handed = seen[0];
    assert.ok(handed, 'the probe was handed the resolved paths');
    assert.deepEqual(
      handed.map(({ resolvedBy: _policy, ...rest }) => rest),
      [
        {
          argument: 'path',
          input: './sub/../sub/b.txt',
          access: 'read',
          path: join(root.dir, 'sub', 'b.txt'),
          displayPath: 'sub/b.txt',
          exists: true,
        },
        {
          argument: 'other',
          input: 'missing',
          access: 'list',
          path: join(root.dir, 'missing'),
          displayPath: 'missing',
          exists: false,
        },
      ],
    );
    assert.equal(typeof handed[0]?.resolvedBy, 'object');
    assert.equal(handed[0]?.resolvedBy, handed[1]?.resolvedBy);
  });

  it('hands nothing to a call the permission step refused', async () => {
    const seen: Array<readonly ResolvedToolPath[] | undefined> = [];
    const h = await host({ tools: [probe(seen)] });
    const result = await h.dispatch({ id: 'p2', name: 'test_probe', arguments: { path: '../escape' } });
    assert.equal(result.error?.code, 'PATH_OUTSIDE_ROOT');
    assert.deepEqual(seen, []);
  });

  it('still refuses a read whose directory was swapped for a link to outside the root after the permission step', async () => {
    mkdirSync(join(root.dir, 'sub'));
    writeFileSync(join(root.dir, 'sub', 'c.txt'), 'inside\n');
    writeFileSync(join(outside.dir, 'c.txt'), 'OUTSIDE SECRET\n');
    // The approval callback runs after the path was resolved and before the handler: the gap a
    // handed resolution must survive. The directory becomes a link to a directory outside the root.
    const h = await host({
      config: { permissions: { ask: ['read_file'] } },
      approve: () => {
        renameSync(join(root.dir, 'sub'), join(root.dir, 'sub-moved'));
        symlinkSync(outside.dir, join(root.dir, 'sub'));
        return true;
      },
    });
    const result = await h.dispatch({ id: 'r2', name: 'read_file', arguments: { path: 'sub/c.txt' } });
    assert.equal(result.status, 'error');
    assert.ok(
      result.error?.code === 'PATH_INVALID' || result.error?.code === 'PATH_OUTSIDE_ROOT',
      result.output,
    );
    assert.doesNotMatch(result.output, /OUTSIDE SECRET|inside/);
  });
});
