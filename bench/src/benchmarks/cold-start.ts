// Benchmark 8: `toolhost tools` cold start against bare `node -e 0`, interleaved run by run.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Benchmark, BenchmarkContext, BenchmarkMeasurement } from '../benchmark-types.js';
import { describeStats, figure, formatValue } from '../figures.js';
import { runCommand } from '../processes.js';
import { interleave, pairwise, summarize } from '../stats.js';
import { cliBinPath } from '../workspace.js';

const TARGET_RATIO = 2.5;

// What `toolhost tools` loads, piece by piece: each is imported in a bare `node` from the package that
// imports it (bare specifiers resolve from the working directory with --input-type=module).
const IMPORTS = [
  {
    name: 'import-boot',
    label: 'node importing @toolhost/boot (no Host created)',
    cwd: 'packages/boot',
    code: "await import('@toolhost/boot')",
  },
  {
    name: 'import-sdk',
    label: 'node importing the MCP SDK client modules capability-proxy imports',
    cwd: 'packages/capability-proxy',
    code: ['client/index.js', 'client/sse.js', 'client/streamableHttp.js', 'types.js']
      .map((module) => `await import('@modelcontextprotocol/sdk/${module}');`)
      .join(' '),
  },
] as const;

async function run(context: BenchmarkContext): Promise<BenchmarkMeasurement> {
  const rounds = context.quick ? 1 : 21;
  const project = join(context.tempDir, 'project');
  mkdirSync(project);
  const cli = cliBinPath(context.repoRoot);
  const node = async (args: string[], cwd: string = project) => {
    const outcome = await runCommand(process.execPath, args, { cwd });
    if (outcome.code !== 0)
      throw new Error(`node ${args.join(' ')} exited ${outcome.code}: ${outcome.stderr}`);
    return outcome;
  };
  const tools = await node([cli, 'tools']);
  if (!tools.stdout.includes('read_file'))
    throw new Error(`toolhost tools printed no surface: ${tools.stdout}`);
  const surface = JSON.parse((await node([cli, 'tools', '--json'])).stdout) as { tools: unknown[] };
  context.log(`${rounds} runs of each, interleaved`);
  const samples = await interleave({
    rounds,
    warmupRounds: context.quick ? 0 : 1,
    contenders: [
      { name: 'bare', run: async () => (await node(['-e', '0'])).ms },
      { name: 'tools', run: async () => (await node([cli, 'tools'])).ms },
      { name: 'help', run: async () => (await node([cli, '--help'])).ms },
      ...IMPORTS.map((entry) => ({
        name: entry.name,
        run: async () =>
          (await node(['--input-type=module', '-e', entry.code], join(context.repoRoot, entry.cwd))).ms,
      })),
    ],
  });
  const bare = samples.get('bare')!;
  const toolsMs = samples.get('tools')!;
  const ratio = summarize(pairwise(toolsMs, bare));
  const met = ratio.median <= TARGET_RATIO;
  const ms = (name: string) => formatValue(summarize(samples.get(name)!).median, 'ms');
  const against = { label: 'node -e 0', samples: bare };
  return {
    measured:
      '`node apps/cli/dist/bin.js tools` in an empty project directory: start Node, load the CLI, create a Host (registry, path policy, surface), print the lean surface and exit; wall time from spawn to exit.',
    baseline:
      '`node -e 0` spawned the same way in the same rounds (Node’s own start-up). For reference: `toolhost --help` (the CLI loaded without a Host), and bare `node` processes that only import @toolhost/boot, or the MCP SDK client modules, to show where the start-up goes.',
    setup: `${rounds} runs of each (${context.quick ? 'no' : '+1'} warm-up), interleaved (start rotated)`,
    figures: [
      figure('node -e 0 (baseline)', 'ms', bare, { baseline: true }),
      figure('toolhost --help', 'ms', samples.get('help')!, { against }),
      ...IMPORTS.map((entry) => figure(entry.label, 'ms', samples.get(entry.name)!, { against })),
      figure('toolhost tools', 'ms', toolsMs, { against }),
    ],
    memory: [],
    checks: [
      `toolhost tools exits 0 and prints the surface (${surface.tools.length} tools with --json, read_file among them)`,
    ],
    targets: [
      {
        target: `cold start within ${TARGET_RATIO}× of bare node`,
        measured: describeStats(ratio, '×'),
        met,
        limitedBy: `loading modules, not running them: medians of this run are ${ms('bare')} for bare Node, ${ms('help')} for the CLI without a Host, ${ms('import-boot')} for Node that only imports @toolhost/boot, and ${ms('tools')} for \`toolhost tools\`. For scale, a bare Node that imports the MCP SDK client modules takes ${ms('import-sdk')}; \`tools\` does not need them (it starts no server), so they may not load before a server is used.`,
        ...(met
          ? {}
          : {
              nextStep:
                'find what `toolhost tools` loads that it does not use (`node --cpu-prof apps/cli/dist/bin.js tools`, or a module.register load hook that logs URLs) and import it on first use; the MCP SDK (packages/capability-proxy) is the largest candidate.',
            }),
      },
    ],
    notes: [],
  };
}

/** Benchmark 8. */
export const coldStartBenchmark: Benchmark = {
  id: 'cold-start',
  number: 8,
  title: 'toolhost tools cold start',
  run,
};
