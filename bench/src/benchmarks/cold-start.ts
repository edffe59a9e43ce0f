// Benchmark 8: `toolhost tools` cold start against bare `node -e 0`, interleaved run by run.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Benchmark, BenchmarkContext, BenchmarkMeasurement } from '../benchmark-types.js';
import { describeStats, figure } from '../figures.js';
import { runCommand } from '../processes.js';
import { interleave, pairwise, summarize } from '../stats.js';
import { cliBinPath } from '../workspace.js';

const TARGET_RATIO = 2.5;

async function run(context: BenchmarkContext): Promise<BenchmarkMeasurement> {
  const rounds = context.quick ? 3 : 21;
  const project = join(context.tempDir, 'project');
  mkdirSync(project);
  const cli = cliBinPath(context.repoRoot);
  const node = async (args: string[]) => {
    const outcome = await runCommand(process.execPath, args, { cwd: project });
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
    contenders: [
      { name: 'bare', run: async () => (await node(['-e', '0'])).ms },
      { name: 'tools', run: async () => (await node([cli, 'tools'])).ms },
      { name: 'help', run: async () => (await node([cli, '--help'])).ms },
    ],
  });
  const bare = samples.get('bare')!;
  const toolsMs = samples.get('tools')!;
  const ratio = summarize(pairwise(toolsMs, bare));
  const met = ratio.median <= TARGET_RATIO;
  const against = { label: 'node -e 0', samples: bare };
  return {
    measured:
      '`node apps/cli/dist/bin.js tools` in an empty project directory: start Node, load the CLI, create a Host (registry, path policy, surface), print the lean surface and exit; wall time from spawn to exit.',
    baseline:
      '`node -e 0` spawned the same way in the same rounds (Node’s own start-up); `toolhost --help` for reference (the CLI loaded without a Host).',
    setup: `${rounds} runs of each (+1 warm-up), interleaved (start rotated)`,
    figures: [
      figure('node -e 0 (baseline)', 'ms', bare, { baseline: true }),
      figure('toolhost --help', 'ms', samples.get('help')!, { against }),
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
        limitedBy:
          'loading and compiling the CLI’s JavaScript (the --help row) and creating the Host: the built-in registry with canonical schemas and fingerprints, the path policy probing the root, the capability proxy.',
        ...(met
          ? {}
          : {
              nextStep:
                'import the run/serve-only modules (provider transport, the MCP SDK, dialect compilers) lazily in apps/cli so `tools` loads only what it prints; check with `node --cpu-prof apps/cli/dist/bin.js tools`.',
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
