import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  createToolRegistry,
  defineTool,
  type RegisteredTool,
  ToolhostError,
  type ToolResult,
  textResult,
  toModelTools,
} from '@toolhost/contracts';
import { USE_CAPABILITY_DESCRIPTION } from '../src/capability-proxy.js';
import {
  type CapabilityAuthorizationRequest,
  type CapabilityProxyOptions,
  createCapabilityProxy,
  createResultStore,
  type McpServersConfig,
} from '../src/index.js';
import {
  childPids,
  fixtureServer,
  GENEROUS_TIMEOUTS,
  recordingAuthorize,
  run,
  seen,
  tempDir,
  waitFor,
} from './helpers.js';

function proxyWith(options: Partial<CapabilityProxyOptions> & { mcpServers?: McpServersConfig }) {
  return createCapabilityProxy({
    authorize: async () => ({ allowed: true }),
    timeouts: GENEROUS_TIMEOUTS,
    ...options,
  });
}

/** Connects each server once so `<stateDir>/mcp-cache` holds its schemas, then ends every process. */
async function primeCache(stateDir: string, mcpServers: McpServersConfig): Promise<void> {
  const proxy = proxyWith({ stateDir, mcpServers });
  try {
    for (const name of Object.keys(mcpServers)) {
      const result = await run(proxy, { action: 'call', capability_id: `mcp-server:${name}` });
      assert.ok(result.ok, seen(result));
    }
  } finally {
    await proxy.close();
  }
}

function builtinCatalog(): { catalog: () => RegisteredTool[] } {
  const registry = createToolRegistry();
  const make = (name: string, description: string, visibility: 'listed' | 'hidden') =>
    defineTool<{ pattern: string }>({
      name,
      source: 'builtin',
      group: 'read_only_builtins',
      category: 'search',
      annotations: { readOnly: true, destructive: false },
      execution: { mode: 'parallel', timeoutMs: 5_000, abortable: true },
      pathAccess: 'current_project',
      visibility,
      modelTool: {
        name,
        description,
        inputSchema: {
          type: 'object',
          properties: { pattern: { type: 'string', description: 'The pattern' } },
          required: ['pattern'],
        },
      },
      execute: async () => textResult('not used: dispatchTool runs it'),
    });
  registry.register(make('glob', 'Find files whose paths match a glob pattern.', 'listed'));
  registry.register(make('grep', 'Search file contents with a regular expression.', 'listed'));
  registry.register(make('bash_output', 'Legacy alias of job_output.', 'hidden'));
  return { catalog: () => registry.list({ visibility: 'all' }) };
}

