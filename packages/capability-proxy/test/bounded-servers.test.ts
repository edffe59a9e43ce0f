import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CapabilityProxyOptions, createCapabilityProxy, type McpServersConfig } from '../src/index.js';
import { MCP_TOOL_LIMITS } from '../src/mcp-tools.js';
import { childPids, fixtureServer, GENEROUS_TIMEOUTS, isAlive, run, seen, waitFor } from './helpers.js';
import { startHttpMcpServer } from './http-servers.js';

function proxyWith(options: Partial<CapabilityProxyOptions> & { mcpServers: McpServersConfig }) {
  return createCapabilityProxy({
    authorize: async () => ({ allowed: true }),
    timeouts: GENEROUS_TIMEOUTS,
    ...options,
  });
}

describe('createCapabilityProxy (hanging MCP calls)', () => {
  it('cancels a call whose tool sends progress every 50 ms and never answers at the hard total, then drops the server that ignores notifications/cancelled', async (t) => {
    const proxy = proxyWith({
      mcpServers: { fx: fixtureServer('--bounds') },
      // Progress keeps resetting the request timeout; only the hard total ends the call.
      timeouts: { handshakeMs: 30_000, requestMs: 30_000, totalMs: 1_500 },
      limits: { closeGraceMs: 300 },
    });
    t.after(() => proxy.close());
    const ready = await run(proxy, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(ready.ok, seen(ready));
    const pid = proxy.serverProcesses()[0]!.pid;
    const hung = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/progress-forever',
      arguments: {},
    });
    assert.ok(!hung.ok);
    assert.equal(hung.error.code, 'MCP_CALL_FAILED');
    assert.match(hung.error.message, /hard limit of 1500 ms/);
    // The server keeps sending progress for the cancelled call: its connection is dropped, its process ends.
    await waitFor(() => !isAlive(pid), 30_000, 'the server that ignored the cancellation to be ended');
    assert.equal(proxy.inventory().servers[0]?.status, 'failed');
    assert.match(proxy.inventory().servers[0]?.lastError ?? '', /asked to cancel/);
    const again = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'h' },
    });
    assert.ok(again.ok, seen(again));
  });

  it('keeps a server that obeys notifications/cancelled after its call timed out', async (t) => {
    const proxy = proxyWith({
      mcpServers: { fx: fixtureServer('--bounds') },
      timeouts: { handshakeMs: 30_000, requestMs: 30_000, totalMs: 1_000 },
      limits: { closeGraceMs: 300 },
    });
    t.after(() => proxy.close());
    const hung = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/progress-until-cancelled',
      arguments: {},
    });
    assert.ok(!hung.ok);
    assert.match(hung.error.message, /hard limit of 1000 ms/);
    const pid = proxy.serverProcesses()[0]!.pid;
    // An echo round trip after the grace shows the server still connected (progress stopped).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'i' },
    });
    assert.ok(after.ok, seen(after));
    assert.equal(proxy.serverProcesses()[0]?.pid, pid, 'the same process still serves');
  });

  it('cancels a hanging call promptly when the host aborts it (closing), and close ends the server', async (t) => {
    const children = childPids().length;
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer('--bounds') }, limits: { closeGraceMs: 300 } });
    t.after(() => proxy.close());
    const controller = new AbortController();
    const pending = run(
      proxy,
      { action: 'call', capability_id: 'mcp-tool:fx/progress-forever', arguments: {} },
      'c-h',
      controller.signal,
    );
    await waitFor(() => proxy.serverProcesses().length === 1, 30_000, 'the server to start');
    setTimeout(() => controller.abort(new Error('the host is closing')), 300);
    const aborted = await pending;
    assert.ok(!aborted.ok);
    assert.equal(aborted.error.code, 'ABORTED');
    await proxy.close();
    await waitFor(() => childPids().length === children, 30_000, 'no server left');
  });

  it('honours per-server timeouts from mcpServers over the proxy defaults', async (t) => {
    const proxy = proxyWith({
      mcpServers: { fx: { ...fixtureServer('--bounds'), timeouts: { totalMs: 800 } } },
      timeouts: { handshakeMs: 30_000, requestMs: 30_000, totalMs: 60_000 },
      limits: { closeGraceMs: 300 },
    });
    t.after(() => proxy.close());
    const hung = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/progress-until-cancelled',
      arguments: {},
    });
    assert.ok(!hung.ok);
    assert.match(hung.error.message, /hard limit of 800 ms/);
  });
});

