import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCHMARK_IDS, type Benchmark, type BenchmarkId, type BenchmarkResult } from './benchmark-types.js';
import { capabilityBenchmark } from './benchmarks/capability.js';
import { codeIndexBenchmark } from './benchmarks/code-index.js';
import { coldStartBenchmark } from './benchmarks/cold-start.js';
import { dispatchBenchmark } from './benchmarks/dispatch.js';
import { editBenchmark } from './benchmarks/edit.js';
import { globBenchmark } from './benchmarks/glob.js';
import { grepBenchmark } from './benchmarks/grep.js';
import { jobFloodBenchmark } from './benchmarks/job-flood.js';
import { peersBenchmark } from './benchmarks/peers.js';
import { readWindowBenchmark } from './benchmarks/read-window.js';
import { serveBenchmark } from './benchmarks/serve.js';
import { shellBenchmark } from './benchmarks/shell.js';
import { serveStartBenchmark } from './benchmarks/serve-start.js';
import { describeMachine, loadAverage, type MachineInfo } from './machine.js';
import { REPO_ROOT } from './workspace.js';

/** Every benchmark, in the order. */
export const BENCHMARKS: readonly Benchmark[] = [
  dispatchBenchmark,
  grepBenchmark,
  globBenchmark,
  readWindowBenchmark,
  jobFloodBenchmark,
  capabilityBenchmark,
  serveBenchmark,
  coldStartBenchmark,
  editBenchmark,
  codeIndexBenchmark,
  shellBenchmark,
  serveStartBenchmark,
  peersBenchmark,
];

/** Options of {@link runBenchmarks}. */
export interface RunBenchmarksOptions {
  /** Small sizes and few runs (the smoke run `pnpm test` includes). Default false. */
  readonly quick?: boolean;
  /** Run only these benchmarks; default all. */
  readonly only?: readonly BenchmarkId[];
  /** Progress lines; default none. */
  readonly log?: (line: string) => void;
  /** Default: the repository this package sits in. */
  readonly repoRoot?: string;
}

/** A benchmark that threw: its figures cannot be trusted, so none are kept. */
export interface BenchmarkFailure {
  readonly id: BenchmarkId;
  readonly number: number;
  readonly title: string;
  readonly error: string;
}

/** The outcome of a suite run. */
export interface SuiteResult {
  readonly quick: boolean;
  readonly machine: MachineInfo;
  readonly results: readonly BenchmarkResult[];
  readonly failures: readonly BenchmarkFailure[];
}

/** The command that reproduces one benchmark. */
export function reproduceCommand(id: BenchmarkId, quick: boolean): string {
  return `pnpm bench${quick ? ' --quick' : ''} --only ${id}`;
}

/**
 * Runs the benchmarks one after another, each in a fresh private temp directory that is removed
 * afterwards, recording the load average around each. A benchmark that throws is reported as a
 * failure (with its message) and the others still run. Never throws for a benchmark's failure.
 */
export async function runBenchmarks(options: RunBenchmarksOptions = {}): Promise<SuiteResult> {
  const quick = options.quick ?? false;
  const repoRoot = options.repoRoot ?? REPO_ROOT;
  const log = options.log ?? (() => undefined);
  const only = options.only ?? BENCHMARK_IDS;
  for (const id of only) {
    if (!BENCHMARK_IDS.includes(id)) throw new Error(`unknown benchmark "${id}"`);
  }
  const machine = describeMachine(repoRoot);
  const results: BenchmarkResult[] = [];
  const failures: BenchmarkFailure[] = [];
  for (const benchmark of BENCHMARKS) {
    if (!only.includes(benchmark.id)) continue;
    const tempDir = await mkdtemp(join(tmpdir(), `toolhost-bench-${benchmark.id}-`));
    const loadAtStart = loadAverage();
    const started = Date.now();
    log(`[${benchmark.number}] ${benchmark.title} (load ${loadAtStart.join(' ')})`);
    try {
      const measurement = await benchmark.run({
        quick,
        repoRoot,
        tempDir,
        log: (line) => log(`    ${line}`),
      });
      results.push({
        id: benchmark.id,
        number: benchmark.number,
        title: benchmark.title,
        command: reproduceCommand(benchmark.id, quick),
        loadAtStart,
        loadAtEnd: loadAverage(),
        durationMs: Date.now() - started,
        ...measurement,
      });
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`    FAILED: ${message}`);
      failures.push({ id: benchmark.id, number: benchmark.number, title: benchmark.title, error: message });
    } finally {
      await rm(tempDir, { recursive: true, force: true });
    }
  }
  return { quick, machine, results, failures };
}
