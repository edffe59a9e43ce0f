import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DIALECT_NAMES } from '@toolhost/provider-dialects';
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
async function host(
  options: HostOptions & { trusted?: boolean; rules?: { allow?: string[]; deny?: string[] } },
): Promise<Host> {
  const { trusted, rules, ...rest } = options;
  const created = await createHost({
    root: root.dir,
    config: {
      mcpServers: {
        everything: {
          command: process.execPath,
          args: [everythingBin, 'stdio'],
          ...(trusted ? { trusted: true } : {}),
        },
      },
      ...(rules ? { permissions: rules } : {}),
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

const echo = (message: string) => ({
  name: 'use_capability',
  arguments: { action: 'call', capability_id: 'mcp-tool:everything/echo', arguments: { message } },
});

describe('Host with MCP servers', () => {
  it('keeps every provider surface byte-identical when a server connects, and across hosts (BT-SURF-1)', async () => {
    const h = await host({ trusted: true });
    const before = DIALECT_NAMES.map((dialect) => h.providerTools(dialect));
    const beforeBytes = before.map((compiled) => JSON.stringify(compiled.tools));
    const neutralBytes = JSON.stringify(h.modelTools());
    const fingerprint = h.surfaceFingerprint();
    const result = await h.dispatch(echo('hello'));
    assert.equal(result.status, 'ok', result.output);
    assert.match(result.output, /Echo: hello/);
    DIALECT_NAMES.forEach((dialect, index) => {
      assert.equal(h.providerTools(dialect), before[index], 'the same frozen object');
      assert.equal(JSON.stringify(h.providerTools(dialect).tools), beforeBytes[index]);
    });
    assert.equal(JSON.stringify(h.modelTools()), neutralBytes);
    assert.equal(h.surfaceFingerprint(), fingerprint);
    const withoutServers = await createHost({ root: root.dir, config: false });
    hosts.push(withoutServers);
    assert.equal(
      JSON.stringify(withoutServers.modelTools()),
      neutralBytes,
      'the configuration of servers is not on the surface',
    );
    const other = await host({ trusted: true });
    DIALECT_NAMES.forEach((dialect, index) => {
      assert.equal(
        JSON.stringify(other.providerTools(dialect).tools),
        beforeBytes[index],
        'same options, same bytes',
      );
    });
  });

  it('runs connect and tool calls through the permission step with their exact names', async () => {
    const sink = auditSink();
    const h = await host({ trusted: true, onAudit: sink.onAudit });
    const result = await h.dispatch(echo('x'));
    assert.equal(result.status, 'ok', result.output);
    const decisions = sink.events
      .filter((event) => event.type === 'permission-decided')
      .map((event) => `${event.toolName}:${event.decision}:${event.source}`);
    assert.deepEqual(decisions, [
      'use_capability:allow:annotation',
      'mcp_connect__everything:allow:config',
      'mcp__everything__echo:allow:annotation',
    ]);
  });

  it("treats an untrusted server's hints as claims: a call asks, and fails closed without a person", async () => {
    const h = await host({});
    const result = await h.dispatch(echo('x'));
    assert.equal(result.error?.code, 'APPROVAL_REQUIRED', result.output);
    assert.match(result.output, /"mcp__everything__echo" needs approval/);
    const allowed = await host({ rules: { allow: ['mcp__everything__echo'] } });
    assert.equal((await allowed.dispatch(echo('y'))).status, 'ok');
  });

  it('never asks for or calls an MCP tool with invalid arguments (BT-DISP-2)', async () => {
    const sink = auditSink();
    const h = await host({ trusted: true, onAudit: sink.onAudit });
    const result = await h.dispatch({
      name: 'use_capability',
      arguments: { action: 'call', capability_id: 'mcp-tool:everything/echo', arguments: { message: 42 } },
    });
    assert.equal(result.error?.code, 'ARGUMENT_VALIDATION', result.output);
    assert.match(result.output, /remote_dispatched=false/);
    // Without a cached schema the server may be connected (after its own permission) to learn it;
    // the tool itself is never authorized nor called.
    assert.ok(!sink.events.some((event) => event.toolName === 'mcp__everything__echo'));
  });

  it('stops a denied connect before any process starts (exact rule mcp_connect__<server>)', async () => {
    const children = childPids().length;
    const h = await host({ trusted: true, rules: { deny: ['mcp_connect__everything'] } });
    const result = await h.dispatch(echo('x'));
    assert.equal(result.error?.code, 'APPROVAL_DENIED', result.output);
    assert.equal(childPids().length, children, 'no server process was started');
  });

  it('refuses a tool the server declares as writing in a read_only run, and ends the server on close', async () => {
    const h = await host({ trusted: true, approval: 'never' });
    const children = childPids().length;
    assert.equal((await h.dispatch(echo('start it'))).status, 'ok');
    assert.ok(childPids().length > children, 'the server runs');
    const writer = await h.dispatch({
      name: 'use_capability',
      arguments: {
        action: 'call',
        capability_id: 'mcp-tool:everything/gzip-file-as-resource',
        arguments: { name: 'x.gz', data: 'data:text/plain,hi' },
      },
    });
    assert.equal(writer.error?.code, 'PERMISSION_DENIED', writer.output);
    await h.close();
    assert.equal(childPids().length, children, 'close() ended the server');
  });
});
