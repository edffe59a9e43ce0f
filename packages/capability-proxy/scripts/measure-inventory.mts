// Measures use_capability list / inspect / search with 50 configured MCP servers whose schemas are
// cached, against baselines run side by side, and proves that no process starts.
//   pnpm --filter @toolhost/capability-proxy measure:inventory
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createArgumentValidator,
  type ToolCallContext,
  ToolhostError,
  textResult,
} from '@toolhost/contracts';
import {
  createCapabilityProxy,
  type McpServersConfig,
  parseMcpServers,
  schemaCachePath,
} from '../src/index.js';
import { normalizeMcpTools, writeSchemaCache } from '../src/mcp-tools.js';

const require = createRequire(import.meta.url);
const bin = (name: string) => require.resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
const stateDir = mkdtempSync(join(tmpdir(), 'measure-inventory-'));
const context = (callId: string): ToolCallContext => ({
  callId,
  toolName: 'use_capability',
  signal: new AbortController().signal,
  invocation: { kind: 'direct' },
});

function children(): number {
  let count = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) count++;
    } catch {
      // gone
    }
  }
  return count;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(runs: number, fn: () => unknown): Promise<{ median: number; min: number; max: number }> {
  const samples: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { median: median(samples), min: Math.min(...samples), max: Math.max(...samples) };
}

try {
  // 1. Real tool lists: connect the three reference servers once, through a proxy that caches them.
  const kinds = {
    everything: { command: process.execPath, args: [bin('everything'), 'stdio'] },
    filesystem: { command: process.execPath, args: [bin('filesystem'), stateDir] },
    memory: { command: process.execPath, args: [bin('memory')] },
  };
  const seedState = mkdtempSync(join(tmpdir(), 'measure-seed-'));
  const seed = createCapabilityProxy({
    stateDir: seedState,
    mcpServers: kinds,
    authorize: async () => ({ allowed: true }),
    timeouts: { handshakeMs: 30_000 },
  });
  const names = Object.keys(kinds) as (keyof typeof kinds)[];
  for (const name of names) {
    const connected = await seed.tool.execute(
      { action: 'call', capability_id: `mcp-server:${name}` },
      context(name),
    );
    if (!connected.ok) throw connected.error;
  }
  await seed.close();
  const seedServers = parseMcpServers(kinds);
  if (!seedServers.ok) throw seedServers.error;
  const liveTools: Record<string, unknown[]> = {};
  for (const server of seedServers.value) {
    liveTools[server.name] = JSON.parse(readFileSync(schemaCachePath(seedState, server), 'utf8')).tools;
  }
  rmSync(seedState, { recursive: true, force: true });

  // 2. Fifty servers, each a variant of one of the three, with a cache file keyed to its own config.
  const mcpServers: McpServersConfig = {};
  for (let index = 0; index < 50; index++) {
    const kind = names[index % names.length]!;
    (mcpServers as Record<string, unknown>)[`${kind}-${String(index).padStart(2, '0')}`] = {
      ...kinds[kind],
      args: [...kinds[kind].args, `--instance=${index}`],
      env: { API_TOKEN: `secret-${index}` },
    };
  }
  const parsed = parseMcpServers(mcpServers);
  if (!parsed.ok) throw parsed.error;
  const validator = createArgumentValidator();
  let toolCount = 0;
  for (const server of parsed.value) {
    const { tools } = normalizeMcpTools(liveTools[server.name.split('-')[0]!] ?? [], validator);
    toolCount += tools.length;
    writeSchemaCache(stateDir, server, tools);
  }

  // 3. Measure on a fresh proxy (cold: the first call reads the 50 cache files).
  const before = children();
  // Every connect is refused: if anything tried to start a server, it could not.
  const refusal = new ToolhostError({ code: 'PERMISSION_DENIED', message: 'the measurement starts nothing' });
  const proxy = createCapabilityProxy({
    stateDir,
    mcpServers,
    authorize: async () => ({ allowed: false, error: refusal }),
  });
  // Cold: a fresh proxy's first list reads and parses the 50 cache files (median over 10 fresh proxies).
  const fresh = Array.from({ length: 10 }, () =>
    createCapabilityProxy({
      stateDir,
      mcpServers,
      authorize: async () => ({ allowed: false, error: refusal }),
    }),
  );
  let next = 0;
  const cold = await time(10, () => fresh[next++]!.tool.execute({ action: 'list' }, context('cold')));
  for (const other of fresh) await other.close();
  const list = await time(200, () => proxy.tool.execute({ action: 'list' }, context('list')));
  const inspectServer = await time(200, () =>
    proxy.tool.execute({ action: 'inspect', capability_id: 'mcp-server:everything-00' }, context('i1')),
  );
  const inspectTool = await time(200, () =>
    proxy.tool.execute(
      { action: 'inspect', capability_id: 'mcp-tool:filesystem-01/read_text_file' },
      context('i2'),
    ),
  );
  const search = await time(200, () =>
    proxy.tool.execute({ action: 'search', query: 'read file contents' }, context('s')),
  );
  // Baselines, side by side: reading and parsing the 50 cache files (the least any cache-backed list
  // must do once), and a no-op tool call through the same argument validation.
  const cacheFiles = readdirSync(join(stateDir, 'mcp-cache')).map((file) =>
    join(stateDir, 'mcp-cache', file),
  );
  const rawRead = await time(50, () => {
    for (const file of cacheFiles) JSON.parse(readFileSync(file, 'utf8'));
  });
  const noopValidator = createArgumentValidator();
  const noop = await time(200, async () => {
    noopValidator.validate({
      toolName: 'noop',
      source: 'builtin',
      schema: { type: 'object', properties: { action: { type: 'string' } } },
      arguments: { action: 'list' },
    });
    return textResult('ok');
  });
  const after = children();
  const result = {
    servers: parsed.value.length,
    cachedTools: toolCount,
    childProcessesBefore: before,
    childProcessesAfter: after,
    serverProcesses: proxy.serverProcesses().length,
    ms: {
      coldList: cold,
      list,
      inspectServer,
      inspectTool,
      search,
      baselineRawCacheRead: rawRead,
      baselineNoopCall: noop,
    },
    ratios: {
      listVsRawCacheRead: list.median / rawRead.median,
      coldListVsRawCacheRead: cold.median / rawRead.median,
      inspectToolVsNoopCall: inspectTool.median / noop.median,
    },
  };
  console.log(JSON.stringify(result, null, 2));
  await proxy.close();
  if (after !== before) process.exitCode = 1;
} finally {
  if (process.env.KEEP_STATE) console.log('state kept in', stateDir);
  else rmSync(stateDir, { recursive: true, force: true });
}
