export {
  BENCHMARK_IDS,
  type Benchmark,
  type BenchmarkContext,
  type BenchmarkId,
  type BenchmarkMeasurement,
  type BenchmarkResult,
  type Figure,
  type FigureUnit,
  type TargetCheck,
} from './benchmark-types.js';
export { describeMachine, type MachineInfo } from './machine.js';
export { renderReport } from './report.js';
export {
  BENCHMARKS,
  type BenchmarkFailure,
  type RunBenchmarksOptions,
  reproduceCommand,
  runBenchmarks,
  type SuiteResult,
} from './run-benchmarks.js';
export { type Contender, interleave, pairwise, type Stats, summarize } from './stats.js';
