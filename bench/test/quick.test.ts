// The smoke run `pnpm test` includes: every benchmark runs in quick mode (small sizes, few runs) and
// must produce sane figures. Nothing here compares a time with a threshold: speed and memory
// targets are judged by the full `pnpm bench`, which is not part of the test suite.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  BENCHMARK_IDS,
  type BenchmarkResult,
  type Figure,
  renderReport,
  runBenchmarks,
  type SuiteResult,
} from '../src/index.js';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const REPO_ROOT = join(BENCH_DIR, '..');
const SUITE_TIMEOUT_MS = 20 * 60_000;

function assertSaneFigure(result: BenchmarkResult, entry: Figure): void {
  const where = `benchmark ${result.number}, "${entry.label}"`;
  const { median, min, max, runs } = entry.stats;
  assert.ok(runs >= 1 && Number.isInteger(runs), `${where}: ${runs} runs`);
  for (const value of [median, min, max])
    assert.ok(Number.isFinite(value), `${where}: ${value} is not finite`);
  assert.ok(
    min <= median && median <= max,
    `${where}: min ${min}, median ${median}, max ${max} out of order`,
  );
  if (!entry.signed) assert.ok(min > 0, `${where}: a non-positive figure ${min} ${entry.unit}`);
  if (entry.unit === 'MB') {
    // A Node process holds tens of MB; more than the machine's memory is nonsense.
    assert.ok(entry.signed || min >= 10, `${where}: peak RSS of ${min} MB is not a Node process`);
    assert.ok(max < 64_000, `${where}: ${max} MB`);
  }
  if (entry.ratio) {
    const ratio = entry.ratio.stats;
    assert.ok(ratio.runs === runs, `${where}: the ratio has ${ratio.runs} runs, the figure ${runs}`);
    for (const value of [ratio.median, ratio.min, ratio.max]) {
      assert.ok(Number.isFinite(value) && value > 0, `${where}: ratio ${value}`);
    }
    assert.ok(entry.ratio.against.length > 0, `${where}: a ratio without a baseline name`);
  }
}

/** The one quick run of every benchmark; the report test renders it too. */
let suite: SuiteResult;

describe('runBenchmarks', () => {
  before(
    async () => {
      suite = await runBenchmarks({ quick: true });
    },
    { timeout: SUITE_TIMEOUT_MS },
  );

  it('runs every benchmark of the issue in quick mode without a failure', () => {
    assert.deepEqual(
      suite.failures.map((failure) => `${failure.id}: ${failure.error}`),
      [],
      'a benchmark failed',
    );
    assert.deepEqual(
      suite.results.map((result) => result.id),
      [...BENCHMARK_IDS],
    );
    assert.deepEqual(
      suite.results.map((result) => result.number),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
    );
    assert.equal(suite.quick, true);
  });

  it('describes the machine: CPU, cores, Node version and the load average at the start', () => {
    assert.ok(suite.machine.cpuModel.length > 0);
    assert.ok(suite.machine.cores >= 1);
    assert.equal(suite.machine.node, process.version);
    assert.equal(suite.machine.loadAtStart.length, 3);
  });

  for (const id of BENCHMARK_IDS) {
    it(`produces sane figures for "${id}": finite, ordered, positive, with its baseline and ratios`, () => {
      const result = suite.results.find((candidate) => candidate.id === id);
      assert.ok(result, `benchmark ${id} did not run`);
      assert.ok(result.figures.length >= 2, 'a benchmark has at least a baseline and a measured row');
      assert.ok(
        [...result.figures, ...result.memory].some((entry) => entry.baseline),
        'a benchmark names its baseline',
      );
      assert.ok(
        [...result.figures, ...result.memory].some((entry) => entry.ratio !== undefined),
        'a benchmark states at least one ratio to its baseline',
      );
      for (const entry of [...result.figures, ...result.memory]) assertSaneFigure(result, entry);
      assert.ok(result.checks.length > 0, 'the figures rest on at least one correctness check');
      for (const text of [result.measured, result.baseline, result.setup, result.command]) {
        assert.ok(text.trim().length > 0);
      }
      assert.match(result.command, new RegExp(`^pnpm bench --quick --only ${id}$`));
      for (const load of [...result.loadAtStart, ...result.loadAtEnd]) {
        assert.ok(Number.isFinite(load) && load >= 0);
      }
      for (const target of result.targets) {
        assert.equal(typeof target.met, 'boolean');
        assert.ok(target.measured.length > 0 && target.limitedBy.length > 0);
        if (!target.met) assert.ok(target.nextStep, `"${target.target}" is missed without a next step`);
      }
    });
  }

  it('judges the job flood against the command writing its output to a file, not to /dev/null (a job must keep its output)', () => {
    const flood = suite.results.find((result) => result.id === 'job-flood');
    assert.ok(flood, 'the job-flood benchmark ran');
    const baseline = flood.figures[0];
    assert.equal(baseline?.baseline, true);
    assert.match(baseline?.label ?? '', /^command > a file, directly/);
    const verdict = flood.targets.find((target) => target.target.startsWith('job flood within'));
    assert.ok(verdict, 'the job flood has a time target');
    const judged = flood.figures.find(
      (entry) => entry.label === 'job through the Host, output to its log' && entry.ratio,
    );
    assert.equal(judged?.ratio?.against, 'the command to a file');
    // The verdict's figure is the ratio to the file write; the /dev/null ratio is shown after it.
    assert.match(
      verdict.measured,
      /of the same command writing its output to a file; against the command to \/dev\/null/,
    );
  });

  it('names a target for each benchmark the issue gives one (all but glob)', () => {
    const withTargets = suite.results
      .filter((result) => result.targets.length > 0)
      .map((result) => result.id);
    assert.deepEqual(
      withTargets,
      BENCHMARK_IDS.filter((id) => id !== 'glob'),
    );
  });
});

