// Benchmark 7: `toolhost serve` over stdio, tools/call round trips per second for a small read_file,
// against a bare MCP SDK server reading the same window raw: driven by the MCP SDK client (one call at a
// time, and 10 in flight), and by a minimal pipelined JSON-RPC client (10 in flight), with each server's
// and the client's CPU time per call. The pipelined rows are the verdict: see bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Benchmark, BenchmarkContext, BenchmarkMeasurement } from '../benchmark-types.js';
import { describeStats, figure, formatNumber, formatValue, rateFigure } from '../figures.js';
import { interleave, microsecondsPerCall, summarize } from '../stats.js';
import { JsonRpcPipeClient, processCpuUs } from '../json-rpc-pipe-client.js';
import { childScript, cliBinPath, numberedLine } from '../workspace.js';

const TARGET_CALLS_PER_SECOND = 2000;
const WINDOW = 40;
/** A call that touches no file: the pipeline and the MCP layers without a read. */
const LIST = { action: 'list' };
/** Calls in flight in the parallel row. */
const IN_FLIGHT = 10;

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('');
}

async function connect(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: 'toolhost-bench', version: '1.0.0' });
  const transport = new StdioClientTransport({ command, args, cwd, stderr: 'pipe' });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/** Whether a read_file answer is exactly the window: its last line and not the one after it. */
function isWindow(text: string): boolean {
  return text.includes(numberedLine(WINDOW)) && !text.includes(numberedLine(WINDOW + 1));
}

