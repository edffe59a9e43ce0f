// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration values reference host variables as ${VAR}.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { toModelTools } from '@toolhost/contracts';
import {
  type CapabilityProxyOptions,
  createCapabilityProxy,
  parseMcpServers,
  schemaCachePath,
} from '../src/index.js';
import { GENEROUS_TIMEOUTS, recordingAuthorize, run, seen, tempDir, waitFor } from './helpers.js';
import { startHttpMcpServer } from './http-servers.js';

function proxyWith(options: Partial<CapabilityProxyOptions>) {
  return createCapabilityProxy({
    authorize: async () => ({ allowed: true }),
    timeouts: GENEROUS_TIMEOUTS,
    ...options,
  });
}

describe('createCapabilityProxy', () => {
  it('calls a Streamable HTTP server on 127.0.0.1 with headers expanded from the host environment', async (t) => {
    const server = await startHttpMcpServer({ mode: 'streamable', token: 'token-123' });
    t.after(() => server.close());
    const { requests, authorize } = recordingAuthorize();
    const proxy = proxyWith({
      authorize,
      mcpServers: { web: { url: server.url, headers: { Authorization: 'Bearer ${WEB_TOKEN}' } } },
      environment: { source: { WEB_TOKEN: 'token-123' } },
    });
    t.after(() => proxy.close());
    const connected = await run(proxy, { action: 'call', capability_id: 'mcp-server:web' });
    assert.ok(connected.ok, seen(connected));
    assert.equal(connected.output.details?.transport, 'streamable-http');
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:web/echo',
      arguments: { message: 'over http' },
    });
    assert.equal(seen(echo), 'http echo: over http');
    assert.equal(requests[0]?.kind, 'mcp-connect');
    assert.match(requests[0]?.preview ?? '', /connect to MCP server "web" at http:\/\/127\.0\.0\.1/);
    assert.ok(!(requests[0]?.preview ?? '').includes('token-123'), 'header values never appear in a preview');
    assert.deepEqual(proxy.serverProcesses(), [], 'a remote server is no local process');

    const wrongToken = proxyWith({
      mcpServers: { web: { url: server.url, headers: { Authorization: 'Bearer wrong' } } },
    });
    t.after(() => wrongToken.close());
    const refused = await run(wrongToken, { action: 'call', capability_id: 'mcp-server:web' });
    assert.ok(!refused.ok);
    assert.equal(refused.error.code, 'MCP_CONNECT_FAILED');
    assert.match(refused.error.message, /HTTP 401/);
  });

  it('updates the catalog and the cache on tools/list_changed and never the provider surface (CP-SURF-1)', async (t) => {
    const stateDir = tempDir(t);
    const server = await startHttpMcpServer({ mode: 'streamable' });
    t.after(() => server.close());
    const mcpServers = { web: { url: server.url } };
    const proxy = proxyWith({ stateDir, mcpServers });
    t.after(() => proxy.close());
    const surface = JSON.stringify(toModelTools([proxy.tool]));
    const added = await run(proxy, { action: 'call', capability_id: 'mcp-tool:web/add_tool', arguments: {} });
    assert.ok(added.ok, seen(added));
    await waitFor(() => proxy.inventory().servers[0]?.toolCount === 3, 20_000, 'the refreshed tool list');
    const late = await run(proxy, { action: 'call', capability_id: 'mcp-tool:web/late', arguments: {} });
    assert.equal(seen(late), 'late answered');
    assert.equal(JSON.stringify(toModelTools([proxy.tool])), surface);
    const parsed = parseMcpServers(mcpServers);
    assert.ok(parsed.ok);
    const cache = JSON.parse(readFileSync(schemaCachePath(stateDir, parsed.value[0]!), 'utf8'));
    assert.deepEqual(
      cache.tools.map((tool: { name: string }) => tool.name),
      ['add_tool', 'echo', 'late'],
    );
  });

  it('falls back to the legacy SSE transport when the server rejects the Streamable HTTP POST', async (t) => {
    const server = await startHttpMcpServer({ mode: 'sse' });
    t.after(() => server.close());
    const proxy = proxyWith({
      mcpServers: { legacy: { url: server.url }, strict: { url: server.url, type: 'http' } },
    });
    t.after(() => proxy.close());
    const connected = await run(proxy, { action: 'call', capability_id: 'mcp-server:legacy' });
    assert.ok(connected.ok, seen(connected));
    assert.equal(connected.output.details?.transport, 'sse');
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:legacy/echo',
      arguments: { message: 'sse' },
    });
    assert.equal(seen(echo), 'http echo: sse');
    const strict = await run(proxy, { action: 'call', capability_id: 'mcp-server:strict' });
    assert.ok(!strict.ok, 'type "http" means Streamable HTTP only');
    assert.equal(strict.error.code, 'MCP_CONNECT_FAILED');
    assert.match(strict.error.message, /HTTP 405/);
  });

  it('fails promptly while a remote server is down and reconnects once it is back', async (t) => {
    const server = await startHttpMcpServer({ mode: 'streamable' });
    const port = server.port;
    const proxy = proxyWith({ mcpServers: { web: { url: server.url } } });
    t.after(() => proxy.close());
    const first = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:web/echo',
      arguments: { message: '1' },
    });
    assert.ok(first.ok, seen(first));
    await server.close();
    const down = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:web/echo',
      arguments: { message: '2' },
    });
    assert.ok(!down.ok);
    assert.equal(down.error.code, 'MCP_CALL_FAILED');
    const stillDown = await run(proxy, { action: 'call', capability_id: 'mcp-server:web' });
    assert.ok(!stillDown.ok);
    assert.equal(stillDown.error.code, 'MCP_CONNECT_FAILED');
    assert.match(stillDown.error.message, /could not be reached/);
    const back = await startHttpMcpServer({ mode: 'streamable', port });
    t.after(() => back.close());
    const again = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:web/echo',
      arguments: { message: '3' },
    });
    assert.ok(again.ok, seen(again));
    assert.equal(seen(again), 'http echo: 3');
    assert.equal(back.calls, 1);
  });
});
