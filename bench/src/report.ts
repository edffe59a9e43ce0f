import type { BenchmarkResult, Figure } from './benchmark-types.js';
import { formatNumber, formatValue } from './figures.js';
import type { SuiteResult } from './run-benchmarks.js';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function figureTable(figures: readonly Figure[]): string[] {
  const lines = [
    '| measure | median | min | max | runs | ratio to baseline: median (min–max) |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const entry of figures) {
    const { stats, unit } = entry;
    const ratio = entry.ratio
      ? `${formatValue(entry.ratio.stats.median, '×')} (${formatNumber(entry.ratio.stats.min)}–${formatNumber(entry.ratio.stats.max)}) of ${entry.ratio.against}`
      : entry.baseline
        ? 'baseline'
        : '—';
    lines.push(
      `| ${cell(entry.baseline ? `*${entry.label}*` : entry.label)} | ${formatValue(stats.median, unit)} | ${formatValue(stats.min, unit)} | ${formatValue(stats.max, unit)} | ${stats.runs} | ${cell(ratio)} |`,
    );
  }
  return lines;
}

function renderResult(result: BenchmarkResult): string[] {
  const lines = [
    `## ${result.number}. ${result.title}`,
    '',
    `**Measured.** ${result.measured}`,
    '',
    `**Baseline.** ${result.baseline}`,
    '',
    `**Runs.** ${result.setup}. Load average (1/5/15 min) ${result.loadAtStart.join(' / ')} at the start, ${result.loadAtEnd.join(' / ')} at the end; ${formatNumber(result.durationMs / 1000)} s in all.`,
    '',
    `**Reproduce.** \`${result.command}\``,
    '',
    ...figureTable(result.figures),
  ];
  if (result.memory.length > 0) {
    lines.push('', 'Peak resident memory (RSS) of the measured process:', '', ...figureTable(result.memory));
  }
  if (result.checks.length > 0) {
    lines.push('', 'Checked before trusting the figures:', '', ...result.checks.map((check) => `- ${check}`));
  }
  lines.push('', result.targets.length > 0 ? 'Targets:' : 'Targets: none set by the issue.', '');
  for (const target of result.targets) {
    lines.push(
      `- **${target.target}: ${target.met ? 'met' : 'NOT met'}.** ${target.measured}. Limited by: ${target.limitedBy}${target.nextStep ? ` Next step: ${target.nextStep}` : ''}`,
    );
  }
  if (result.notes.length > 0) lines.push('', ...result.notes.map((note) => `Note: ${note}`));
  lines.push('');
  return lines;
}

/** Renders a suite run as the Markdown of BENCHMARKS.md. */
export function renderReport(suite: SuiteResult): string {
  const { machine } = suite;
  const lines = [
    '# toolhost benchmarks',
    '',
    `Written by \`pnpm bench${suite.quick ? ' --quick' : ''}\` (the \`bench/\` package); do not edit by hand, run it again.${suite.quick ? ' **This is a quick smoke run with small sizes: its figures are not measurements.**' : ''}`,
    'Every figure was measured in this one run, each against a baseline in the same process or the same script: rounds',
    'interleave the contenders (the starting one rotates), a warm-up round is thrown away, and a ratio is taken round',
    'by round (contender ÷ baseline of the same round) and reported as its median with the minimum and maximum.',
    'The machine is shared: read the load average next to each benchmark and prefer the ratios to absolute figures.',
    '',
    '## Machine',
    '',
    `- CPU: ${machine.cpuModel}, ${machine.cores} logical cores, ${machine.memoryGB} GB memory; ${machine.os}`,
    `- Node ${machine.node}; ${machine.ripgrep ?? 'ripgrep not found'}`,
    `- Load average (1/5/15 min) at the start: ${machine.loadAtStart.join(' / ')}`,
    `- Code: commit ${machine.commit ?? 'unknown'}${machine.uncommittedPaths > 0 ? ` with ${machine.uncommittedPaths} uncommitted ${machine.uncommittedPaths === 1 ? 'path' : 'paths'} in the working tree (a shared tree: other work in progress)` : ''}`,
    `- Started ${machine.startedAt}`,
    '',
    '## Targets',
    '',
    '| # | target | measured | met | load at start (1 min) |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const result of suite.results) {
    for (const target of result.targets) {
      lines.push(
        `| ${result.number} | ${cell(target.target)} | ${cell(target.measured)} | ${target.met ? 'met' : '**NOT met**'} | ${result.loadAtStart[0]} |`,
      );
    }
  }
  for (const failure of suite.failures) {
    lines.push(
      `| ${failure.number} | ${cell(failure.title)} | the benchmark failed (below) | **no figure** | — |`,
    );
  }
  lines.push('');
  for (const result of suite.results) lines.push(...renderResult(result));
  if (suite.failures.length > 0) {
    lines.push('## Failed benchmarks', '');
    for (const failure of suite.failures) {
      lines.push(`### ${failure.number}. ${failure.title}`, '', '```', failure.error, '```', '');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