/** This process's CPU time so far (user + system, all threads), in µs: the client's side. */
function ownCpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** CPU time per call of one run: the server process's and the client's (this process's), in µs. */
interface CpuSamples {
  readonly server: number[];
  readonly client: number[];
}

/**
 * Wraps a run of `calls` calls so that it also records the server's and the client's CPU time per
 * call (the warm-up round's entry is dropped later with {@link afterWarmup}).
 */
async function withCpu(
  pid: number,
  calls: number,
  into: CpuSamples,
  run: () => Promise<number>,
): Promise<number> {
  const server = processCpuUs(pid);
  const client = ownCpuUs();
  const us = await run();
  into.server.push((processCpuUs(pid) - server) / calls);
  into.client.push((ownCpuUs() - client) / calls);
  return us;
}

/** The samples of the measured rounds: {@link interleave} runs one warm-up round first. */
function afterWarmup(samples: readonly number[]): number[] {
  return samples.slice(1);
}

async function run(context: BenchmarkContext): Promise<BenchmarkMeasurement> {
  const calls = context.quick ? 50 : 1_000;
  const rounds = context.quick ? 2 : 7;
  const root = join(context.tempDir, 'project');
  mkdirSync(root);
  writeFileSync(
    join(root, 'small.txt'),
    `${Array.from({ length: 200 }, (_, index) => numberedLine(index + 1)).join('\n')}\n`,
  );
  const args = { path: 'small.txt', offset: 0, limit: WINDOW };
  const clients: Client[] = [];
  const pipes: JsonRpcPipeClient[] = [];
  const toolhostCommand = [cliBinPath(context.repoRoot), 'serve'];
  const bareCommand = [childScript('bare-mcp-server.mjs'), root];
  try {
    const toolhostConnection = await connect(process.execPath, toolhostCommand, root);
    const toolhost = toolhostConnection.client;
    clients.push(toolhost);
    const bare = await connect(process.execPath, bareCommand, root).then((connection) => connection.client);
    clients.push(bare);
    // The pipelined client drives its own server processes (the same commands, own stdio pipes).
    const pipeToolhost = await JsonRpcPipeClient.start(process.execPath, toolhostCommand, root);
    pipes.push(pipeToolhost);
    const pipeBare = await JsonRpcPipeClient.start(process.execPath, bareCommand, root);
    pipes.push(pipeBare);
    const pipeCall = (client: JsonRpcPipeClient) => async (): Promise<void> => {
      const answer = await client.request('tools/call', { name: 'read_file', arguments: args });
      const result = answer.result as { isError?: boolean; content?: { type: string; text?: string }[] };
      const text = (result?.content ?? []).map((block) => block.text ?? '').join('');
      if (answer.error || result?.isError || !isWindow(text)) {
        throw new Error(
          `the pipelined read_file was not the window: ${JSON.stringify(answer).slice(0, 200)}`,
        );
      }
    };
    for (const [name, client] of [
      ['toolhost serve (pipelined client)', pipeToolhost],
      ['bare SDK server (pipelined client)', pipeBare],
    ] as const) {
      const check = pipeCall(client);
      await check().catch((error: Error) => {
        throw new Error(`${name}: ${error.message}`);
      });
    }
    for (const [name, client] of [
      ['toolhost serve', toolhost],
      ['bare SDK server', bare],
    ] as const) {
      const result = await client.callTool({ name: 'read_file', arguments: args });
      const text = textOf(result);
      if (result.isError || !isWindow(text)) {
        throw new Error(`${name} did not return the window: ${text.slice(0, 200)}`);
      }
    }
    const list = await toolhost.callTool({ name: 'use_capability', arguments: LIST });
    if (list.isError || !textOf(list).includes('Built-in tools')) {
      throw new Error(`use_capability list failed: ${textOf(list).slice(0, 200)}`);
    }
    context.log(`${rounds} rounds × ${calls} calls per contender`);
    const sdkCpu: CpuSamples = { server: [], client: [] };
    const pipeToolhostCpu: CpuSamples = { server: [], client: [] };
    const pipeBareCpu: CpuSamples = { server: [], client: [] };
    const pipeToolhostCall = pipeCall(pipeToolhost);
    const pipeBareCall = pipeCall(pipeBare);
    const samples = await interleave({
      rounds,
      contenders: [
        {
          name: 'bare',
          run: () => microsecondsPerCall(calls, () => bare.callTool({ name: 'read_file', arguments: args })),
        },
        {
          name: 'toolhost',
          run: () =>
            withCpu(toolhostConnection.pid, calls, sdkCpu, () =>
              microsecondsPerCall(calls, () => toolhost.callTool({ name: 'read_file', arguments: args })),
            ),
        },
        {
          name: 'pipe-toolhost',
          run: () =>
            withCpu(pipeToolhost.pid, calls, pipeToolhostCpu, () =>
              pipeToolhost.pipelined(calls, IN_FLIGHT, pipeToolhostCall),
            ),
        },
        {
          name: 'pipe-bare',
          run: () =>
            withCpu(pipeBare.pid, calls, pipeBareCpu, () =>
              pipeBare.pipelined(calls, IN_FLIGHT, pipeBareCall),
            ),
        },
        { name: 'ping', run: () => microsecondsPerCall(calls, () => toolhost.ping()) },
        {
          name: 'toolhost-list',
          run: () =>
            microsecondsPerCall(calls, () => toolhost.callTool({ name: 'use_capability', arguments: LIST })),
        },
        {
          name: 'toolhost-parallel',
          run: () =>
            microsecondsPerCall(calls / IN_FLIGHT, () =>
              Promise.all(
                Array.from({ length: IN_FLIGHT }, () =>
                  toolhost.callTool({ name: 'read_file', arguments: args }),
                ),
              ),
            ).then((us) => us / IN_FLIGHT),
        },
      ],
    });
    const bareUs = samples.get('bare')!;
    const toolhostUs = samples.get('toolhost')!;
    const pipeToolhostUs = samples.get('pipe-toolhost')!;
    const pipeBareUs = samples.get('pipe-bare')!;
    const median = (values: readonly number[]) => summarize(values).median;
    const rateOf = (values: readonly number[]) => summarize(values.map((value) => 1e6 / value));
    // The verdict: the server's throughput, measured with a client that is not itself the floor.
    const rate = rateOf(pipeToolhostUs);
    const met = rate.median >= TARGET_CALLS_PER_SECOND;
    const sequentialRate = rateOf(toolhostUs);
    const us = (name: string) => formatValue(median(samples.get(name)!), 'µs');
    const bareRate = rateOf(bareUs);
    const pipeBareRate = rateOf(pipeBareUs);
    const sdkServerCpu = afterWarmup(sdkCpu.server);
    const sdkClientCpu = afterWarmup(sdkCpu.client);
    const pipeToolhostServerCpu = afterWarmup(pipeToolhostCpu.server);
    const pipeBareServerCpu = afterWarmup(pipeBareCpu.server);
    const pipeClientCpu = afterWarmup(pipeToolhostCpu.client);
    const cpu = (values: readonly number[]) => formatValue(median(values), 'µs');
    const budgetUs = 1e6 / TARGET_CALLS_PER_SECOND;
    const toolhostShare = median(toolhostUs) - median(bareUs);
    return {
      measured: `\`toolhost serve\` (the built CLI, stdio, default policy): \`tools/call\` of \`read_file\` for lines 1-${WINDOW} of a 200-line file. The verdict row: a minimal pipelined newline-delimited JSON-RPC client (bench/src/json-rpc-pipe-client.ts) keeping ${IN_FLIGHT} requests in flight over the server's stdio pipes, every answer checked to be exactly the window. Also the MCP SDK client (\`Client\` + \`StdioClientTransport\`) one call at a time and ${IN_FLIGHT} in flight, and the CPU time per call of each server process (/proc/<pid>/task/*/schedstat) and of the client (this process).`,
      baseline:
        'The MCP SDK’s own low-level `Server` over stdio with a `read_file` tool that reads the file raw and numbers the same lines (bench/src/children/bare-mcp-server.mjs), driven by the same clients in the same rounds (its own process per client); and `ping` to toolhost serve (the JSON-RPC round trip alone).',
      setup: `${rounds} rounds (+1 warm-up) × ${calls} calls per contender, interleaved (start rotated); clients and servers are separate processes on the same 2 cores (4 server processes: toolhost serve and the bare server for each client)`,
      figures: [
        figure('bare SDK server, tools/call read_file (baseline)', 'µs', bareUs, { baseline: true }),
        figure('toolhost serve, tools/call read_file', 'µs', toolhostUs, {
          against: { label: 'the bare SDK server', samples: bareUs },
        }),
        figure('toolhost serve, ping', 'µs', samples.get('ping')!, {
          against: { label: 'the bare SDK server', samples: bareUs },
        }),
        figure(
          'toolhost serve, tools/call use_capability list (no file read)',
          'µs',
          samples.get('toolhost-list')!,
          {
            against: { label: 'the bare SDK server', samples: bareUs },
          },
        ),
        rateFigure('toolhost serve, read_file round trips', toolhostUs),
        rateFigure('bare SDK server, read_file round trips', bareUs),
        rateFigure(
          `toolhost serve, read_file with ${IN_FLIGHT} calls in flight`,
          samples.get('toolhost-parallel')!,
        ),
        rateFigure(
          `toolhost serve, read_file, pipelined client, ${IN_FLIGHT} in flight (verdict)`,
          pipeToolhostUs,
        ),
        rateFigure(`bare SDK server, read_file, pipelined client, ${IN_FLIGHT} in flight`, pipeBareUs),
        figure('toolhost serve process CPU per call, SDK client one at a time', 'µs', sdkServerCpu),
        figure('MCP SDK client CPU per call (one at a time, toolhost serve)', 'µs', sdkClientCpu),
        figure(
          `bare SDK server process CPU per call, pipelined client (${IN_FLIGHT} in flight)`,
          'µs',
          pipeBareServerCpu,
          { baseline: true },
        ),
        figure(
          `toolhost serve process CPU per call, pipelined client (${IN_FLIGHT} in flight)`,
          'µs',
          pipeToolhostServerCpu,
          { against: { label: 'the bare SDK server', samples: pipeBareServerCpu } },
        ),
        figure(`pipelined client CPU per call (${IN_FLIGHT} in flight, toolhost serve)`, 'µs', pipeClientCpu),
      ],
      memory: [],
      checks: [
        `both servers return lines 1-${WINDOW} and nothing after them, to both clients`,
        'every pipelined answer is checked: a JSON-RPC result, not isError, exactly the window',
      ],
      targets: [
        {
          target: `serve at least ${TARGET_CALLS_PER_SECOND.toLocaleString('en-US')} calls/s`,
          measured: `${describeStats(rate, 'calls/s')} with the pipelined client, ${IN_FLIGHT} in flight (the bare SDK server: ${formatValue(pipeBareRate.median, 'calls/s')}); one call at a time through the MCP SDK client ${formatValue(sequentialRate.median, 'calls/s')} (the bare SDK server: ${formatValue(bareRate.median, 'calls/s')})`,
          met,
          limitedBy: `the server's CPU per call: ${cpu(pipeToolhostServerCpu)} for toolhost serve against ${cpu(pipeBareServerCpu)} for the bare SDK server with the pipelined client (which costs ${cpu(pipeClientCpu)} per call itself); one call at a time each round trip also pays two process wake-ups, and the MCP SDK client costs ${cpu(sdkClientCpu)} per call against toolhost serve's ${cpu(sdkServerCpu)}. Medians of this run, one at a time through the SDK client: ${us('ping')} for a ping, ${us('toolhost-list')} for use_capability list (no file), ${us('bare')} for the bare SDK server's raw read_file and ${us('toolhost')} for toolhost's; ${formatNumber(TARGET_CALLS_PER_SECOND)} calls/s leave ${formatNumber(budgetUs)} µs per call. ${toolhostShare > 0 ? `toolhost's read_file costs ${formatNumber(toolhostShare)} µs more per sequential round trip than the bare server's raw read: the dispatch pipeline (validation, permission with the path policy's realpath, shaping, audit) and read_file's protocol (no link followed at the final component, a stat of the open file before and after the read, SHA-256 unless the bytes equal those the session kept, the observation record)` : `toolhost's sequential read_file costs no more than the bare server's raw read: what remains is the MCP request/response floor of the two processes`}.`,
          ...(met
            ? {}
            : {
                nextStep: `${pipeBareRate.median < TARGET_CALLS_PER_SECOND ? 'the bare SDK server misses the target on this machine too, so measure again on an idle machine; and ' : ''}compare the two servers' CPU per call with the pipelined client: the difference is toolhost's pipeline, the rest is the MCP SDK server's.`,
              }),
        },
      ],
      notes: [
        `The verdict is the pipelined row: the target is the server's throughput. On 2 shared cores the client in the same run competes with the server for CPU, and the MCP SDK client costs ${cpu(sdkClientCpu)} per call one at a time (the pipelined client ${cpu(pipeClientCpu)}); one call at a time, every round trip also waits for two process wake-ups, so that figure is the client's and the scheduler's as much as the server's. The SDK-client rows stay: they are what an SDK-based agent sees.`,
      ],
    };
  } finally {
    for (const client of clients) await client.close();
    for (const pipe of pipes) await pipe.close();
  }
}

/** Benchmark 7. */
export const serveBenchmark: Benchmark = {
  id: 'serve',
  number: 7,
  title: 'toolhost serve: tools/call round trips over stdio',
  run,
};
