// Benchmark 7: `toolhost serve` over stdio, tools/call round trips per second for a small read_file
// with the MCP SDK client, against a bare MCP SDK server reading the same window raw.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Benchmark, BenchmarkContext, BenchmarkMeasurement } from '../benchmark-types.js';
import { describeStats, figure, formatNumber, formatValue, rateFigure } from '../figures.js';
import { interleave, microsecondsPerCall, summarize } from '../stats.js';
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

async function connect(command: string, args: string[], cwd: string): Promise<Client> {
  const client = new Client({ name: 'toolhost-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'pipe' }));
  return client;
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
  try {
    const toolhost = await connect(process.execPath, [cliBinPath(context.repoRoot), 'serve'], root);
    clients.push(toolhost);
    const bare = await connect(process.execPath, [childScript('bare-mcp-server.mjs'), root], root);
    clients.push(bare);
    for (const [name, client] of [
      ['toolhost serve', toolhost],
      ['bare SDK server', bare],
    ] as const) {
      const result = await client.callTool({ name: 'read_file', arguments: args });
      const text = textOf(result);
      if (result.isError || !text.includes(numberedLine(WINDOW)) || text.includes(numberedLine(WINDOW + 1))) {
        throw new Error(`${name} did not return the window: ${text.slice(0, 200)}`);
      }
    }
    const list = await toolhost.callTool({ name: 'use_capability', arguments: LIST });
    if (list.isError || !textOf(list).includes('Built-in tools')) {
      throw new Error(`use_capability list failed: ${textOf(list).slice(0, 200)}`);
    }
    context.log(`${rounds} rounds × ${calls} sequential calls per contender`);
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
            microsecondsPerCall(calls, () => toolhost.callTool({ name: 'read_file', arguments: args })),
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
    const rate = summarize(toolhostUs.map((us) => 1e6 / us));
    const met = rate.median >= TARGET_CALLS_PER_SECOND;
    const us = (name: string) => formatValue(summarize(samples.get(name)!).median, 'µs');
    const bareRate = summarize(bareUs.map((value) => 1e6 / value));
    const budgetUs = 1e6 / TARGET_CALLS_PER_SECOND;
    const toolhostShare = summarize(toolhostUs).median - summarize(bareUs).median;
    return {
      measured: `\`toolhost serve\` (the built CLI, stdio, default policy) driven by the MCP SDK client (\`Client\` + \`StdioClientTransport\`): \`tools/call\` of \`read_file\` for lines 1-${WINDOW} of a 200-line file, one call at a time (each waits for the previous answer).`,
      baseline:
        'The MCP SDK’s own low-level `Server` over stdio with a `read_file` tool that reads the file raw and numbers the same lines (bench/src/children/bare-mcp-server.mjs), driven by the same client in the same rounds; and `ping` to toolhost serve (the JSON-RPC round trip alone).',
      setup: `${rounds} rounds (+1 warm-up) × ${calls} calls per contender, interleaved (start rotated); client and servers are separate processes on the same 2 cores`,
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
      ],
      memory: [],
      checks: [`both servers return lines 1-${WINDOW} and nothing after them`],
      targets: [
        {
          target: `serve at least ${TARGET_CALLS_PER_SECOND.toLocaleString('en-US')} calls/s`,
          measured: describeStats(rate, 'calls/s'),
          met,
          limitedBy: `medians of this run: ${us('ping')} for a ping (the JSON-RPC round trip between the two processes), ${us('toolhost-list')} for tools/call of use_capability list (the MCP SDK's request handling and result validation on both ends plus toolhost's dispatch pipeline, no file touched), ${us('bare')} for the bare SDK server's raw read_file (${formatValue(bareRate.median, 'calls/s')}) and ${us('toolhost')} for toolhost's read_file. ${formatNumber(TARGET_CALLS_PER_SECOND)} sequential calls/s leave ${formatNumber(budgetUs)} µs per round trip; ${toolhostShare > 0 ? `toolhost's read_file costs ${formatNumber(toolhostShare)} µs more than the bare server's raw read: the dispatch pipeline (validation, permission with the path policy's realpath, shaping, audit) and read_file's protocol (no link followed at the final component, a stat of the open file before and after the read, SHA-256 unless the bytes equal those the session kept, the observation record; small local files are read with synchronous calls, see RE-19 in packages/read-evidence)` : `toolhost's read_file costs no more than the bare server's raw read: what remains is the MCP request/response floor of the two processes`}.`,
          ...(met
            ? {}
            : {
                nextStep: `${bareRate.median < TARGET_CALLS_PER_SECOND ? 'the bare SDK server misses the target on this machine too, so measure again on an idle machine; and ' : ''}compare the use_capability list row (pipeline and MCP layers without a file) with the ping row: the difference is toolhost's dispatch pipeline, the rest is the MCP SDK on both ends.`,
              }),
        },
      ],
      notes: [
        `The target is checked on sequential round trips (each call waits for the previous answer); the ${IN_FLIGHT}-in-flight row shows the throughput of one server when a client overlaps calls.`,
      ],
    };
  } finally {
    for (const client of clients) await client.close();
  }
}

/** Benchmark 7. */
export const serveBenchmark: Benchmark = {
  id: 'serve',
  number: 7,
  title: 'toolhost serve: tools/call round trips over stdio',
  run,
};