describe('createCapabilityProxy (tool lists)', () => {
  it('accepts a tool without inputSchema as taking no declared parameters instead of failing the handshake, and the other tools work', async (t) => {
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer('--no-input-schema') } });
    t.after(() => proxy.close());
    const connected = await run(proxy, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(connected.ok, seen(connected));
    assert.match(seen(connected), /mcp-tool:fx\/bare/);
    const inspect = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:fx/bare' });
    assert.match(seen(inspect), /"properties":\{\},"type":"object"/);
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'j' },
    });
    assert.ok(echo.ok, seen(echo));
    const bare = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/bare', arguments: {} });
    // The fixture answers unknown tools with a JSON-RPC error: the call reached the server.
    assert.ok(!bare.ok);
    assert.equal(bare.error.code, 'MCP_CALL_FAILED');
    assert.equal(bare.error.details.reason, 'server_error');
  });

  it('marks a tool whose schema nests 20,000 levels unusable with the reason and the limit, and the server and its other tools keep working', async (t) => {
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer('--deep-schema') } });
    t.after(() => proxy.close());
    const connected = await run(proxy, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(connected.ok, seen(connected));
    assert.match(
      seen(connected),
      /mcp-tool:fx\/deep: \(unusable: its input schema nests deeper than 128 levels/,
    );
    assert.match(seen(connected), /1 of its tools cannot be used/);
    const inspect = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:fx/deep' });
    assert.match(seen(inspect), /Unusable: its input schema nests deeper than 128 levels/);
    const deep = await run(proxy, { action: 'call', capability_id: 'mcp-tool:fx/deep', arguments: {} });
    assert.ok(!deep.ok);
    assert.equal(deep.error.code, 'CAPABILITY_UNAVAILABLE');
    assert.match(
      deep.error.message,
      /mcp-tool:fx\/deep cannot be used: its input schema nests deeper than 128 levels/,
    );
    // A deep output schema is not compiled by the proxy: that tool is usable.
    const output = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/deep-output',
      arguments: {},
    });
    assert.equal(output.ok ? 'ok' : output.error.details.reason, 'server_error');
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'k' },
    });
    assert.ok(echo.ok, seen(echo));
  });

  it('keeps at most the tool cap of an enormous tool list and bounds a huge description', async (t) => {
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer('--many-tools=2500', '--huge-description') } });
    t.after(() => proxy.close());
    const connected = await run(proxy, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(connected.ok, seen(connected));
    assert.equal(proxy.inventory().servers[0]?.toolCount, MCP_TOOL_LIMITS.maxTools);
    assert.match(seen(connected), new RegExp(`lists more than ${MCP_TOOL_LIMITS.maxTools} tools`));
    const inspect = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:fx/wordy' });
    assert.ok(inspect.ok, seen(inspect).slice(0, 300));
    const text = seen(inspect);
    assert.ok(
      text.length < MCP_TOOL_LIMITS.maxDescriptionChars + 2_000,
      `inspect output is ${text.length} characters`,
    );
    assert.match(text, /cut: longer than 8192 characters/);
  });
});

describe('createCapabilityProxy (over-large messages from a server)', () => {
  it('fails a call promptly when a server writes a line that never ends, without buffering past the limit', async (t) => {
    const proxy = proxyWith({
      mcpServers: { fx: fixtureServer('--bounds') },
      limits: { maxMessageBytes: 1024 * 1024, closeGraceMs: 300 },
    });
    t.after(() => proxy.close());
    const endless = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/endless-line',
      arguments: {},
    });
    assert.ok(!endless.ok);
    assert.equal(endless.error.code, 'MCP_CALL_FAILED');
    assert.match(endless.error.message, /larger than 1048576 bytes/);
    const after = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'l' },
    });
    assert.ok(after.ok, seen(after));
  });

  for (const mode of ['streamable', 'sse'] as const) {
    it(`fails a call promptly when a remote ${mode} server sends a message over the limit, and the next call reconnects`, async (t) => {
      const http = await startHttpMcpServer({ mode, flood: true });
      t.after(() => http.close());
      const proxy = proxyWith({
        mcpServers: { remote: { url: http.url, type: mode === 'sse' ? 'sse' : 'http' } },
        limits: { maxMessageBytes: 256 * 1024 },
      });
      t.after(() => proxy.close());
      const small = await run(proxy, {
        action: 'call',
        capability_id: 'mcp-tool:remote/flood',
        arguments: { bytes: 1_000 },
      });
      assert.ok(small.ok, seen(small));
      const flood = await run(proxy, {
        action: 'call',
        capability_id: 'mcp-tool:remote/flood',
        arguments: { bytes: 2_000_000 },
      });
      assert.ok(!flood.ok);
      assert.equal(flood.error.code, 'MCP_CALL_FAILED');
      assert.match(flood.error.message, /larger than 262144 bytes/);
      const after = await run(proxy, {
        action: 'call',
        capability_id: 'mcp-tool:remote/echo',
        arguments: { message: 'm' },
      });
      assert.ok(after.ok, seen(after));
    });
  }
});
