// Benchmark 3: glob through the Host against fast-glob alone and `rg --files`, side by side.
import { join } from 'node:path';
import { createHost } from '@toolhost/boot';
import fastGlob from 'fast-glob';
import type { Benchmark, BenchmarkContext, BenchmarkMeasurement } from '../benchmark-types.js';
import { figure } from '../figures.js';
import { runCommand } from '../processes.js';
import { interleave } from '../stats.js';
import { countTree } from '../tree.js';

const PATTERN = '**/*.js';

async function run(context: BenchmarkContext): Promise<BenchmarkMeasurement> {
  const tree = context.quick ? 'packages' : 'node_modules';
  const absoluteTree = join(context.repoRoot, tree);
  const rounds = context.quick ? 2 : 9;
  const { files } = countTree(absoluteTree);
  const host = await createHost({
    root: context.repoRoot,
    config: false,
    surface: 'full',
    stateDir: join(context.tempDir, 'state'),
  });
  try {
    const toolArgs = { pattern: PATTERN, path: tree, include_hidden: true, no_ignore: true };
    const viaTool = () => host.dispatch({ id: 'g', name: 'glob', arguments: toolArgs });
    // The options the tool gives fast-glob, without its ignore-rule and path-policy adapter.
    const alone = () =>
      fastGlob(PATTERN, {
        cwd: absoluteTree,
        dot: true,
        onlyFiles: true,
        followSymbolicLinks: false,
        unique: false,
        caseSensitiveMatch: true,
        suppressErrors: true,
      });
    const ripgrepFiles = () =>
      runCommand('rg', ['--no-config', '--files', '--hidden', '--no-ignore', '--glob', '*.js', '--', tree], {
        cwd: context.repoRoot,
        keepBytes: 64 * 1024 * 1024,
      });

    const toolResult = await viaTool();
    if (toolResult.status !== 'ok') throw new Error(`glob failed: ${toolResult.output.slice(0, 300)}`);
    const toolCount = Number(toolResult.details?.matches);
    const globCount = (await alone()).length;
    const rg = await ripgrepFiles();
    if (rg.code !== 0) throw new Error(`rg --files failed: ${rg.stderr}`);
    const rgCount = rg.stdout.split('\n').filter((line) => line !== '').length;
    if (!(toolCount > 0) || toolCount !== globCount || toolCount !== rgCount) {
      throw new Error(
        `the file sets differ: glob tool ${toolCount}, fast-glob ${globCount}, rg --files ${rgCount}`,
      );
    }
    if (toolResult.details?.capped === true)
      throw new Error('the glob tool hit its scan cap: not comparable');
    const checks = [
      `the glob tool, fast-glob and \`rg --files\` find the same number of \`*.js\` files (${toolCount.toLocaleString('en-US')}); the tool collected all of them (not capped) and showed the first ${String(toolResult.details?.shown)} in path order`,
    ];

    context.log(`glob: ${rounds} rounds`);
    const samples = await interleave({
      rounds,
      contenders: [
        { name: 'fast-glob', run: () => alone().then(() => undefined) },
        { name: 'rg', run: async () => (await ripgrepFiles()).ms },
        { name: 'tool', run: () => viaTool().then(() => undefined) },
      ],
    });
    const fast = samples.get('fast-glob')!;
    const rgFiles = samples.get('rg')!;
    const tool = samples.get('tool')!;
    return {
      measured: `\`glob\` with \`${PATTERN}\` dispatched through the Host (surface \`full\`, \`include_hidden\` and \`no_ignore\`) over the repository's own \`${tree}\` (${files.toLocaleString('en-US')} files): every match collected, sorted by path, the first 200 shown.`,
      baseline:
        'fast-glob alone with the options the tool gives it (no ignore-rule or path-policy adapter, no sorting), in the same process; and `rg --no-config --files --hidden --no-ignore --glob *.js` spawned from the same process with all its output read.',
      setup: `${rounds} rounds, interleaved (start rotated), 1 warm-up round`,
      figures: [
        figure('fast-glob alone (baseline)', 'ms', fast, { baseline: true }),
        figure('rg --files (baseline)', 'ms', rgFiles, { baseline: true }),
        figure('glob tool', 'ms', tool, { against: { label: 'fast-glob', samples: fast } }),
        figure('glob tool', 'ms', tool, { against: { label: 'rg --files', samples: rgFiles } }),
      ],
      memory: [],
      checks,
      targets: [],
      notes: [
        'The issue sets no target for glob; the ratios show what the ignore rules, the path policy and sorting add to fast-glob.',
      ],
    };
  } finally {
    await host.close();
  }
}

/** Benchmark 3. */
export const globBenchmark: Benchmark = {
  id: 'glob',
  number: 3,
  title: 'glob against fast-glob alone and rg --files',
  run,
};
