// Benchmark 13: file reads through `toolhost serve` against the servers people would pick instead,
// each started from npm and driven over stdio by the same MCP SDK client code: the reference
// filesystem server (@modelcontextprotocol/server-filesystem) and a bare MCP SDK server whose
// read_file is a raw read (bench/src/children/bare-mcp-server.mjs). One call at a time and 10 in
// flight, interleaved round by round, ratios per round; plus each server process's CPU per call.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Benchmark, BenchmarkContext, BenchmarkMeasurement, Figure } from '../benchmark-types.js';
import { describeStats, figure, formatValue } from '../figures.js';
import { processCpuUs } from '../json-rpc-pipe-client.js';
import { interleave, pairwise, summarize } from '../stats.js';
import { childScript, cliBinPath, numberedLine } from '../workspace.js';

const require = createRequire(import.meta.url);

const FILE_LINES = 200;
const WINDOW = 40;
/** Calls in flight in the parallel rows (what a client that overlaps a turn's reads sends). */
const IN_FLIGHT = 10;

/** A server under test: how to start it, and how its read tool is called for each workload. */
interface Contender {
  readonly id: 'toolhost' | 'filesystem' | 'bare';
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The tools/call request for a workload. */
  readonly call: (workload: Workload) => { name: string; arguments: Record<string, unknown> };
}

/** What is read. */
interface Workload {
  readonly id: 'window' | 'whole';
  readonly label: string;
  /** Lines the answer must hold (1-based, in order) and the first line it must not hold. */
  readonly lastLine: number;
}

const WORKLOADS: readonly Workload[] = [
  { id: 'window', label: `the first ${WINDOW} lines of a ${FILE_LINES}-line file`, lastLine: WINDOW },
  { id: 'whole', label: `a whole ${FILE_LINES}-line file`, lastLine: FILE_LINES },
];

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('');
}

interface Running {
  readonly contender: Contender;
  readonly client: Client;
  readonly pid: number;
}

async function start(contender: Contender, cwd: string): Promise<Running> {
  const client = new Client({ name: 'toolhost-bench-peers', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: contender.command,
    args: [...contender.args],
    cwd,
    stderr: 'pipe',
  });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error(`${contender.label} has no process id`);
  return { contender, client, pid };
}

/** Wall time and the server's CPU time per call of `calls` calls, `inFlight` at a time. */
async function measure(
  running: Running,
  workload: Workload,
  calls: number,
  inFlight: number,
): Promise<{ wallUs: number; cpuUs: number }> {
  const request = running.contender.call(workload);
  const cpuBefore = processCpuUs(running.pid);
  const started = process.hrtime.bigint();
  for (let done = 0; done < calls; done += inFlight) {
    const batch = Math.min(inFlight, calls - done);
    const results = await Promise.all(Array.from({ length: batch }, () => running.client.callTool(request)));
    for (const result of results)
      if (result.isError)
        throw new Error(`${running.contender.label} failed a read: ${textOf(result).slice(0, 200)}`);
  }
  const wallUs = Number(process.hrtime.bigint() - started) / 1e3 / calls;
  return { wallUs, cpuUs: (processCpuUs(running.pid) - cpuBefore) / calls };
}

