// Benchmark 6: use_capability list and inspect through the Host with 50 configured MCP servers whose
// schemas are cached, against reading the cache files raw; and proof that no server process started.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createHost, type DispatchResult, type Host } from '@toolhost/boot';
import { createCapabilityProxy, parseMcpServers, schemaCachePath } from '@toolhost/capability-proxy';
import type { Benchmark, BenchmarkContext, BenchmarkMeasurement } from '../benchmark-types.js';
import { describeStats, figure } from '../figures.js';
import { descendantPids } from '../processes.js';
import { interleave, milliseconds, type Stats, summarize } from '../stats.js';
import { childScript } from '../workspace.js';

const TARGET_MS = 10;
const LABELS: Record<string, string> = {
  'cold-list': 'list with the caches not yet read',
  'cold-inspect': 'inspect with the caches not yet read',
  'warm-list': 'warm list',
  'warm-inspect-server': 'warm inspect of a server',
  'warm-inspect-tool': 'warm inspect of a tool',
};
const require = createRequire(import.meta.url);

type Kind = 'everything' | 'filesystem' | 'memory';

function markerLines(marker: string): number {
  if (!existsSync(marker)) return 0;
  return readFileSync(marker, 'utf8')
    .split('\n')
    .filter((line) => line !== '').length;
}

function expectOk(result: DispatchResult, what: string): DispatchResult {
  if (result.status !== 'ok') throw new Error(`${what} failed: ${result.output.slice(0, 400)}`);
  return result;
}

