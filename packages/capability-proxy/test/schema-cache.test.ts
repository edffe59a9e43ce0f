import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ToolhostError } from '@toolhost/contracts';
import {
  type CapabilityPolicyTarget,
  createCapabilityProxy,
  type McpServersConfig,
  parseMcpServers,
  schemaCachePath,
} from '../src/index.js';
import { mapAnnotations } from '../src/mcp-tools.js';
import {
  childPids,
  fixtureServer,
  GENEROUS_TIMEOUTS,
  recordingAuthorize,
  run,
  seen,
  tempDir,
} from './helpers.js';

function proxyFor(stateDir: string, mcpServers: McpServersConfig) {
  return createCapabilityProxy({
    stateDir,
    mcpServers,
    authorize: async () => ({ allowed: true }),
    timeouts: GENEROUS_TIMEOUTS,
  });
}

describe('schemaCachePath', () => {
  it('holds an atomically written 0600 cache with the key and no env value, valid schemas only (CP-CACHE-1)', async (t) => {
    const stateDir = tempDir(t);
    const mcpServers = { fx: { ...fixtureServer('--bad-schema'), env: { API_KEY: 'super-secret-value' } } };
    const proxy = proxyFor(stateDir, mcpServers);
    const connected = await run(proxy, { action: 'call', capability_id: 'mcp-server:fx' });
    assert.ok(connected.ok, seen(connected));
    assert.match(
      seen(connected),
      /mcp-tool:fx\/bad-schema/,
      'a live tool with a broken schema is still offered',
    );
    // CP-CACHE-2: a third-party schema that does not compile is not the model's fault: called unvalidated.
    const unvalidated = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/bad-schema',
      arguments: { x: 1 },
    });
    assert.ok(unvalidated.ok, seen(unvalidated));
    assert.equal(seen(unvalidated), 'bad-schema called without validation');
    await proxy.close();
    const parsed = parseMcpServers(mcpServers);
    assert.ok(parsed.ok);
    const server = parsed.value[0]!;
    const file = schemaCachePath(stateDir, server);
    assert.equal(file, join(stateDir, 'mcp-cache', `${server.slug}.json`));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(stateDir, 'mcp-cache')).mode & 0o777, 0o700);
    assert.deepEqual(
      readdirSync(join(stateDir, 'mcp-cache')),
      [`${server.slug}.json`],
      'no temp file is left',
    );
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes('super-secret-value'));
    const cache = JSON.parse(text);
    assert.equal(cache.key, server.cacheKey);
    assert.equal(cache.version, 1);
    const names = cache.tools.map((tool: { name: string }) => tool.name);
    assert.ok(names.includes('echo'));
    assert.ok(!names.includes('bad-schema'), 'an invalid schema is filtered out of the cache');
    assert.deepEqual(cache.tools.find((tool: { name: string }) => tool.name === 'echo').annotations, {
      readOnly: true,
      destructive: false,
    });

    // A new secret value keeps the cache; other args do not.
    const rotated = proxyFor(stateDir, { fx: { ...mcpServers.fx, env: { API_KEY: 'rotated' } } });
    t.after(() => rotated.close());
    assert.match(
      seen(await run(rotated, { action: 'list' })),
      /fx: configured, not connected; \d+ tools \(cached schema/,
    );
    const changed = proxyFor(stateDir, { fx: { ...fixtureServer('--banner'), env: { API_KEY: 'x' } } });
    t.after(() => changed.close());
    assert.match(seen(await run(changed, { action: 'list' })), /tools unknown until it connects/);
  });

  it('ignores a corrupt or foreign cache file without starting anything (CP-CACHE-1)', async (t) => {
    const stateDir = tempDir(t);
    const mcpServers = { fx: fixtureServer() };
    const parsed = parseMcpServers(mcpServers);
    assert.ok(parsed.ok);
    const file = schemaCachePath(stateDir, parsed.value[0]!);
    const children = childPids().length;
    for (const content of ['{ not json', '[]', JSON.stringify({ version: 1, key: 'other', tools: [] })]) {
      mkdirSync(join(stateDir, 'mcp-cache'), { recursive: true });
      writeFileSync(file, content);
      const fresh = proxyFor(stateDir, mcpServers);
      t.after(() => fresh.close());
      const inspect = await run(fresh, { action: 'inspect', capability_id: 'mcp-server:fx' });
      assert.ok(inspect.ok);
      assert.match(seen(inspect), /no cached schema exists/);
    }
    assert.equal(childPids().length, children);
  });

  it('a cold list counts cached tools and their refusals as the full normalisation does, without capturing a stack per refused tool (issue 25)', async (t) => {
    const stateDir = tempDir(t);
    const mcpServers = { fx: fixtureServer() };
    const parsed = parseMcpServers(mcpServers);
    assert.ok(parsed.ok);
    const server = parsed.value[0]!;
    const schema = { type: 'object', properties: { text: { type: 'string' } } };
    const tool = (name: unknown, annotations: Record<string, boolean>, inputSchema: unknown = schema) => ({
      name,
      description: `  the ${String(name)} tool  `,
      inputSchema,
      schemaHash: 'a'.repeat(64),
      annotations,
    });
    // What normalisation keeps: objects with a valid, first-seen name (sorted); it drops the rest.
    const tools = [
      tool('write', { readOnlyHint: false }),
      tool('read', { readOnlyHint: true }),
      tool('read', { readOnlyHint: false }),
      tool('bad name', { readOnlyHint: true }),
      tool(7, { readOnlyHint: true }),
      'not an object',
      tool('odd-schema', { readOnlyHint: false }, 'not an object'),
      tool('delete', { destructiveHint: true }),
    ];
    mkdirSync(join(stateDir, 'mcp-cache'), { recursive: true, mode: 0o700 });
    writeFileSync(
      schemaCachePath(stateDir, server),
      JSON.stringify({ version: 1, key: server.cacheKey, server: server.name, tools }),
    );
    const limits: number[] = [];
    const stackTraceLimit = Error.stackTraceLimit;
    const children = childPids().length;
    const proxy = createCapabilityProxy({
      stateDir,
      mcpServers,
      authorize: async () => ({ allowed: true }),
      timeouts: GENEROUS_TIMEOUTS,
      // Refuses what is not declared read-only; records the stack trace limit each question ran under.
      refusal: (target) => {
        limits.push(Error.stackTraceLimit);
        if (target.kind !== 'mcp-tool' || target.annotations?.readOnly === true) return undefined;
        return new ToolhostError({ code: 'PERMISSION_DENIED', message: `${target.toolName} may write` });
      },
    });
    t.after(() => proxy.close());
    const list = await run(proxy, { action: 'list' });
    assert.ok(list.ok, seen(list));
    assert.match(seen(list), /mcp-server:fx: .*; 4 tools \(cached schema; server not started\)/);
    assert.match(seen(list), /; 3 of them refused in this session/);
    assert.ok(limits.length >= 4, 'the policy was asked about every cached tool');
    assert.deepEqual(
      limits.filter((limit) => limit !== 0),
      [],
      'list only counts refusals: no stack trace is captured for them',
    );
    // The full normalisation, when something needs it, keeps the same tools.
    const inventory = proxy.inventory().servers[0];
    assert.equal(inventory?.toolCount, 4);
    assert.equal(inventory?.refusedTools, 3);
    const inspect = await run(proxy, { action: 'inspect', capability_id: 'mcp-server:fx' });
    assert.ok(inspect.ok, seen(inspect));
    for (const name of ['delete', 'odd-schema', 'read', 'write'])
      assert.match(seen(inspect), new RegExp(`mcp-tool:fx/${name}\\b`));
    assert.doesNotMatch(seen(inspect), /bad name/);
    assert.equal(Error.stackTraceLimit, stackTraceLimit, 'the limit is restored after each question');
    assert.equal(childPids().length, children, 'nothing was started');
  });
});