describe('renderReport', () => {
  it('renders the machine, a targets table with verdicts, and every benchmark with its command', () => {
    // The quick run above, rendered (running cold-start again would only add time).
    const report = renderReport(suite);
    assert.match(report, /^# toolhost benchmarks\n/);
    assert.match(report, /quick smoke run/);
    assert.ok(report.includes(`Node ${process.version}`));
    assert.match(report, /Load average \(1\/5\/15 min\) at the start: [\d.]+ \/ [\d.]+ \/ [\d.]+/);
    assert.match(report, /\| 8 \| cold start within 2\.5× of bare node \| .+ \| (met|\*\*NOT met\*\*) \|/);
    assert.match(report, /## 8\. toolhost tools cold start/);
    assert.ok(report.includes('`pnpm bench --quick --only cold-start`'));
    assert.match(report, /\| \*node -e 0 \(baseline\)\* \| [\d.,]+ ms \|/);
  });
});

describe('pnpm bench (the command line)', () => {
  // glob: the quickest benchmark (the command line is under test here, not the benchmark).
  it('writes a quick run where --out says and leaves BENCHMARKS.md alone', {
    timeout: 10 * 60_000,
  }, async () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolhost-bench-cli-'));
    const committed = join(REPO_ROOT, 'BENCHMARKS.md');
    const before = existsSync(committed) ? statSync(committed).mtimeMs : undefined;
    try {
      const out = join(directory, 'report.md');
      const json = join(directory, 'results.json');
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli.ts', '--', '--quick', '--only', 'glob', '--out', out, '--json', json],
        { cwd: BENCH_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 0, stderr);
      assert.match(readFileSync(out, 'utf8'), /## 3\. glob against fast-glob alone and rg --files/);
      const results = JSON.parse(readFileSync(json, 'utf8')) as SuiteResult;
      assert.deepEqual(
        results.results.map((result) => result.id),
        ['glob'],
      );
      assert.match(stderr, /^\[3\] glob against fast-glob alone and rg --files/m);
      assert.equal(existsSync(committed) ? statSync(committed).mtimeMs : undefined, before);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses an unknown benchmark with exit code 2 and the usage', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--only', 'nonsense'], {
      cwd: BENCH_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /unknown benchmark "nonsense"/);
    assert.match(stderr, /usage: pnpm bench/);
  });
});
