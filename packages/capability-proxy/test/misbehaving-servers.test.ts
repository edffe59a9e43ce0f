// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration values reference host variables as ${VAR}.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { outputText, type ToolProgress } from '@toolhost/contracts';
import {
  type CapabilityProxyOptions,
  createCapabilityProxy,
  createResultStore,
  type McpServersConfig,
} from '../src/index.js';
import {
  childPids,
  context,
  fixtureServer,
  GENEROUS_TIMEOUTS,
  groupMembers,
  isAlive,
  run,
  seen,
  tempDir,
  waitFor,
} from './helpers.js';

function proxyWith(options: Partial<CapabilityProxyOptions> & { mcpServers: McpServersConfig }) {
  return createCapabilityProxy({
    authorize: async () => ({ allowed: true }),
    timeouts: GENEROUS_TIMEOUTS,
    ...options,
  });
}

/**
 * The host pid of a process that reported `pid` as its own: itself when it is not in a pid namespace
 * of its own, otherwise the descendant of one of `roots` whose innermost pid (`NSpid` in
 * /proc/<pid>/status) is `pid`.
 */
function hostPidOf(pid: number, roots: readonly number[]): number | undefined {
  const parents = new Map<number, number>();
  const inner = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const ppid = /^PPid:\s+(\d+)/m.exec(status);
      const nspid = /^NSpid:\s+([\d\s]+)$/m.exec(status);
      if (ppid) parents.set(Number(name), Number(ppid[1]));
      if (nspid) inner.set(Number(name), Number(nspid[1]!.trim().split(/\s+/).at(-1)));
    } catch {
      // gone meanwhile
    }
  }
  const descends = (candidate: number) => {
    for (let current = candidate, steps = 0; current > 1 && steps < 64; steps++) {
      if (roots.includes(current)) return true;
      current = parents.get(current) ?? 0;
    }
    return false;
  };
  for (const [candidate, innermost] of inner) {
    if (innermost === pid && descends(candidate)) return candidate;
  }
  return undefined;
}