describe('mapAnnotations', () => {
  it('maps MCP hints onto the four contract hints and leaves absent ones unknown', () => {
    assert.deepEqual(mapAnnotations({ readOnlyHint: true, openWorldHint: false, title: 'x' }), {
      readOnly: true,
      openWorld: false,
    });
    assert.deepEqual(
      mapAnnotations({ destructiveHint: true, idempotentHint: 'yes' }),
      { destructive: true },
      'a hint that is not a boolean stays unknown',
    );
    assert.deepEqual(mapAnnotations(undefined), {});
  });
});

describe('the schema cache (a hint, never a gate)', () => {
  it('calls a tool its server added after the cache was written, by connecting under mcp_connect__<server>', async (t) => {
    const stateDir = tempDir(t);
    // The cache key holds env variable names, not values: the same cache serves both sessions.
    const before = proxyFor(stateDir, { fx: { ...fixtureServer(), env: { MISBEHAVING_EXTRA_TOOLS: '' } } });
    assert.ok((await run(before, { action: 'call', capability_id: 'mcp-server:fx' })).ok);
    await before.close();
    const { requests, authorize } = recordingAuthorize();
    const proxy = createCapabilityProxy({
      stateDir,
      mcpServers: { fx: { ...fixtureServer(), env: { MISBEHAVING_EXTRA_TOOLS: 'added_later' } } },
      authorize,
      timeouts: GENEROUS_TIMEOUTS,
    });
    t.after(() => proxy.close());
    const children = childPids().length;
    const list = seen(await run(proxy, { action: 'list' }));
    assert.match(
      list,
      /mcp-server:fx: configured, not connected; \d+ tools \(cached schema; server not started\), saved \d{4}-\d\d-\d\d \d\d:\d\d UTC and possibly stale: a tool missing from it is still found by calling it/,
    );
    const search = seen(await run(proxy, { action: 'search', query: 'added_later' }));
    assert.match(search, /^No capability matches these words/);
    assert.match(
      search,
      /From schema caches, possibly stale: mcp-server:fx \(saved [^)]+\); a tool missing from a cache is still found by calling mcp-tool:<server>\/<tool>, which connects the server\./,
    );
    const inspect = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:fx/added_later' });
    assert.ok(!inspect.ok, 'inspect never connects, so the cache answers it');
    assert.match(
      inspect.error.message,
      /possibly stale; action "call" connects the server and checks the live list/,
    );
    assert.equal(childPids().length, children, 'list, search and inspect started nothing');
    const called = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/added_later',
      arguments: {},
    });
    assert.ok(called.ok, seen(called));
    assert.equal(seen(called), 'extra tool added_later');
    assert.deepEqual(
      requests.map((request) => `${request.kind}:${request.toolName}`),
      ['mcp-connect:mcp_connect__fx', 'mcp-tool:mcp__fx__added_later'],
    );
    // Once connected, the live list is the authority: a name it lacks is a resolution failure.
    const wrong = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/added_latr',
      arguments: {},
    });
    assert.ok(!wrong.ok);
    assert.equal(wrong.error.code, 'CAPABILITY_RESOLUTION_FAILED');
    assert.match(wrong.error.toModelText(), /candidates=mcp-tool:fx\/added_later/);
  });

  it('finds and calls a tool whose schema does not compile in a later session (unvalidated), where it used to be hidden', async (t) => {
    const stateDir = tempDir(t);
    const mcpServers = { fx: fixtureServer('--bad-schema') };
    const first = proxyFor(stateDir, mcpServers);
    assert.ok((await run(first, { action: 'call', capability_id: 'mcp-server:fx' })).ok);
    await first.close();
    const { requests, authorize } = recordingAuthorize();
    const proxy = createCapabilityProxy({ stateDir, mcpServers, authorize, timeouts: GENEROUS_TIMEOUTS });
    t.after(() => proxy.close());
    const children = childPids().length;
    const search = seen(await run(proxy, { action: 'search', query: 'bad schema' }));
    assert.match(
      search,
      /^- mcp-tool:fx\/bad-schema: .+ \(server not started; its schema did not compile, so none is cached: the live one decides\)$/m,
    );
    const inspect = await run(proxy, { action: 'inspect', capability_id: 'mcp-server:fx' });
    assert.match(seen(inspect), /mcp-tool:fx\/bad-schema\n.*\nNo cached schema: it did not compile/);
    assert.equal(childPids().length, children);
    const called = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:fx/bad-schema',
      arguments: { x: 1 },
    });
    assert.ok(called.ok, seen(called));
    assert.equal(seen(called), 'bad-schema called without validation');
    assert.deepEqual(
      requests.map((request) => request.toolName),
      ['mcp_connect__fx', 'mcp__fx__bad-schema'],
    );
  });

  it('a list asks the yes-or-no refusal and builds no refusal error, and inspect still gets the refusal itself (issue 25 target 6)', async (t) => {
    const stateDir = tempDir(t);
    const mcpServers = { fx: fixtureServer() };
    const parsed = parseMcpServers(mcpServers);
    assert.ok(parsed.ok);
    const server = parsed.value[0]!;
    const schema = { type: 'object', properties: { text: { type: 'string' } } };
    const tools = ['alpha', 'beta', 'gamma', 'delta'].map((name, index) => ({
      name,
      description: `the ${name} tool`,
      inputSchema: schema,
      schemaHash: 'a'.repeat(64),
      annotations: { readOnlyHint: index === 0 },
    }));
    mkdirSync(join(stateDir, 'mcp-cache'), { recursive: true, mode: 0o700 });
    writeFileSync(
      schemaCachePath(stateDir, server),
      JSON.stringify({ version: 1, key: server.cacheKey, server: server.name, tools }),
    );
    const mayWrite = (target: CapabilityPolicyTarget) =>
      target.kind === 'mcp-tool' && target.annotations?.readOnly !== true;
    let errorsBuilt = 0;
    let questions = 0;
    const children = childPids().length;
    const proxy = createCapabilityProxy({
      stateDir,
      mcpServers,
      authorize: async () => ({ allowed: true }),
      timeouts: GENEROUS_TIMEOUTS,
      refusal: (target) => {
        if (!mayWrite(target)) return undefined;
        errorsBuilt += 1;
        return new ToolhostError({ code: 'PERMISSION_DENIED', message: 'this tool may write' });
      },
      refuses: (target) => {
        questions += 1;
        return mayWrite(target);
      },
    });
    t.after(() => proxy.close());
    const list = await run(proxy, { action: 'list' });
    assert.ok(list.ok, seen(list));
    assert.match(seen(list), /; 4 tools \(cached schema; server not started\)/);
    assert.match(seen(list), /; 3 of them refused in this session/);
    assert.ok(questions >= 4, 'the yes-or-no refusal was asked about every cached tool');
    assert.equal(errorsBuilt, 0, 'list built a refusal error only to count it');
    // A clone with its own refusal and no yes-or-no form must not answer with the parent's.
    const child = proxy.clone({ refusal: () => undefined, resultStore: null });
    const childList = await run(child, { action: 'list' });
    assert.ok(childList.ok, seen(childList));
    assert.doesNotMatch(seen(childList), /refused in this session/);
    // inspect shows the refusal's own text, so it asks the refusal itself.
    const inspect = await run(proxy, { action: 'inspect', capability_id: 'mcp-tool:fx/beta' });
    assert.ok(inspect.ok, seen(inspect));
    assert.match(seen(inspect), /this tool may write/);
    assert.ok(errorsBuilt >= 1);
    assert.equal(childPids().length, children, 'nothing was started');
  });
});
