import type { Stats } from './stats.js';

/** Units the report knows how to print. */
export type FigureUnit = 'µs' | 'ms' | 's' | 'calls/s' | 'MB' | 'MB/s';

/** One measured quantity: several runs summarised, optionally as a ratio to a baseline of the same runs. */
export interface Figure {
  readonly label: string;
  readonly unit: FigureUnit;
  readonly stats: Stats;
  /** The run-by-run ratio of this figure to a baseline measured in the same rounds. */
  readonly ratio?: { readonly against: string; readonly stats: Stats };
  /** Marks the baseline rows of a table. */
  readonly baseline?: boolean;
  /** A difference of two measures, which noise can make negative; every other figure is positive. */
  readonly signed?: boolean;
}

/** A target of the issue, checked against a figure of this run. */
export interface TargetCheck {
  /** The target as stated, e.g. "validation under 5 µs". */
  readonly target: string;
  /** The figure the verdict rests on, as text ("1.9 µs (median of 7 runs)"). */
  readonly measured: string;
  readonly met: boolean;
  /** What bounds the figure (where the time or memory goes). */
  readonly limitedBy: string;
  /** What to do about a missed target (present whenever `met` is false). */
  readonly nextStep?: string;
}

/** The outcome of one benchmark. */
export interface BenchmarkResult {
  /** Stable id, used by `--only`. */
  readonly id: BenchmarkId;
  /** The issues' numbering (1-12). */
  readonly number: number;
  readonly title: string;
  /** What was measured, in a sentence or two. */
  readonly measured: string;
  /** The baseline it was paired with, and how. */
  readonly baseline: string;
  /** The input sizes and run counts of this run. */
  readonly setup: string;
  /** The command that reproduces this benchmark alone. */
  readonly command: string;
  /** The 1, 5 and 15 minute load averages when the benchmark started and ended. */
  readonly loadAtStart: readonly number[];
  readonly loadAtEnd: readonly number[];
  readonly durationMs: number;
  /** Timing figures (a table). */
  readonly figures: readonly Figure[];
  /** Peak resident memory figures (a table), where memory matters. */
  readonly memory: readonly Figure[];
  /** Correctness checks done before trusting the figures (each passed, or the benchmark threw). */
  readonly checks: readonly string[];
  readonly targets: readonly TargetCheck[];
  readonly notes: readonly string[];
}

/**
 * The ids of the benchmarks, in order (10 code-index from issue 21, 11 the shell call from issue 25,
 * 12 serve start-up from issue 16, 13 the peer servers from issue 25).
 */
export const BENCHMARK_IDS = [
  'dispatch',
  'grep',
  'glob',
  'read-window',
  'job-flood',
  'capability',
  'serve',
  'cold-start',
  'edit',
  'code-index',
  'shell',
  'serve-start',
  'peers',
] as const;

/** One of {@link BENCHMARK_IDS}. */
export type BenchmarkId = (typeof BENCHMARK_IDS)[number];

/** What every benchmark receives. */
export interface BenchmarkContext {
  /** Small sizes and few runs: a smoke run that keeps the suite from rotting, not a measurement. */
  readonly quick: boolean;
  /** The repository root (where `node_modules`, `apps/cli/dist` and `BENCHMARKS.md` are). */
  readonly repoRoot: string;
  /** A fresh private directory under the system temp directory, removed after the benchmark. */
  readonly tempDir: string;
  /** Progress lines (stderr in the CLI). */
  readonly log: (line: string) => void;
}

/** A benchmark: its identity and how to run it. */
export interface Benchmark {
  readonly id: BenchmarkId;
  readonly number: number;
  readonly title: string;
  run(context: BenchmarkContext): Promise<BenchmarkMeasurement>;
}

/** What a benchmark's `run` returns; the runner adds id, number, title, load averages and duration. */
export type BenchmarkMeasurement = Omit<
  BenchmarkResult,
  'id' | 'number' | 'title' | 'loadAtStart' | 'loadAtEnd' | 'durationMs' | 'command'
>;
