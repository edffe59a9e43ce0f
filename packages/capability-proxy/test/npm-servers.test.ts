import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type ToolProgress, toModelTools } from '@toolhost/contracts';
import { createCapabilityProxy, type McpServersConfig } from '../src/index.js';
import {
  childPids,
  context,
  GENEROUS_TIMEOUTS,
  isAlive,
  npmServer,
  recordingAuthorize,
  run,
  seen,
  tempDir,
  waitFor,
} from './helpers.js';

// The real reference servers from npm, started from their installed bin with this node over stdio.
describe('createCapabilityProxy', () => {
  it('calls tools of the real everything, filesystem and memory servers over stdio and ends them on close', async (t) => {
    const stateDir = tempDir(t);
    const root = tempDir(t);
    writeFileSync(join(root, 'notes.txt'), 'hello from the filesystem server\n');
    const memoryFile = join(stateDir, 'memory.jsonl');
    const mcpServers: McpServersConfig = {
      everything: npmServer('everything', 'stdio'),
      filesystem: npmServer('filesystem', root),
      memory: { ...npmServer('memory'), env: { MEMORY_FILE_PATH: memoryFile } },
    };
    const { requests, authorize } = recordingAuthorize();
    const children = childPids().length;
    const proxy = createCapabilityProxy({
      stateDir,
      mcpServers,
      authorize,
      timeouts: GENEROUS_TIMEOUTS,
      environment: {
        source: { PATH: process.env.PATH, HOME: process.env.HOME, HOST_ONLY_SECRET: 'do-not-leak' },
      },
    });
    const surface = JSON.stringify(toModelTools([proxy.tool]));
    t.after(() => proxy.close());

    const sum = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:everything/get-sum',
      arguments: { a: 2, b: 3 },
    });
    assert.ok(sum.ok, seen(sum));
    assert.match(seen(sum), /\b5\b/);
    const image = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:everything/get-tiny-image',
      arguments: {},
    });
    assert.ok(image.ok, seen(image));
    const png = image.output.content.find((block) => block.type === 'image');
    assert.equal(png?.type === 'image' ? png.mimeType : undefined, 'image/png');
    const structured = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:everything/get-structured-content',
      arguments: { location: 'Chicago' },
    });
    assert.ok(structured.ok, seen(structured));
    assert.equal(
      typeof (structured.output.structuredContent as { temperature?: unknown }).temperature,
      'number',
    );
    const links = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:everything/get-resource-links',
      arguments: { count: 2 },
    });
    assert.ok(links.ok, seen(links));
    assert.ok(links.output.content.some((block) => block.type === 'resource_link'));
    const env = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:everything/get-env',
      arguments: {},
    });
    assert.ok(env.ok);
    assert.ok(!seen(env).includes('do-not-leak'), 'host secrets never reach a server');
    assert.ok(!seen(env).includes('HOST_ONLY_SECRET'));

    const read = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:filesystem/read_text_file',
      arguments: { path: join(root, 'notes.txt') },
    });
    assert.ok(read.ok, seen(read));
    assert.match(seen(read), /hello from the filesystem server/);
    const write = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:filesystem/write_file',
      arguments: { path: join(root, 'new.txt'), content: 'written through MCP' },
    });
    assert.ok(write.ok, seen(write));
    assert.equal(readFileSync(join(root, 'new.txt'), 'utf8'), 'written through MCP');
    const writeRequest = requests.find((request) => request.toolName === 'mcp__filesystem__write_file');
    assert.deepEqual(writeRequest?.annotations, {
      readOnly: false,
      destructive: true,
      idempotent: true,
      openWorld: false,
    });
    const outside = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:filesystem/read_text_file',
      arguments: { path: '/etc/hostname' },
    });
    assert.ok(!outside.ok, 'the server refuses paths outside its root, reported as a failed MCP call');
    assert.equal(outside.error.code, 'MCP_CALL_FAILED');

    const created = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:memory/create_entities',
      arguments: { entities: [{ name: 'toolhost', entityType: 'project', observations: ['has a proxy'] }] },
    });
    assert.ok(created.ok, seen(created));
    assert.ok(created.output.structuredContent !== undefined);
    const graph = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:memory/read_graph',
      arguments: {},
    });
    assert.match(seen(graph), /has a proxy/);
    assert.match(readFileSync(memoryFile, 'utf8'), /toolhost/, 'the configured env reached the server');
    const badEntities = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:memory/create_entities',
      arguments: { entities: [{ name: 1 }] },
    });
    assert.ok(!badEntities.ok);
    assert.equal(
      badEntities.error.code,
      'ARGUMENT_VALIDATION',
      'the real schema is enforced before the call',
    );

    assert.deepEqual(
      requests.filter((request) => request.kind === 'mcp-connect').map((request) => request.toolName),
      ['mcp_connect__everything', 'mcp_connect__filesystem', 'mcp_connect__memory'],
    );
    const pids = proxy.serverProcesses().map((entry) => entry.pid);
    assert.equal(pids.length, 3);
    assert.equal(JSON.stringify(toModelTools([proxy.tool])), surface, 'the surface did not move (CP-SURF-1)');
    await proxy.close();
    for (const pid of pids) await waitFor(() => !isAlive(pid), 20_000, `server ${pid} to end`);
    await waitFor(() => childPids().length === children, 20_000, 'no child left');
  });

  it('lets progress notifications of the everything server extend the request timeout', async (t) => {
    const proxy = createCapabilityProxy({
      mcpServers: { everything: npmServer('everything', 'stdio') },
      authorize: async () => ({ allowed: true }),
      timeouts: { handshakeMs: 30_000, requestMs: 1_500, totalMs: 60_000 },
    });
    t.after(() => proxy.close());
    const progress: ToolProgress[] = [];
    const result = await proxy.tool.execute(
      {
        action: 'call',
        capability_id: 'mcp-tool:everything/trigger-long-running-operation',
        arguments: { duration: 4, steps: 8 },
      },
      { ...context('long-1'), onProgress: (update) => progress.push(update) },
    );
    assert.ok(result.ok, seen(result));
    assert.match(seen(result), /Long running operation completed/);
    // Regression: the last notification arrives in the same chunk as the answer; the SDK handles
    // notifications a microtask later, so without one-message-per-tick delivery it was dropped.
    assert.deepEqual(
      progress.map((update) => update.progress),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
  });
});