async function run(context: BenchmarkContext): Promise<BenchmarkMeasurement> {
  const sequentialCalls = context.quick ? 20 : 400;
  const parallelCalls = context.quick ? 40 : 1_000;
  const rounds = context.quick ? 2 : 7;
  const root = join(context.tempDir, 'project');
  mkdirSync(root);
  writeFileSync(
    join(root, 'small.txt'),
    `${Array.from({ length: FILE_LINES }, (_, index) => numberedLine(index + 1)).join('\n')}\n`,
  );
  const contenders: readonly Contender[] = [
    {
      id: 'filesystem',
      label: 'server-filesystem',
      command: process.execPath,
      args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), root],
      call: (workload) => ({
        name: 'read_text_file',
        arguments:
          workload.id === 'window'
            ? { path: join(root, 'small.txt'), head: WINDOW }
            : { path: join(root, 'small.txt') },
      }),
    },
    {
      id: 'bare',
      label: 'bare SDK server',
      command: process.execPath,
      args: [childScript('bare-mcp-server.mjs'), root],
      call: (workload) => ({
        name: 'read_file',
        arguments:
          workload.id === 'window' ? { path: 'small.txt', offset: 0, limit: WINDOW } : { path: 'small.txt' },
      }),
    },
    {
      id: 'toolhost',
      label: 'toolhost serve',
      command: process.execPath,
      args: [cliBinPath(context.repoRoot), 'serve'],
      call: (workload) => ({
        name: 'read_file',
        arguments:
          workload.id === 'window' ? { path: 'small.txt', offset: 0, limit: WINDOW } : { path: 'small.txt' },
      }),
    },
  ];
  const running: Running[] = [];
  try {
    for (const contender of contenders) running.push(await start(contender, root));
    // Correct before fast: every server returns exactly the lines asked for, no more.
    for (const server of running) {
      for (const workload of WORKLOADS) {
        const result = await server.client.callTool(server.contender.call(workload));
        const text = textOf(result);
        const lastShown = text.includes(numberedLine(workload.lastLine));
        const nextShown =
          workload.lastLine < FILE_LINES && text.includes(numberedLine(workload.lastLine + 1));
        if (result.isError || !text.includes(numberedLine(1)) || !lastShown || nextShown)
          throw new Error(
            `${server.contender.label} did not return ${workload.label}: ${text.slice(0, 200)}`,
          );
      }
    }
    context.log(
      `${rounds} rounds × (${sequentialCalls} sequential + ${parallelCalls} with ${IN_FLIGHT} in flight) calls per server and workload`,
    );
    const modes = [
      { id: 'sequential', calls: sequentialCalls, inFlight: 1 },
      { id: 'parallel', calls: parallelCalls, inFlight: IN_FLIGHT },
    ] as const;
    const cpu = new Map<string, number[]>();
    const samples = await interleave({
      rounds,
      contenders: running.flatMap((server) =>
        WORKLOADS.flatMap((workload) =>
          modes.map((mode) => {
            const key = `${server.contender.id}/${workload.id}/${mode.id}`;
            return {
              name: key,
              run: async () => {
                const times = await measure(server, workload, mode.calls, mode.inFlight);
                cpu.set(key, [...(cpu.get(key) ?? []), times.cpuUs]);
                return times.wallUs;
              },
            };
          }),
        ),
      ),
    });
    // interleave runs a warm-up round first; its CPU samples are dropped here to match.
    for (const [key, values] of cpu) cpu.set(key, values.slice(values.length - rounds));
    const wall = (server: string, workload: string, mode: string) =>
      samples.get(`${server}/${workload}/${mode}`)!;
    const cpuOf = (server: string, workload: string, mode: string) =>
      cpu.get(`${server}/${workload}/${mode}`)!;

    const figures: Figure[] = [];
    const cpuFigures: Figure[] = [];
    for (const workload of WORKLOADS) {
      for (const mode of modes) {
        const how = mode.inFlight === 1 ? 'one at a time' : `${IN_FLIGHT} in flight`;
        const fs = wall('filesystem', workload.id, mode.id);
        figures.push(
          figure(`server-filesystem, ${workload.label}, ${how} (baseline)`, 'µs', fs, { baseline: true }),
        );
        figures.push(
          figure(`bare SDK server, ${workload.label}, ${how}`, 'µs', wall('bare', workload.id, mode.id), {
            against: { label: 'server-filesystem', samples: fs },
          }),
        );
        figures.push(
          figure(`toolhost serve, ${workload.label}, ${how}`, 'µs', wall('toolhost', workload.id, mode.id), {
            against: { label: 'server-filesystem', samples: fs },
          }),
        );
        const fsCpu = cpuOf('filesystem', workload.id, mode.id);
        cpuFigures.push(
          figure(`CPU per call: server-filesystem, ${workload.label}, ${how} (baseline)`, 'µs', fsCpu, {
            baseline: true,
          }),
        );
        cpuFigures.push(
          figure(
            `CPU per call: bare SDK server, ${workload.label}, ${how}`,
            'µs',
            cpuOf('bare', workload.id, mode.id),
            {
              against: { label: 'server-filesystem', samples: fsCpu },
            },
          ),
        );
        cpuFigures.push(
          figure(
            `CPU per call: toolhost serve, ${workload.label}, ${how}`,
            'µs',
            cpuOf('toolhost', workload.id, mode.id),
            { against: { label: 'server-filesystem', samples: fsCpu } },
          ),
        );
      }
    }
    // The verdict: 10 in flight, the worse of the two workloads, by the per-round ratio.
    const ratios = WORKLOADS.map((workload) => ({
      workload,
      stats: summarize(
        pairwise(wall('toolhost', workload.id, 'parallel'), wall('filesystem', workload.id, 'parallel')),
      ),
    }));
    const worst = ratios.reduce((left, right) => (right.stats.median > left.stats.median ? right : left));
    const sequentialRatios = WORKLOADS.map((workload) =>
      summarize(
        pairwise(wall('toolhost', workload.id, 'sequential'), wall('filesystem', workload.id, 'sequential')),
      ),
    );
    const worstSequential = sequentialRatios.reduce((left, right) =>
      right.median > left.median ? right : left,
    );
    const cpuRatio = (workload: Workload) =>
      summarize(
        pairwise(cpuOf('toolhost', workload.id, 'parallel'), cpuOf('filesystem', workload.id, 'parallel')),
      );
    const median = (values: readonly number[]) => formatValue(summarize(values).median, 'µs');
    return {
      measured: `\`read_file\` through \`toolhost serve\` (the built CLI, stdio, default policy: read_only sandbox, path policy, observation record, result shaping, audit) for ${WORKLOADS.map((workload) => workload.label).join(' and for ')}, one call at a time and ${IN_FLIGHT} calls in flight, each server driven by its own MCP SDK client (\`Client\` + \`StdioClientTransport\`); also each server process's CPU time per call (all its threads, from /proc/<pid>/task/*/schedstat).`,
      baseline: `\`@modelcontextprotocol/server-filesystem\` (the reference filesystem MCP server, from npm) with the project as its allowed directory, its \`read_text_file\` tool (\`head: ${WINDOW}\` for the window; no argument for the whole file), started and driven the same way in the same rounds; for reference a bare MCP SDK server whose \`read_file\` reads the file raw and numbers the lines (bench/src/children/bare-mcp-server.mjs: no policy, no evidence).`,
      setup: `${rounds} rounds (+1 warm-up) × ${sequentialCalls} sequential and ${parallelCalls} overlapped calls per server, workload and mode, all ${running.length * WORKLOADS.length * modes.length} contenders interleaved (start rotated); the three servers and the bench are separate processes on the same cores`,
      figures: [...figures, ...cpuFigures],
      memory: [],
      checks: [
        `every server returns lines 1-${WINDOW} and not line ${WINDOW + 1} for the window, and lines 1-${FILE_LINES} for the whole file (server-filesystem without line numbers, the others numbered)`,
      ],
      targets: [
        {
          target: 'reads with 10 in flight at least as fast as server-filesystem',
          measured: `worst workload (${worst.workload.label}) ${describeStats(worst.stats, '×')}; one at a time, worst workload ${describeStats(worstSequential, '×')}`,
          met: worst.stats.median <= 1,
          limitedBy: `with ${IN_FLIGHT} calls in flight a server is bound by its CPU per call, since its answers are produced on one thread: medians of this run, ${WORKLOADS.map((workload) => `${workload.label}: toolhost ${median(cpuOf('toolhost', workload.id, 'parallel'))} against server-filesystem ${median(cpuOf('filesystem', workload.id, 'parallel'))} and the bare SDK server ${median(cpuOf('bare', workload.id, 'parallel'))} (toolhost ÷ server-filesystem ${formatValue(cpuRatio(workload).median, '×')})`).join('; ')}. Most of each is the MCP SDK's JSON-RPC and schema work on both ends (the bare server's row); toolhost's own part is its pipeline (validation, permission with one realpath, shaping, audit) and read_file's protocol (the pinned directory, a stat of the open file before and after the read, the observation record). On a loaded machine the wall-time ratio can be wider than the CPU ratio; a likely reason: server-filesystem's reads run on libuv's thread pool, so more of its threads compete for the cores, while toolhost reads small files with synchronous calls on its one main thread.`,
          ...(worst.stats.median <= 1
            ? {}
            : {
                nextStep:
                  'profile `toolhost serve` under the parallel workload (node --cpu-prof) and compare with the bare server: the difference is toolhost’s pipeline and read protocol.',
              }),
        },
      ],
      notes: [
        'server-filesystem also returns the text as structuredContent (its tools declare an output schema), which its client validates; toolhost and the bare server return one text block.',
      ],
    };
  } finally {
    for (const server of running) await server.client.close();
  }
}

/** Benchmark 13. */
export const peersBenchmark: Benchmark = {
  id: 'peers',
  number: 13,
  title: 'Reads against server-filesystem and a bare MCP SDK server',
  run,
};
