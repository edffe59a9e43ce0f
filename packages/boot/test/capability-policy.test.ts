import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { auditSink, tempRoot } from './helpers.js';

const require = createRequire(import.meta.url);
const everythingBin = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** Direct child processes of this test process (Linux /proc). */
function childPids(): number[] {
  if (process.platform !== 'linux') return [];
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];
async function host(options: Partial<HostOptions> & { deny?: string[] } = {}): Promise<Host> {
  const { deny, ...rest } = options;
  const created = await createHost({
    root: root.dir,
    config: {
      mcpServers: {
        everything: { command: process.execPath, args: [everythingBin, 'stdio'], trusted: true },
      },
      ...(deny ? { permissions: { deny } } : {}),
    },
    ...rest,
  });
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

const capability = (args: Record<string, unknown>) => ({ name: 'use_capability', arguments: args });

describe('the capability frontend under the session policy', () => {
  it('refuses an MCP tool denied by rule (mcp__s__t) before its server s is started', async () => {
    const sink = auditSink();
    const h = await host({ deny: ['mcp__everything__echo'], onAudit: sink.onAudit });
    const children = childPids().length;
    const result = await h.dispatch(
      capability({ action: 'call', capability_id: 'mcp-tool:everything/echo', arguments: { message: 'x' } }),
    );
    assert.equal(result.error?.code, 'APPROVAL_DENIED', result.output);
    assert.match(result.output, /the configured rule deny "mcp__everything__echo" refuses this call/);
    assert.equal(childPids().length, children, 'the server was not started');
    const decisions = sink.events
      .filter((event) => event.type === 'permission-decided')
      .map((event) => `${event.toolName}:${event.decision}:${event.phase ?? ''}`);
    assert.deepEqual(decisions, ['use_capability:allow:', 'mcp__everything__echo:deny:before-connect']);
    assert.ok(
      !sink.events.some((event) => event.toolName === 'mcp_connect__everything'),
      'connecting was never even asked',
    );
    // Another tool of the same server still connects and runs (the full check runs after the connect).
    const other = await h.dispatch(
      capability({ action: 'call', capability_id: 'mcp-tool:everything/get-sum', arguments: { a: 1, b: 2 } }),
    );
    assert.equal(other.status, 'ok', other.output);
  });

  it('leaves out of list and search, in read_only, the writers that can only fail, and says so', async () => {
    // A first host that may write connects the server, so its schema cache holds the hints.
    const writer = await host({ sandbox: 'workspace_write', approval: 'never' });
    const writerList = (await writer.dispatch(capability({ action: 'list' }))).output;
    assert.match(writerList, /- tool:move_file:/, 'a session that may write lists the writers');
    assert.equal(
      (await writer.dispatch(capability({ action: 'call', capability_id: 'mcp-server:everything' }))).status,
      'ok',
    );
    const writerSearch = (
      await writer.dispatch(capability({ action: 'search', query: 'gzip file resource' }))
    ).output;
    assert.match(writerSearch, /- mcp-tool:everything\/gzip-file-as-resource:/);
    await writer.close();

    const h = await host({ sandbox: 'read_only' });
    const children = childPids().length;
    const list = (await h.dispatch(capability({ action: 'list' }))).output;
    for (const name of ['move_file', 'multi_edit', 'delete_range', 'notebook_edit', 'delete_symbol']) {
      assert.ok(!list.includes(`- tool:${name}:`), `${name} is not advertised in read_only`);
    }
    assert.match(list, /- tool:grep:/, 'readers are still listed');
    assert.match(
      list,
      /Left out: \d+ built-in tools that this session refuses whatever anyone answers \(for example tool:\w+: "\w+" can modify files or state, which this run does not allow \(sandbox read_only\)\)/,
    );
    assert.match(
      list,
      /mcp-server:everything: configured, not connected; \d+ tools \(cached schema; server not started\).*; \d+ of them refused in this session/,
    );
    const search = (await h.dispatch(capability({ action: 'search', query: 'gzip file resource' }))).output;
    assert.ok(!search.includes('- mcp-tool:everything/gzip-file-as-resource:'), search);
    assert.match(
      search,
      /Left out: \d+ match(es)? that this session refuses whatever anyone answers \(for example mcp-tool:everything\/gzip-file-as-resource: /,
    );
    const inspect = (await h.dispatch(capability({ action: 'inspect', capability_id: 'tool:move_file' })))
      .output;
    assert.match(inspect, /Refused in this session, whatever anyone answers: "move_file" can modify files/);
    // Still reachable by id: the call gets the same refusal as before.
    const called = await h.dispatch(
      capability({
        action: 'call',
        capability_id: 'tool:move_file',
        arguments: { source: 'a', destination: 'b' },
      }),
    );
    assert.equal(called.error?.code, 'PERMISSION_DENIED', called.output);
    assert.equal(childPids().length, children, 'nothing was started');
  });
});