describe('createCapabilityProxy', () => {
  it('keeps the use_capability tool byte-identical across proxies, connections, list_changed and result stores (CP-SURF-1)', async (t) => {
    const stateDir = tempDir(t);
    const bare = proxyWith({});
    const before = JSON.stringify(toModelTools([bare.tool]));
    const store = createResultStore();
    const busy = proxyWith({
      stateDir,
      mcpServers: { fx: fixtureServer('--list-changed') },
      resultStore: store,
      catalog: builtinCatalog().catalog,
    });
    t.after(async () => {
      await busy.close();
      store.close();
    });
    assert.equal(JSON.stringify(toModelTools([busy.tool])), before, 'configuration does not change it');
    const connected = await run(busy, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(connected.ok, seen(connected));
    // The server announces `tools/list_changed` right after the handshake: wait until the list has it.
    await waitFor(() => busy.inventory().servers[0]?.toolCount === 11, 20_000, 'the list_changed refresh');
    const after = await run(busy, { action: 'inspect', capability_id: 'mcp-tool:fx/late' });
    assert.ok(after.ok, seen(after));
    assert.equal(
      JSON.stringify(toModelTools([busy.tool])),
      before,
      'connecting and list_changed do not change it',
    );
    assert.equal(JSON.stringify(toModelTools([busy.clone().tool])), before, 'a clone has the same tool');
    const [model] = toModelTools([busy.tool]);
    assert.equal(model?.name, 'use_capability');
    assert.equal(model?.description, USE_CAPABILITY_DESCRIPTION);
    const schema = model?.inputSchema as { required: string[]; properties: { action: { enum: string[] } } };
    assert.deepEqual(schema.required, ['action']);
    assert.deepEqual(schema.properties.action.enum, ['call', 'decline', 'inspect', 'list', 'search']);
    assert.equal(busy.tool.annotations.readOnly, true);
    assert.equal(busy.tool.execution.mode, 'parallel');
    assert.equal(busy.tool.source, 'builtin');
    assert.equal(busy.tool.group, 'utility_builtins');
  });

  it('starts no process for list, search and inspect, and inspect shows cached schemas under a banner (CP-CALL-1)', async (t) => {
    const stateDir = tempDir(t);
    await primeCache(stateDir, { cached: fixtureServer() });
    const { requests, authorize } = recordingAuthorize();
    const proxy = proxyWith({
      stateDir,
      authorize,
      mcpServers: {
        cached: fixtureServer(),
        fresh: fixtureServer(),
        off: { ...fixtureServer(), enabled: false },
      },
    });
    t.after(() => proxy.close());
    const children = childPids().length;
    const list = await run(proxy, { action: 'list' });
    assert.ok(list.ok);
    assert.match(
      seen(list),
      /mcp-server:cached: configured, not connected; 10 tools \(cached schema; server not started\)/,
    );
    assert.match(seen(list), /mcp-server:fresh: configured, not connected; tools unknown until it connects/);
    assert.match(seen(list), /mcp-server:off: disabled/);
    const search = await run(proxy, { action: 'search', query: 'echo message' });
    assert.match(seen(search), /mcp-tool:cached\/echo/);
    const server = await run(proxy, { action: 'inspect', capability_id: 'mcp-server:cached' });
    assert.match(seen(server), /^Tools \(from cached schema; server not started\)/);
    assert.match(seen(server), /"required":\["message"\]/);
    const tool = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:cached/echo' });
    assert.match(seen(tool), /from cached schema; server not started/);
    assert.match(
      seen(tool),
      /Example: use_capability\(action="call", capability_id="mcp-tool:cached\/echo", arguments=\{"message":"<message>"\}\)/,
    );
    const fresh = await run(proxy, { action: 'inspect', capability_id: 'mcp-server:fresh' });
    assert.match(
      seen(fresh),
      /no cached schema exists\. Call use_capability\(action="call", capability_id="mcp-server:fresh"\)/,
    );
    const unknownTool = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:fresh/anything' });
    assert.match(seen(unknownTool), /capability_id="mcp-server:fresh"/);
    const off = await run(proxy, { action: 'inspect', capability_id: 'mcp-server:off' });
    assert.match(seen(off), /disabled/);
    assert.equal(childPids().length, children, 'no process was started');
    assert.deepEqual(proxy.serverProcesses(), []);
    assert.equal(requests.length, 0, 'nothing asked for permission');
    assert.deepEqual(
      proxy.inventory().servers.map((entry) => [entry.name, entry.status, entry.toolSource]),
      [
        ['cached', 'configured', 'cached'],
        ['fresh', 'configured', 'none'],
        ['off', 'disabled', 'none'],
      ],
    );
  });

  it('asks mcp_connect__<server> before starting, and a denial leaves the server unstarted (CP-CALL-2)', async (t) => {
    const denial = new ToolhostError({ code: 'APPROVAL_DENIED', message: 'a rule denies mcp_connect__fx' });
    const { requests, authorize } = recordingAuthorize(() => ({ allowed: false, error: denial }));
    const proxy = proxyWith({ authorize, mcpServers: { fx: fixtureServer() } });
    t.after(() => proxy.close());
    const children = childPids().length;
    const result = await run(proxy, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(!result.ok);
    assert.equal(result.error, denial);
    assert.equal(requests.length, 1);
    const request = requests[0] as CapabilityAuthorizationRequest;
    assert.equal(request.kind, 'mcp-connect');
    assert.equal(request.toolName, 'mcp_connect__fx');
    assert.equal(request.annotations.readOnly, false);
    assert.match(request.preview, /start MCP server "fx"/);
    assert.equal(childPids().length, children, 'the server never started');
    assert.equal(proxy.inventory().servers[0]?.authorized, false);
    assert.match(seen(await run(proxy, { action: 'list' })), /connect denied/);
  });

  it('validates mcp-tool arguments before connecting and returns the schema with a corrected example (CP-CALL-3)', async (t) => {
    const stateDir = tempDir(t);
    await primeCache(stateDir, { fx: fixtureServer() });
    const { requests, authorize } = recordingAuthorize();
    const proxy = proxyWith({ stateDir, authorize, mcpServers: { fx: fixtureServer() } });
    t.after(() => proxy.close());
    const children = childPids().length;
    const invalid = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { msg: 'SECRET-VALUE' },
    });
    assert.ok(!invalid.ok);
    assert.equal(invalid.error.code, 'ARGUMENT_VALIDATION');
    assert.equal(invalid.error.details.remoteDispatched, false);
    const text = seen(invalid);
    assert.match(text, /inside `arguments`/);
    assert.match(
      text,
      /Schema of mcp-tool:fx\/echo \(fingerprint [0-9a-f]{16}\): \{.*"required":\["message"\]/,
    );
    assert.match(
      text,
      /A well-formed call: use_capability\(action="call", capability_id="mcp-tool:fx\/echo", arguments=\{"message":"<message>"\}\)/,
    );
    assert.ok(!text.includes('SECRET-VALUE'), 'the supplied value is never echoed');
    assert.equal(requests.length, 0, 'nothing was asked');
    assert.equal(childPids().length, children, 'nothing was started');

    const valid = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'hi' },
    });
    assert.ok(valid.ok, seen(valid));
    assert.equal(seen(valid), 'echo: hi');
    assert.equal(valid.output.untrusted, true);
    assert.deepEqual(
      requests.map((request) => [request.kind, request.toolName]),
      [
        ['mcp-connect', 'mcp_connect__fx'],
        ['mcp-tool', 'mcp__fx__echo'],
      ],
    );
    const toolRequest = requests[1]!;
    assert.equal(toolRequest.kind, 'mcp-tool');
    assert.deepEqual(toolRequest.annotations, { readOnly: true, destructive: false });
    assert.equal(toolRequest.annotationsTrusted, false, 'an untrusted server only claims its hints');
    if (toolRequest.kind === 'mcp-tool') assert.deepEqual(toolRequest.arguments, { message: 'hi' });
    assert.equal(proxy.serverProcesses().length, 1);

    const again = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'x' },
    });
    assert.ok(again.ok);
    assert.equal(requests.filter((request) => request.kind === 'mcp-connect').length, 1, 'connected once');
  });

  it('passes a trusted server hints as trusted and maps all four (trusted configuration)', async (t) => {
    const { requests, authorize } = recordingAuthorize();
    const proxy = proxyWith({ authorize, mcpServers: { fx: { ...fixtureServer(), trusted: true } } });
    t.after(() => proxy.close());
    const result = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/echo',
      arguments: { message: 'a' },
    });
    assert.ok(result.ok, seen(result));
    const toolRequest = requests.find((request) => request.kind === 'mcp-tool');
    assert.equal(toolRequest?.annotationsTrusted, true);
    assert.deepEqual(proxy.callAnnotations({ action: 'call', capability_id: 'mcp-tool:fx/echo' }), {
      readOnly: true,
      destructive: false,
    });
  });

  it('answers CAPABILITY_UNAVAILABLE for disabled and unconfigured servers without starting anything (CP-CALL-4)', async (t) => {
    const { requests, authorize } = recordingAuthorize();
    const proxy = proxyWith({
      authorize,
      mcpServers: {
        off: { ...fixtureServer(), enabled: false },
        cursorOff: { ...fixtureServer(), disabled: true },
      },
    });
    t.after(() => proxy.close());
    const children = childPids().length;
    for (const capability_id of [
      'mcp-server:off',
      'mcp-tool:off/echo',
      'mcp-server:cursorOff',
      'mcp-server:github',
    ]) {
      const result = await run(proxy, { action: 'call', capability_id, arguments: { message: 'x' } });
      assert.ok(!result.ok, capability_id);
      assert.equal(result.error.code, 'CAPABILITY_UNAVAILABLE', capability_id);
      assert.match(result.error.message, /^capability unavailable: /);
    }
    assert.equal(requests.length, 0);
    assert.equal(childPids().length, children);
  });

  it('answers mcp-tool:<server>/<tool> naming an unconfigured server with a resolution failure and candidates, not CAPABILITY_UNAVAILABLE', async (t) => {
    const stateDir = tempDir(t);
    await primeCache(stateDir, { fixture: fixtureServer() });
    const { requests, authorize } = recordingAuthorize();
    const proxy = proxyWith({ stateDir, authorize, mcpServers: { fixture: fixtureServer() } });
    t.after(() => proxy.close());
    const children = childPids().length;
    const sameTool = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:nowhere/echo',
      arguments: { message: 'x' },
    });
    assert.ok(!sameTool.ok);
    assert.equal(sameTool.error.code, 'CAPABILITY_RESOLUTION_FAILED', seen(sameTool));
    assert.match(
      sameTool.error.toModelText(),
      /code=unknown_mcp_server;.*no configured MCP server has this name \(1 configured\); candidates=mcp-tool:fixture\/echo; retry exactly once with \{"action":"call","capability_id":"mcp-tool:fixture\/echo"\} plus the same `arguments` you sent/,
    );
    assert.ok(!sameTool.error.message.includes('nowhere'), 'the id the model sent is not echoed');
    const closeServer = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:fixtures/qwerty' });
    assert.ok(!closeServer.ok);
    assert.equal(closeServer.error.code, 'CAPABILITY_RESOLUTION_FAILED');
    assert.deepEqual(closeServer.error.details.candidates, ['mcp-server:fixture']);
    assert.equal(closeServer.error.details.retry, undefined, 'no single tool fits, so no retry is offered');
    assert.equal(requests.length, 0, 'nothing was asked');
    assert.equal(childPids().length, children, 'nothing was started');
  });

  it('requires a non-empty reason for decline and rejects an unknown action listing the actions (CP-CALL-5)', async (t) => {
    const proxy = proxyWith({ catalog: builtinCatalog().catalog });
    t.after(() => proxy.close());
    for (const reason of [undefined, '', '   ']) {
      const result = await run(proxy, { action: 'decline', capability_id: 'tool:glob', reason });
      assert.ok(!result.ok);
      assert.equal(result.error.code, 'ARGUMENT_VALIDATION');
      assert.match(result.error.message, /non-empty reason/);
    }
    const declined = await run(proxy, {
      action: 'decline',
      capability_id: 'tool:glob',
      reason: 'ls is enough',
    });
    assert.ok(declined.ok);
    assert.equal(declined.output.details?.capabilityId, 'tool:glob');
    const unknown = await run(proxy, { action: 'explode' });
    assert.ok(!unknown.ok);
    assert.equal(unknown.error.code, 'ARGUMENT_VALIDATION');
    assert.match(unknown.error.message, /one of: call, decline, inspect, list, search/);
    const noId = await run(proxy, { action: 'call' });
    assert.ok(!noId.ok);
    assert.match(noId.error.message, /code=missing_capability_id/);
  });

  it('returns resolution failures with candidates, the exact retry payload when one fits, at most 4 KiB (CP-CALL-6)', async (t) => {
    const stateDir = tempDir(t);
    await primeCache(stateDir, { one: fixtureServer(), two: fixtureServer('--bad-schema') });
    const proxy = proxyWith({
      stateDir,
      mcpServers: { one: fixtureServer(), two: fixtureServer('--bad-schema') },
      catalog: builtinCatalog().catalog,
    });
    t.after(() => proxy.close());
    const children = childPids().length;
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { action: 'inspect', capability_id: 'glob' },
        /code=unknown_capability_reference; remote_dispatched=false\).*retry exactly once with \{"action":"inspect","capability_id":"tool:glob"\}/,
      ],
      [
        { action: 'call', capability_id: 'echo', arguments: { message: 'x' } },
        /code=ambiguous_capability_reference;.*candidates=mcp-tool:one\/echo, mcp-tool:two\/echo/,
      ],
      [
        { action: 'call', capability_id: 'mcp__one__echo', arguments: { message: 'x' } },
        /retry exactly once with \{"action":"call","capability_id":"mcp-tool:one\/echo"\} plus the same `arguments` you sent/,
      ],
      [
        { action: 'inspect', capability_id: 'tool:nothing-like-it' },
        /code=unknown_capability_reference(?!.*candidates)/,
      ],
      [
        { action: 'inspect', capability_id: 'mcp-tool:one/ecko' },
        /offers no tool with this name; candidates=mcp-tool:one\/echo.*retry exactly once/,
      ],
      [
        { action: 'inspect', query: 'regular expression' },
        /code=missing_capability_id.*retry exactly once with \{"action":"inspect","capability_id":"tool:grep"\}/,
      ],
      [{ action: 'inspect', query: 'zebra unicorn' }, /code=unknown_capability_query/],
      [
        { action: 'inspect', capability_id: `tool:${'x'.repeat(20_000)}` },
        /code=unknown_capability_reference/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const result = await run(proxy, args);
      assert.ok(!result.ok, JSON.stringify(args).slice(0, 80));
      assert.equal(result.error.code, 'CAPABILITY_RESOLUTION_FAILED');
      const text = result.error.toModelText();
      assert.match(text, pattern);
      assert.ok(Buffer.byteLength(text) <= 4096, 'at most 4 KiB');
      assert.ok(!text.includes('xxxxxxxxxx'), 'the supplied id is not echoed');
      assert.equal(result.error.details.remoteDispatched, false);
    }
    // The portable spelling resolves to the canonical id.
    const portable = await run(proxy, { action: 'inspect', capability_id: 'mcp/one/echo' });
    assert.ok(portable.ok);
    assert.match(seen(portable), /mcp-tool:one\/echo/);
    // A tool whose schema does not compile keeps no cached schema, but the cache names it (it used to
    // leave it out, so no later session could find or call it: issue 16, "the cache is a hint").
    const bad = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:two/bad-schema' });
    assert.ok(bad.ok, seen(bad));
    assert.match(seen(bad), /input schema did not compile when the list was cached, so none is kept/);
    assert.ok(!seen(bad).includes('Schema (fingerprint'), 'no schema is shown for it');
    assert.equal(childPids().length, children);
  });

  it('dispatches tool:<name> through the host with the capability id and never offers hidden tools (CP-SURF-2)', async (t) => {
    const { catalog } = builtinCatalog();
    const dispatched: unknown[][] = [];
    const proxy = proxyWith({
      catalog,
      dispatchTool: async (name, args, context): Promise<ToolResult> => {
        dispatched.push([name, args, context.capabilityId, context.callId]);
        return textResult(`ran ${name}`);
      },
    });
    t.after(() => proxy.close());
    const list = seen(await run(proxy, { action: 'list' }));
    assert.match(list, /tool:glob: Find files/);
    assert.match(list, /tool:grep: Search file contents/);
    assert.ok(!list.includes('bash_output'), 'hidden aliases are never listed');
    assert.ok(
      !seen(await run(proxy, { action: 'search', query: 'legacy alias job_output' })).includes('bash_output'),
    );
    const called = await run(
      proxy,
      { action: 'call', capability_id: 'tool:glob', arguments: { pattern: '*.ts' } },
      'c-7',
    );
    assert.equal(seen(called), 'ran glob');
    assert.deepEqual(dispatched, [['glob', { pattern: '*.ts' }, 'tool:glob', 'c-7']]);
    const hidden = await run(proxy, { action: 'call', capability_id: 'tool:bash_output', arguments: {} });
    assert.ok(!hidden.ok);
    assert.equal(hidden.error.code, 'CAPABILITY_RESOLUTION_FAILED');
    const inspect = seen(await run(proxy, { action: 'inspect', capability_id: 'tool:glob' }));
    assert.match(inspect, /Schema \(fingerprint [0-9a-f]{16}\): \{"properties":\{"pattern"/);
    assert.deepEqual(proxy.callAnnotations({ action: 'call', capability_id: 'tool:glob' }), {
      readOnly: true,
      destructive: false,
    });
  });

  it('lists and pages session:tool_result only with a bound store, and a clone cannot read its parent results (CP-SURF-3)', async (t) => {
    const bare = proxyWith({});
    assert.ok(!seen(await run(bare, { action: 'list' })).includes('session:tool_result'));
    const unbound = await run(bare, {
      action: 'call',
      capability_id: 'session:tool_result',
      arguments: { tool_call_id: 'x' },
    });
    assert.ok(!unbound.ok);
    assert.equal(unbound.error.code, 'CAPABILITY_UNAVAILABLE');

    const store = createResultStore();
    const proxy = proxyWith({ resultStore: store });
    const child = proxy.clone();
    t.after(async () => {
      await proxy.close();
      store.close();
    });
    const body = `${'line with € and 🙂\n'.repeat(3_000)}end`;
    const { resultRef, sha256 } = store.put({ callId: 'call_42', toolName: 'bash', body });
    assert.match(seen(await run(proxy, { action: 'list' })), /session:tool_result/);
    const inspect = seen(await run(proxy, { action: 'inspect', capability_id: 'session:tool_result' }));
    assert.match(inspect, /limit_max: 24576/);
    let offset = 0;
    let joined = '';
    for (;;) {
      const page = await run(proxy, {
        action: 'call',
        capability_id: 'session:tool_result',
        arguments: { tool_call_id: 'call_42', result_ref: resultRef, offset },
      });
      assert.ok(page.ok, seen(page));
      const text = seen(page);
      const newline = text.indexOf('\n');
      const header = JSON.parse(text.slice(0, newline));
      assert.equal(header.sha256, sha256);
      joined += text.slice(newline + 1);
      if (header.complete) break;
      offset = header.next_offset;
    }
    assert.equal(joined, body);
    const tooBig = await run(proxy, {
      action: 'call',
      capability_id: 'session:tool_result',
      arguments: { tool_call_id: 'call_42', limit: 24_577 },
    });
    assert.ok(!tooBig.ok);
    assert.equal(tooBig.error.code, 'RESULT_RANGE_INVALID');
    const missingId = await run(proxy, {
      action: 'call',
      capability_id: 'session:tool_result',
      arguments: {},
    });
    assert.ok(!missingId.ok);
    assert.equal(missingId.error.code, 'ARGUMENT_VALIDATION');
    assert.match(missingId.error.message, /inside `arguments`/);

    assert.notEqual(child.resultStore, store, 'the clone has its own store');
    const fromChild = await run(child, {
      action: 'call',
      capability_id: 'session:tool_result',
      arguments: { tool_call_id: 'call_42', result_ref: resultRef },
    });
    assert.ok(!fromChild.ok);
    assert.equal(fromChild.error.code, 'RESULT_NOT_FOUND');
    child.resultStore?.put({ callId: 'child_1', toolName: 'bash', body: 'child body' });
    const own = await run(child, {
      action: 'call',
      capability_id: 'session:tool_result',
      arguments: { tool_call_id: 'child_1' },
    });
    assert.ok(own.ok);
    assert.match(seen(own), /child body$/);
    const noStore = proxy.clone({ resultStore: null });
    assert.ok(!seen(await run(noStore, { action: 'list' })).includes('session:tool_result'));
    assert.equal(JSON.stringify(toModelTools([noStore.tool])), JSON.stringify(toModelTools([proxy.tool])));
  });

  it('ranks search hits by name before description, across built-ins and cached MCP tools', async (t) => {
    const stateDir = tempDir(t);
    await primeCache(stateDir, { fx: fixtureServer() });
    const proxy = proxyWith({
      stateDir,
      mcpServers: { fx: fixtureServer() },
      catalog: builtinCatalog().catalog,
    });
    t.after(() => proxy.close());
    const echo = seen(await run(proxy, { action: 'search', query: 'echo' }));
    assert.match(
      echo.split('\n')[1] ?? '',
      /^- mcp-tool:fx\/echo: Echoes the message back\. \(cached schema; server not started\)$/,
    );
    const files = seen(await run(proxy, { action: 'search', query: 'files glob' }));
    assert.match(files.split('\n')[1] ?? '', /^- tool:glob:/);
    const none = await run(proxy, { action: 'search', query: 'qwertyuiop' });
    assert.ok(none.ok);
    assert.match(seen(none), /No capability matches/);
    const empty = await run(proxy, { action: 'search', query: '  ' });
    assert.ok(!empty.ok);
  });

  it('reports call annotations for the scheduler without starting anything', async (t) => {
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer() }, resultStore: createResultStore() });
    t.after(() => proxy.close());
    const children = childPids().length;
    assert.deepEqual(proxy.callAnnotations({ action: 'list' }), { readOnly: true, destructive: false });
    assert.deepEqual(proxy.callAnnotations({ action: 'call', capability_id: 'session:tool_result' }), {
      readOnly: true,
      destructive: false,
    });
    assert.deepEqual(proxy.callAnnotations({ action: 'call', capability_id: 'mcp-server:fx' }), {
      readOnly: false,
      destructive: false,
    });
    assert.deepEqual(proxy.callAnnotations({ action: 'call', capability_id: 'mcp-tool:fx/echo' }), {});
    assert.equal(childPids().length, children);
  });

  it('sends its package version as the MCP client version, not a hard-coded one', async (t) => {
    const proxy = proxyWith({ mcpServers: { fx: fixtureServer('--client-info') } });
    t.after(() => proxy.close());
    const result = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/client-info',
      arguments: {},
    });
    assert.ok(result.ok, seen(result));
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.deepEqual(JSON.parse(seen(result)), { name: 'toolhost', version });
  });

  it('throws CONFIG_INVALID for an invalid mcpServers entry', () => {
    assert.throws(
      () => proxyWith({ mcpServers: { bad: { url: 'ftp://example.com' } } }),
      (error: unknown) => ToolhostError.isInstance(error) && error.code === 'CONFIG_INVALID',
    );
  });
});
