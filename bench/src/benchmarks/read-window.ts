// Benchmark 4: read_file of a window near the end of a generated 1 GB file, against
// `tail -n +N | head -n M` on the same file; peak RSS measured in child processes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Benchmark, BenchmarkContext, BenchmarkMeasurement } from '../benchmark-types.js';
import { describeStats, figure, formatNumber, megabytes } from '../figures.js';
import { runCommand, runNodeScript } from '../processes.js';
import { interleave, pairwise, summarize } from '../stats.js';
import { childScript, numberedLine, writeNumberedLines } from '../workspace.js';

const WINDOW = 50;
const TARGET_MB = 100;

interface ChildResult {
  readonly elapsedMs?: number;
  readonly output?: string;
  readonly maxRssBytes: number;
}

async function run(context: BenchmarkContext): Promise<BenchmarkMeasurement> {
  const size = context.quick ? 2 ** 20 : 2 ** 30;
  const rounds = context.quick ? 1 : 5;
  const warmupRounds = context.quick ? 0 : 1;
  const root = join(context.tempDir, 'project');
  mkdirSync(root);
  writeFileSync(join(root, 'small.txt'), `${numberedLine(1)}\n${numberedLine(2)}\n`);
  const file = join(root, 'big.txt');
  context.log(`generating ${(size / 2 ** 20).toFixed(0)} MiB under ${context.tempDir}`);
  const lines = await writeNumberedLines(file, size);
  const offset = lines - WINDOW;
  const childInput = { root, stateDir: join(context.tempDir, 'state'), small: 'small.txt' };
  const script = childScript('host-child.mjs');
  const tailHead = () =>
    runCommand('sh', ['-c', `tail -n +${offset + 1} big.txt | head -n ${WINDOW}`], { cwd: root });

  // Same window from both before anything is timed.
  const expected = Array.from({ length: WINDOW }, (_, index) => numberedLine(offset + 1 + index));
  const tail = await tailHead();
  if (tail.stdout !== `${expected.join('\n')}\n`) throw new Error('tail | head did not print the window');
  const probe = await runNodeScript<ChildResult>(script, {
    ...childInput,
    mode: 'read-window',
    path: 'big.txt',
    offset,
    limit: WINDOW,
  });
  const shown = probe.output ?? '';
  for (const line of [expected[0]!, expected.at(-1)!]) {
    if (!shown.includes(line)) throw new Error(`read_file did not show "${line.slice(0, 20)}…"`);
  }
  if (shown.includes(`${numberedLine(offset)}\n`))
    throw new Error('read_file showed a line before the window');

  const idleRss: number[] = [];
  const readRss: number[] = [];
  const bareRss: number[] = [];
  const importRss: number[] = [];
  context.log(`${rounds} rounds of: read child, tail | head, and the memory baselines`);
  const samples = await interleave({
    rounds,
    warmupRounds,
    contenders: [
      {
        name: 'idle',
        run: async () => {
          const result = await runNodeScript<ChildResult>(script, { ...childInput, mode: 'host-idle' });
          idleRss.push(result.maxRssBytes);
          return 0;
        },
      },
      {
        name: 'read',
        run: async () => {
          const result = await runNodeScript<ChildResult>(script, {
            ...childInput,
            mode: 'read-window',
            path: 'big.txt',
            offset,
            limit: WINDOW,
          });
          readRss.push(result.maxRssBytes);
          return result.elapsedMs;
        },
      },
      { name: 'tail', run: async () => (await tailHead()).ms },
      {
        name: 'bare',
        run: async () => {
          bareRss.push((await runNodeScript<ChildResult>(script, { mode: 'bare' })).maxRssBytes);
          return 0;
        },
      },
      {
        name: 'import',
        run: async () => {
          importRss.push((await runNodeScript<ChildResult>(script, { mode: 'import' })).maxRssBytes);
          return 0;
        },
      },
    ],
  });
  const tailMs = samples.get('tail')!;
  const readMs = samples.get('read')!;
  const idle = idleRss.slice(warmupRounds).map(megabytes);
  const read = readRss.slice(warmupRounds).map(megabytes);
  const readStats = summarize(read);
  const bare = bareRss.slice(warmupRounds).map(megabytes);
  const imported = importRss.slice(warmupRounds).map(megabytes);
  const medianOf = (values: number[]) => formatNumber(summarize(values).median);
  const met = readStats.max < TARGET_MB;
  const delta = pairwise(read, idle, (a, b) => a - b);
  return {
    measured: `\`read_file\` with \`offset\` ${offset.toLocaleString('en-US')} and \`limit\` ${WINDOW} (the last ${WINDOW} lines) of a generated ${(size / 2 ** 20).toFixed(0)} MiB file of ${lines.toLocaleString('en-US')} numbered lines, dispatched through a Host in a fresh child process (built \`dist\`, no loader); the time is the dispatch alone, measured in the child.`,
    baseline: `\`sh -c "tail -n +${offset + 1} big.txt | head -n ${WINDOW}"\` on the same file, spawned from the bench process (its time includes starting sh, tail and head, a few ms). Memory: a child that creates the same Host and reads a 2-line file, so the difference is what the window costs.`,
    setup: `${rounds} rounds (+${warmupRounds} warm-up), interleaved (start rotated); the file (generated under the system temp directory and deleted afterwards) stays in the page cache for all contenders`,
    figures: [
      figure('tail -n +N | head -n 50 (baseline)', 'ms', tailMs, { baseline: true }),
      figure('read_file through the Host', 'ms', readMs, {
        against: { label: 'tail | head', samples: tailMs },
      }),
      figure(
        'read throughput of read_file',
        'MB/s',
        readMs.map((ms) => megabytes(size) / (ms / 1000)),
      ),
    ],
    memory: [
      figure('bare Node (`node` running nothing)', 'MB', bare),
      figure('Node that imported @toolhost/boot (no Host created)', 'MB', imported),
      figure('Host child that read a 2-line file (baseline)', 'MB', idle, { baseline: true }),
      figure('Host child that read the window of the 1 GB file', 'MB', read, {
        against: { label: 'the baseline child', samples: idle },
      }),
      figure('difference (window − baseline), per round', 'MB', delta, { signed: true }),
    ],
    checks: [
      `tail | head prints exactly lines ${(offset + 1).toLocaleString('en-US')}–${lines.toLocaleString('en-US')}; read_file shows the first and the last of them and not the line before`,
    ],
    targets: [
      {
        target: `read window peak RSS under ${TARGET_MB} MB`,
        measured: describeStats(readStats, 'MB'),
        met,
        limitedBy: `the Host process, not the window: medians of this run are ${medianOf(bare)} MB for bare Node, ${medianOf(imported)} MB once @toolhost/boot and its dependencies are imported, ${medianOf(idle)} MB for a Host that read a 2-line file, and ${medianOf(read)} MB after reading the window (the difference row): read_file streams the file in 1 MiB chunks and turns only the window's lines into strings.`,
        ...(met
          ? {}
          : {
              nextStep:
                'shrink what importing @toolhost/boot loads before any tool runs (the import row): import on first use whatever a Host that only reads files does not need (the MCP SDK, the dialect compilers), and check with a module.register load hook that logs URLs.',
            }),
      },
    ],
    notes: [
      'The target is checked against the largest peak of all rounds, not the median.',
      'read_file scans every byte for line breaks (it has to count lines to find the offset), as tail does; it is not a seek.',
    ],
  };
}

/** Benchmark 4. */
export const readWindowBenchmark: Benchmark = {
  id: 'read-window',
  number: 4,
  title: 'read_file of a window near the end of a 1 GB file',
  run,
};
