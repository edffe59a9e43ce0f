import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCapabilityProxy } from '../src/index.js';
import { childPids, fixtureServer, run, seen, waitFor } from './helpers.js';

// Long enough that a stubborn server (it ignores stdin closing and SIGTERM) outlives the test's
// checks by far: it is only killed 2 × this after the connection was given up.
const CLOSE_GRACE_MS = 3_000;

function stubbornProxy(flags: string[]) {
  return createCapabilityProxy({
    mcpServers: { flood: fixtureServer('--stubborn', ...flags) },
    authorize: async () => ({ allowed: true }),
    // A handshake and calls that would wait far beyond the test's patience: only giving up at once passes.
    timeouts: { handshakeMs: 600_000, requestMs: 600_000, totalMs: 600_000 },
    limits: { closeGraceMs: CLOSE_GRACE_MS },
  });
}

describe('createStdioTransport (garbage on stdout)', () => {
  it('gives a server up at once after the bounded number of garbage lines, not at the handshake timeout nor when a stubborn one is finally gone', async (t) => {
    const children = childPids().length;
    const proxy = stubbornProxy(['--garbage-flood']);
    t.after(() => proxy.close());
    const flood = await run(proxy, { action: 'call', capability_id: 'mcp-server:flood' });
    assert.ok(!flood.ok);
    assert.equal(flood.error.code, 'MCP_CONNECT_FAILED', seen(flood));
    assert.match(flood.error.message, /wrote 21 lines to stdout that are not JSON-RPC messages/);
    assert.ok(
      childPids().length > children,
      'the failure is reported while the server (which ignores stdin closing and SIGTERM) is still being ended',
    );
    await proxy.close();
    assert.equal(childPids().length, children, 'close() waited until the server was gone');
  });

  it('fails a call at once when a connected server starts writing garbage', async (t) => {
    const children = childPids().length;
    const proxy = stubbornProxy([]);
    t.after(() => proxy.close());
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:flood/echo',
      arguments: { message: 'a' },
    });
    assert.ok(echo.ok, seen(echo));
    const garbage = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:flood/garbage',
      arguments: {},
    });
    assert.ok(!garbage.ok);
    assert.equal(garbage.error.code, 'MCP_CALL_FAILED', seen(garbage));
    assert.match(garbage.error.message, /not JSON-RPC/);
    assert.ok(childPids().length > children, 'the call failed before the stubborn server was gone');
    await proxy.close();
    await waitFor(() => childPids().length === children, 20_000, 'the server to be ended');
  });
});