async function run(context: BenchmarkContext): Promise<BenchmarkMeasurement> {
  const serverCount = context.quick ? 5 : 50;
  const kinds: readonly Kind[] = context.quick ? ['memory'] : ['everything', 'filesystem', 'memory'];
  const rounds = context.quick ? 2 : 9;
  const warmCalls = context.quick ? 5 : 50;
  const root = join(context.tempDir, 'project');
  const seedState = join(context.tempDir, 'seed-state');
  const stateDir = join(context.tempDir, 'state');
  mkdirSync(root);
  writeFileSync(join(root, 'small.txt'), 'one\n');
  const marker = join(context.tempDir, 'server-starts.log');
  const wrapper = childScript('mcp-start-marker.mjs');
  const serverArgs: Record<Kind, string[]> = {
    everything: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    filesystem: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), root],
    memory: [require.resolve('@modelcontextprotocol/server-memory/dist/index.js')],
  };
  const configOf = (kind: Kind) => ({
    command: process.execPath,
    args: [wrapper, marker, ...serverArgs[kind]],
  });

  // 1. Real schemas: start one real server of each kind once (through the marker), so its tool list is
  //    cached by the capability proxy itself.
  const seedConfig = Object.fromEntries(kinds.map((kind) => [kind, configOf(kind)]));
  const seed = createCapabilityProxy({
    stateDir: seedState,
    mcpServers: seedConfig,
    authorize: async () => ({ allowed: true }),
    timeouts: { handshakeMs: 60_000 },
  });
  try {
    for (const kind of kinds) {
      context.log(`caching the real tool list of server-${kind}`);
      const connected = await seed.tool.execute(
        { action: 'call', capability_id: `mcp-server:${kind}` },
        {
          callId: kind,
          toolName: 'use_capability',
          signal: new AbortController().signal,
          invocation: { kind: 'direct' },
        },
      );
      if (!connected.ok) throw new Error(`seeding ${kind}: ${connected.error.toModelText()}`);
    }
  } finally {
    await seed.close();
  }
  const seededStarts = markerLines(marker);
  if (seededStarts !== kinds.length) {
    throw new Error(`the start marker recorded ${seededStarts} starts for ${kinds.length} real servers`);
  }
  const seedServers = parseMcpServers(seedConfig);
  if (!seedServers.ok) throw seedServers.error;
  const seedCaches = new Map<string, { tools: { name: string }[] } & Record<string, unknown>>();
  for (const server of seedServers.value) {
    seedCaches.set(server.name, JSON.parse(readFileSync(schemaCachePath(seedState, server), 'utf8')));
  }

  // 2. The measured configuration: N servers (the kinds in turn), each with its own cache file. A
  //    server's cache is keyed to its own configuration, so each real cache is re-keyed to the server
  //    that reuses it (only `key` and `server` change; the tools are the real ones).
  const mcpServers: Record<string, { command: string; args: string[] }> = {};
  const kindOf = new Map<string, Kind>();
  for (let index = 0; index < serverCount; index += 1) {
    const kind = kinds[index % kinds.length]!;
    const name = `${kind}-${String(index).padStart(2, '0')}`;
    mcpServers[name] = configOf(kind);
    kindOf.set(name, kind);
  }
  const measured = parseMcpServers(mcpServers);
  if (!measured.ok) throw measured.error;
  mkdirSync(join(stateDir, 'mcp-cache'), { recursive: true, mode: 0o700 });
  let cachedTools = 0;
  const cacheFiles: string[] = [];
  for (const server of measured.value) {
    const cache = seedCaches.get(kindOf.get(server.name)!)!;
    const file = schemaCachePath(stateDir, server);
    writeFileSync(file, `${JSON.stringify({ ...cache, key: server.cacheKey, server: server.name })}\n`, {
      mode: 0o600,
    });
    cacheFiles.push(file);
    cachedTools += cache.tools.length;
  }
  const firstServer = measured.value[0]!.name;
  const firstTool = seedCaches.get(kindOf.get(firstServer)!)!.tools[0]!.name;
  const inspectServer = { action: 'inspect', capability_id: `mcp-server:${firstServer}` };
  const inspectTool = { action: 'inspect', capability_id: `mcp-tool:${firstServer}/${firstTool}` };

  const hostOptions = { root, config: { mcpServers }, stateDir, sandbox: 'read_only' } as const;
  const descendantsBefore = descendantPids();
  const maxDescendants: number[] = [];
  const sampleDescendants = () => {
    const now = descendantPids();
    if (now) maxDescendants.push(now.length);
  };
  const use = (host: Host, args: Record<string, unknown>) =>
    host.dispatch({ id: 'u', name: 'use_capability', arguments: args });

  const warmHost = await createHost(hostOptions);
  try {
    // 3. The answers come from the caches: every server listed with its cached tools, the inspected
    //    server's and tool's schemas marked as cached.
    const list = expectOk(await use(warmHost, { action: 'list' }), 'list').output;
    const cachedLines = list
      .split('\n')
      .filter((line) => line.includes('(cached schema; server not started)'));
    if (cachedLines.length !== serverCount) {
      throw new Error(`list shows ${cachedLines.length} of ${serverCount} servers with a cached schema`);
    }
    const server = expectOk(await use(warmHost, inspectServer), 'inspect server');
    if (server.details?.toolSource !== 'cached') throw new Error('inspect did not answer from the cache');
    const tool = expectOk(await use(warmHost, inspectTool), 'inspect tool');
    if (!tool.output.includes('(from cached schema; server not started)')) {
      throw new Error('inspect of a tool did not answer from the cache');
    }

    context.log(`${rounds} rounds: cold list, cold inspect, ${warmCalls} warm calls of each, raw cache read`);
    const createMs: number[] = [];
    // A fresh Host; `afterFirstCall`: it serves one small read first (untimed), so the timed call pays
    // for reading the caches but not for the Host's own first-dispatch start-up.
    const cold = async (
      args: Record<string, unknown>,
      options: { afterFirstCall?: boolean; servers?: boolean } = {},
    ) => {
      let host: Host | undefined;
      const created = await milliseconds(async () => {
        host = await createHost(options.servers === false ? { ...hostOptions, config: {} } : hostOptions);
      });
      if (options.servers !== false) createMs.push(created);
      try {
        if (options.afterFirstCall) {
          expectOk(
            await host!.dispatch({ id: 'w', name: 'read_file', arguments: { path: 'small.txt', limit: 1 } }),
            'the first call',
          );
        }
        let result: DispatchResult | undefined;
        const ms = await milliseconds(async () => {
          result = await use(host!, args);
        });
        expectOk(result!, 'cold call');
        return ms;
      } finally {
        await host!.close();
        sampleDescendants();
      }
    };
    const warm = async (args: Record<string, unknown>) => {
      const ms = await milliseconds(async () => {
        for (let index = 0; index < warmCalls; index += 1) await use(warmHost, args);
      });
      sampleDescendants();
      return ms / warmCalls;
    };
    const samples = await interleave({
      rounds,
      contenders: [
        {
          name: 'raw',
          run: () => {
            const started = process.hrtime.bigint();
            for (const file of cacheFiles) JSON.parse(readFileSync(file, 'utf8'));
            return Number(process.hrtime.bigint() - started) / 1e6;
          },
        },
        { name: 'first-list', run: () => cold({ action: 'list' }) },
        { name: 'first-list-no-servers', run: () => cold({ action: 'list' }, { servers: false }) },
        { name: 'cold-list', run: () => cold({ action: 'list' }, { afterFirstCall: true }) },
        { name: 'cold-inspect', run: () => cold(inspectServer, { afterFirstCall: true }) },
        { name: 'warm-list', run: () => warm({ action: 'list' }) },
        { name: 'warm-inspect-server', run: () => warm(inspectServer) },
        { name: 'warm-inspect-tool', run: () => warm(inspectTool) },
      ],
    });
    const descendantsAfter = descendantPids();
    const startsAfter = markerLines(marker);
    const newStarts = startsAfter - seededStarts;
    const processCheck =
      descendantsBefore === undefined || descendantsAfter === undefined
        ? 'child processes could not be counted here (no /proc)'
        : `child processes of the bench process: ${descendantsBefore.length} before, at most ${Math.max(0, ...maxDescendants)} while measuring, ${descendantsAfter.length} after`;
    if (newStarts !== 0) throw new Error(`${newStarts} MCP server processes started during list/inspect`);
    if (descendantsAfter !== undefined && descendantsAfter.length > (descendantsBefore?.length ?? 0)) {
      throw new Error(`child processes grew from ${descendantsBefore?.length} to ${descendantsAfter.length}`);
    }

    const raw = samples.get('raw')!;
    const against = { label: `reading + parsing the ${serverCount} cache files`, samples: raw };
    const names = ['cold-list', 'cold-inspect', 'warm-list', 'warm-inspect-server', 'warm-inspect-tool'];
    const stats = new Map<string, Stats>(
      [...names, 'first-list', 'first-list-no-servers'].map((name) => [name, summarize(samples.get(name)!)]),
    );
    const worstName = names.reduce((a, b) => (stats.get(b)!.median > stats.get(a)!.median ? b : a));
    const worst = stats.get(worstName)!;
    const met = worst.median < TARGET_MS && newStarts === 0;
    const first = stats.get('first-list')!;
    const firstMet = first.median < TARGET_MS && newStarts === 0;
    const bare = stats.get('first-list-no-servers')!;
    return {
      measured: `\`use_capability\` dispatched through a Host configured with ${serverCount} stdio MCP servers (${kinds.map((kind) => `server-${kind}`).join(', ')} in turn) whose tool schemas are cached in the state directory (${cachedTools} tools in all): \`list\`, \`inspect mcp-server:${firstServer}\` and \`inspect mcp-tool:${firstServer}/${firstTool}\`. "Caches not yet read" = a freshly created Host that has served one unrelated call (so its own start-up is paid) and now needs the inventory; "first call" = the very first dispatch of a new Host; warm = the mean of ${warmCalls} calls on one Host.`,
      baseline: `Reading and \`JSON.parse\`-ing the ${serverCount} cache files in the same process (the least any cache-backed answer must do once).`,
      setup: `${rounds} rounds (+1 warm-up), interleaved (start rotated); the caches were written from the real tool lists of ${kinds.length} real server start(s) before measuring`,
      figures: [
        figure(`read + parse ${serverCount} cache files (baseline)`, 'ms', raw, { baseline: true }),
        figure('list, first call of a new Host', 'ms', samples.get('first-list')!, { against }),
        figure(
          'list, first call of a new Host with no MCP servers configured',
          'ms',
          samples.get('first-list-no-servers')!,
          { against },
        ),
        figure(
          'list, caches not yet read (the Host served one call before)',
          'ms',
          samples.get('cold-list')!,
          {
            against,
          },
        ),
        figure('inspect mcp-server, caches not yet read', 'ms', samples.get('cold-inspect')!, { against }),
        figure('list, warm', 'ms', samples.get('warm-list')!, { against }),
        figure('inspect mcp-server, warm', 'ms', samples.get('warm-inspect-server')!, { against }),
        figure('inspect mcp-tool, warm', 'ms', samples.get('warm-inspect-tool')!, { against }),
        figure('createHost with the servers configured (not part of the calls)', 'ms', createMs),
      ],
      memory: [],
      checks: [
        `list shows all ${serverCount} servers with "(cached schema; server not started)"; inspect answers from the cache`,
        `every server is configured through a start marker: it recorded exactly the ${seededStarts} seeding start(s) and ${newStarts} start(s) during the measurement`,
        processCheck,
      ],
      targets: [
        {
          target: `capability list/inspect under ${TARGET_MS} ms with zero processes`,
          measured: `slowest: ${LABELS[worstName]} ${describeStats(worst, 'ms')}; ${newStarts} server processes started`,
          met,
          limitedBy:
            'reading and parsing every cache file once per Host (the baseline row) when the first list or inspect needs the inventory; afterwards list and inspect answer from memory (the warm rows).',
          ...(met
            ? {}
            : {
                nextStep:
                  'profile the first inventory read in packages/capability-proxy (readSchemaCache in src/mcp-tools.ts): it should cost little more than the baseline row.',
              }),
        },
        {
          target: `the same, on the very first call of a new Host`,
          measured: `list ${describeStats(first, 'ms')}; with no MCP servers configured ${describeStats(bare, 'ms')}`,
          met: firstMet,
          limitedBy:
            'the first call of a new Host reads the 50 cache files for the inventory (the baseline row); every Host of the process shares one argument validator (contracts sharedArgumentValidator), so only the first Host of a process compiles the use_capability schema (compare the no-servers row).',
          ...(firstMet
            ? {}
            : {
                nextStep:
                  'profile the first dispatch of a new Host in packages/boot (create-host.ts, dispatch-pipeline.ts) against the no-servers row: the difference is the inventory read in packages/capability-proxy (readSchemaCache in src/mcp-tools.ts).',
              }),
        },
      ],
      notes: [],
    };
  } finally {
    await warmHost.close();
  }
}

/** Benchmark 6. */
export const capabilityBenchmark: Benchmark = {
  id: 'capability',
  number: 6,
  title: 'use_capability list and inspect with 50 cached MCP servers',
  run,
};