describe('createCapabilityProxy', () => {
  it('fails a call to a server that crashes mid-call with MCP_CALL_FAILED and reconnects on the next call', async (t) => {
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer() } });
    t.after(() => proxy.close());
    const first = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'a' },
    });
    assert.ok(first.ok, seen(first));
    const pid = proxy.serverProcesses()[0]!.pid;
    const crashed = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/crash', arguments: {} });
    assert.ok(!crashed.ok);
    assert.equal(crashed.error.code, 'MCP_CALL_FAILED');
    assert.match(crashed.error.message, /exited with code 7 during the call/);
    assert.equal(crashed.error.details.reason, 'connection_closed');
    await waitFor(() => !isAlive(pid), 20_000, 'the crashed server to be gone');
    assert.equal(proxy.inventory().servers[0]?.status, 'failed');
    assert.match(seen(await run(proxy, { action: 'list' })), /failed, not connected.*the next call retries/);
    const again = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'b' },
    });
    assert.ok(again.ok, seen(again));
    assert.equal(seen(again), 'echo: b');
    assert.notEqual(proxy.serverProcesses()[0]?.pid, pid, 'a new process serves the next call');
  });

  it('fails a handshake that hangs with MCP_CONNECT_FAILED, leaves no process, and stays usable', async (t) => {
    const children = childPids().length;
    const proxy = proxyWith({
      mcpServers: { hang: fixtureServer('--hang-handshake'), ok: fixtureServer() },
      timeouts: { ...GENEROUS_TIMEOUTS, handshakeMs: 1_500 },
      limits: { closeGraceMs: 500 },
    });
    t.after(() => proxy.close());
    const hung = await run(proxy, { action: 'call', capability_id: 'mcp-server:hang' });
    assert.ok(!hung.ok);
    assert.equal(hung.error.code, 'MCP_CONNECT_FAILED');
    assert.match(hung.error.message, /did not complete the handshake within 1500 ms/);
    await waitFor(() => childPids().length === children, 20_000, 'the hung server to be ended');
    assert.equal(proxy.inventory().servers[0]?.status, 'failed');
    const list = await run(proxy, { action: 'list' });
    assert.ok(list.ok);
    const other = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:ok/echo',
      arguments: { message: 'c' },
    });
    assert.ok(other.ok, seen(other));
  });

  it('reports a server that exits at start, or cannot be started, with MCP_CONNECT_FAILED and keeps its stderr in the log', async (t) => {
    const stateDir = tempDir(t);
    const proxy = proxyWith({
      stateDir,
      mcpServers: {
        dies: fixtureServer('--crash-on-start'),
        missing: { command: join(stateDir, 'no-such-program') },
      },
    });
    t.after(() => proxy.close());
    const dies = await run(proxy, { action: 'call', capability_id: 'mcp-server:dies' });
    assert.ok(!dies.ok);
    assert.equal(dies.error.code, 'MCP_CONNECT_FAILED');
    assert.match(dies.error.message, /exited with code 3 during the handshake/);
    assert.ok(!seen(dies).includes('crashing on start'), "the server's stderr never reaches the model");
    const log = String(dies.error.details.log);
    await waitFor(() => readFileSync(log, 'utf8').includes('crashing on start as asked'), 20_000, 'the log');
    assert.equal(statSync(log).mode & 0o777, 0o600);
    const missing = await run(proxy, { action: 'call', capability_id: 'mcp-server:missing' });
    assert.ok(!missing.ok);
    assert.equal(missing.error.code, 'MCP_CONNECT_FAILED');
    assert.match(missing.error.message, /could not be started \(ENOENT\)/);
  });

  it('ends the connection promptly when a server floods stdout with garbage, at start or mid-call', async (t) => {
    const children = childPids().length;
    // A handshake timeout far beyond the test runner's patience: only prompt detection passes.
    const proxy = proxyWith({
      mcpServers: { flood: fixtureServer('--garbage-flood'), fx: fixtureServer() },
      timeouts: { handshakeMs: 600_000, requestMs: 600_000, totalMs: 600_000 },
    });
    t.after(() => proxy.close());
    const flood = await run(proxy, { action: 'call', capability_id: 'mcp-server:flood' });
    assert.ok(!flood.ok);
    assert.equal(flood.error.code, 'MCP_CONNECT_FAILED');
    assert.match(flood.error.message, /lines to stdout that are not JSON-RPC messages/);
    assert.equal(flood.error.details.reason, 'protocol');
    const midCall = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/garbage', arguments: {} });
    assert.ok(!midCall.ok);
    assert.equal(midCall.error.code, 'MCP_CALL_FAILED');
    assert.match(midCall.error.message, /not JSON-RPC/);
    await waitFor(() => childPids().length === children, 20_000, 'both servers to be ended');
    const again = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'd' },
    });
    assert.ok(again.ok, seen(again));
  });

  it('tolerates one banner line on stdout and logs it', async (t) => {
    const stateDir = tempDir(t);
    const proxy = proxyWith({ stateDir, mcpServers: { chatty: fixtureServer('--banner') } });
    t.after(() => proxy.close());
    const result = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:chatty/echo',
      arguments: { message: 'e' },
    });
    assert.ok(result.ok, seen(result));
    const logs = readdirSync(join(stateDir, 'mcp-logs'));
    assert.equal(logs.length, 1);
    // The log is written through a stream: closing the proxy ends the server and flushes it
    // (flaky before: the file was read while the write could still be in flight).
    await proxy.close();
    const log = join(stateDir, 'mcp-logs', logs[0]!);
    const deadline = Date.now() + 30_000;
    while (!/is not JSON-RPC: Server starting/.test(readFileSync(log, 'utf8')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(readFileSync(log, 'utf8'), /is not JSON-RPC: Server starting/);
  });

  it('times out a request without answer or progress, keeps the server usable, and lets progress extend the timeout', async (t) => {
    const proxy = proxyWith({
      mcpServers: { fx: fixtureServer() },
      timeouts: { handshakeMs: 30_000, requestMs: 1_000, totalMs: 60_000 },
    });
    t.after(() => proxy.close());
    const hang = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/hang', arguments: {} });
    assert.ok(!hang.ok);
    assert.equal(hang.error.code, 'MCP_CALL_FAILED');
    assert.match(hang.error.message, /sent neither an answer nor progress for 1000 ms/);
    assert.match(hang.error.signature ?? '', /:timeout$/);
    const progress: ToolProgress[] = [];
    const slow = await proxy.tool.execute(
      { action: 'call', capability_id: 'mcp-tool:fx/progress', arguments: { steps: 8, interval_ms: 400 } },
      { ...context('p-1'), onProgress: (update) => progress.push(update) },
    );
    assert.ok(slow.ok, seen(slow));
    assert.equal(seen(slow), 'done after 8 steps');
    assert.deepEqual(
      progress.map((update) => update.progress),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.equal(progress[0]?.total, 8);
  });

  it('stops a call at the hard total limit even while progress keeps coming', async (t) => {
    const proxy = proxyWith({
      mcpServers: { fx: fixtureServer() },
      timeouts: { handshakeMs: 30_000, requestMs: 5_000, totalMs: 1_500 },
    });
    t.after(() => proxy.close());
    const result = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/progress',
      arguments: { steps: 40, interval_ms: 200 },
    });
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'MCP_CALL_FAILED');
    assert.match(result.error.message, /hard limit of 1500 ms/);
  });

  it('returns ABORTED when the host cancels a call, and the server stays usable', async (t) => {
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer() } });
    t.after(() => proxy.close());
    const ready = await run(proxy, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(ready.ok);
    const controller = new AbortController();
    const pending = run(
      proxy,
      { action: 'call', capability_id: 'mcp-tool:fx/hang', arguments: {} },
      'c-a',
      controller.signal,
    );
    setTimeout(() => controller.abort(new Error('user cancelled')), 200);
    const aborted = await pending;
    assert.ok(!aborted.ok);
    assert.equal(aborted.error.code, 'ABORTED');
    const after = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'f' },
    });
    assert.ok(after.ok, seen(after));
  });

  it('delivers a 5 MB result intact (for the host to shape and page), and a message over the limit fails promptly', async (t) => {
    const store = createResultStore();
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer() }, resultStore: store });
    t.after(async () => {
      await proxy.close();
      store.close();
    });
    const big = await run(
      proxy,
      { action: 'call', capability_id: 'mcp-tool:fx/big', arguments: { bytes: 5_000_000 } },
      'big-1',
    );
    assert.ok(big.ok, seen(big).slice(0, 200));
    const body = outputText(big.output);
    assert.equal(Buffer.byteLength(body), 5_000_000);
    assert.equal(big.output.untrusted, true);
    // What the host's result shaper does with it: store the full body, hand out pages.
    const { resultRef, sha256 } = store.put({ callId: 'big-1', toolName: 'use_capability', body });
    assert.equal(sha256, createHash('sha256').update(body).digest('hex'));
    const last = await run(proxy, {
      action: 'call',
      capability_id: 'session:tool_result',
      arguments: { tool_call_id: 'big-1', result_ref: resultRef, offset: 4_990_000 },
    });
    assert.ok(last.ok);
    assert.match(seen(last), /"complete":true/);

    const limited = proxyWith({
      mcpServers: { fx: fixtureServer() },
      limits: { maxMessageBytes: 1024 * 1024 },
    });
    t.after(() => limited.close());
    const tooBig = await run(limited, {
      action: 'call',
      capability_id: 'mcp-tool:fx/big',
      arguments: { bytes: 5_000_000 },
    });
    assert.ok(!tooBig.ok);
    assert.equal(tooBig.error.code, 'MCP_CALL_FAILED');
    assert.match(tooBig.error.message, /larger than 1048576 bytes/);
    const after = await run(limited, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'g' },
    });
    assert.ok(after.ok, seen(after));
  });

  it('turns a JSON-RPC error and an isError result into MCP_CALL_FAILED with the server text as untrusted output', async (t) => {
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer() } });
    t.after(() => proxy.close());
    const rpc = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/rpc-error', arguments: {} });
    assert.ok(!rpc.ok);
    assert.equal(rpc.error.code, 'MCP_CALL_FAILED');
    assert.match(rpc.error.message, /JSON-RPC error -32602/);
    assert.ok(!rpc.error.message.includes('does not like'), 'third-party text stays out of the message');
    assert.equal(rpc.output?.untrusted, true);
    assert.match(outputText(rpc.output), /does not like these parameters/);
    const tool = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/tool-error', arguments: {} });
    assert.ok(!tool.ok);
    assert.equal(tool.error.details.reason, 'tool_error');
    assert.equal(outputText(tool.output), 'the tool failed: something went wrong');
  });

  it('gives a stdio server the safe environment plus its configured variables, never the host secrets', async (t) => {
    const proxy = proxyWith({
      mcpServers: {
        fx: { ...fixtureServer(), env: { SERVER_TOKEN: '${HOST_PROVIDED_TOKEN}', PLAIN: 'value' } },
      },
      environment: {
        source: {
          PATH: process.env.PATH,
          HOME: '/home/someone',
          OPENAI_API_KEY: 'sk-secret',
          AWS_SECRET_ACCESS_KEY: 'secret',
          HOST_PROVIDED_TOKEN: 'token-value',
          LANG: 'C.UTF-8',
        },
      },
    });
    t.after(() => proxy.close());
    const result = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/env', arguments: {} });
    assert.ok(result.ok, seen(result));
    const names = JSON.parse(seen(result)) as string[];
    assert.ok(names.includes('SERVER_TOKEN'));
    assert.ok(names.includes('PLAIN'));
    assert.ok(names.includes('PATH'));
    assert.ok(names.includes('LANG'));
    assert.ok(!names.includes('OPENAI_API_KEY'));
    assert.ok(!names.includes('AWS_SECRET_ACCESS_KEY'));
    assert.ok(!names.includes('HOST_PROVIDED_TOKEN'));

    const unset = proxyWith({
      mcpServers: { fx: { ...fixtureServer(), env: { TOKEN: '${NOT_SET_ANYWHERE}' } } },
    });
    t.after(() => unset.close());
    const missing = await run(unset, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(!missing.ok);
    assert.equal(missing.error.code, 'MCP_CONNECT_FAILED');
    assert.match(
      missing.error.message,
      /needs the host variable NOT_SET_ANYWHERE \(referenced by env\.TOKEN\)/,
    );
  });

  it('writes server stderr to a 0600 log, never to the result', async (t) => {
    const stateDir = tempDir(t);
    const proxy = proxyWith({ stateDir, mcpServers: { fx: fixtureServer() } });
    t.after(() => proxy.close());
    const result = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/stderr', arguments: {} });
    assert.ok(result.ok);
    assert.ok(!seen(result).includes('SECRET-LOOKING'));
    const [log] = readdirSync(join(stateDir, 'mcp-logs'));
    const file = join(stateDir, 'mcp-logs', log!);
    await waitFor(() => readFileSync(file, 'utf8').includes('SECRET-LOOKING-STDERR-LINE'), 20_000, 'the log');
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it('ends every server process and its helpers on close, escalating to SIGKILL for a server that ignores SIGTERM', async (t) => {
    const stateDir = tempDir(t);
    const pidFile = join(stateDir, 'pids');
    const children = childPids().length;
    const proxy = proxyWith({
      mcpServers: {
        stubborn: fixtureServer('--stubborn', '--grandchild', `--pid-file=${pidFile}`),
        plain: fixtureServer(),
      },
      limits: { closeGraceMs: 300 },
    });
    for (const name of ['stubborn', 'plain']) {
      const result = await run(proxy, { action: 'call', capability_id: `mcp-server:${name}` });
      assert.ok(result.ok, seen(result));
    }
    const processes = proxy.serverProcesses().map((entry) => entry.pid);
    assert.equal(processes.length, 2);
    // The server reports its pids from inside its own pid namespace (the transport contains it with
    // bubblewrap where that works): map them to the host's pids, and the group is the one the
    // transport spawned (bubblewrap's, which the server and its helper share).
    const reported = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    const [serverPid, grandchildPid] = reported.map((pid) => hostPidOf(pid!, processes));
    assert.ok(serverPid && grandchildPid);
    assert.ok(isAlive(grandchildPid));
    const group = processes.find((pid) => groupMembers(pid).includes(serverPid)) ?? serverPid;
    assert.ok(groupMembers(group).includes(serverPid) && groupMembers(group).includes(grandchildPid));
    await proxy.close();
    assert.equal(proxy.closed, true);
    for (const pid of [...processes, grandchildPid]) {
      await waitFor(() => !isAlive(pid), 20_000, `process ${pid} to end`);
    }
    // No member of the group may still run. A member that has exited but is not yet reaped (a zombie:
    // bubblewrap's inner process, reaped by whoever inherited it) has ended; waiting, not a snapshot,
    // because the last member may still be on its way out when the known pids are gone.
    await waitFor(() => groupMembers(group).filter(isAlive).length === 0, 20_000, 'the group to end');
    assert.deepEqual(groupMembers(group).filter(isAlive), []);
    await waitFor(() => childPids().length === children, 20_000, 'no child left');
    assert.deepEqual(proxy.serverProcesses(), []);
    const afterClose = await run(proxy, { action: 'call', capability_id: 'mcp-server:plain' });
    assert.ok(!afterClose.ok);
    assert.equal(afterClose.error.code, 'CAPABILITY_UNAVAILABLE');
    assert.equal(childPids().length, children, 'a closed proxy starts nothing');
  });
});
