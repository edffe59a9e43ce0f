/** The median, minimum and maximum of one measure over several runs. */
export interface Stats {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** How many runs the figures summarise. */
  readonly runs: number;
}

/**
 * Summarises samples. Throws on an empty list or a sample that is not a finite number: a benchmark
 * that produced no figure, or a nonsense one, must fail loudly rather than print `NaN`.
 */
export function summarize(samples: readonly number[]): Stats {
  if (samples.length === 0) throw new Error('no samples to summarise');
  for (const sample of samples) {
    if (!Number.isFinite(sample)) throw new Error(`a sample is not a finite number: ${sample}`);
  }
  const sorted = [...samples].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, runs: sorted.length };
}

/** Element-wise `numerators[i] / denominators[i]`: the ratio of each run to the baseline of the same run. */
export function pairwise(
  numerators: readonly number[],
  denominators: readonly number[],
  combine: (numerator: number, denominator: number) => number = (numerator, denominator) =>
    numerator / denominator,
): number[] {
  if (numerators.length !== denominators.length) {
    throw new Error(`cannot pair ${numerators.length} runs with ${denominators.length} baseline runs`);
  }
  return numerators.map((value, index) => combine(value, denominators[index]!));
}

/** One contender of an interleaved comparison. */
export interface Contender {
  readonly name: string;
  /** One run; returns the sample (e.g. µs per call, or a time the run measured itself), else its wall time in ms counts. */
  readonly run: () => Promise<number | undefined> | number | undefined;
}

/** Options of {@link interleave}. */
export interface InterleaveOptions {
  readonly rounds: number;
  /** Rounds run first and thrown away (JIT, page cache, lazy initialisation). Default 1. */
  readonly warmupRounds?: number;
  readonly contenders: readonly Contender[];
}

/**
 * Runs every contender once per round, the starting contender rotating from round to round, so
 * whatever else the (shared) machine does hits every contender alike and no contender always runs
 * right after the same neighbour. Returns each contender's samples, round by round (index `i` of every
 * list is the same round, which is what {@link pairwise} ratios rely on).
 */
export async function interleave(options: InterleaveOptions): Promise<Map<string, number[]>> {
  const { contenders, rounds } = options;
  const warmup = options.warmupRounds ?? 1;
  const samples = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  for (let round = 0; round < warmup + rounds; round += 1) {
    const offset = round % contenders.length;
    for (let step = 0; step < contenders.length; step += 1) {
      const contender = contenders[(offset + step) % contenders.length]!;
      const started = process.hrtime.bigint();
      const returned = await contender.run();
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (round >= warmup) samples.get(contender.name)!.push(returned ?? elapsedMs);
    }
  }
  return samples;
}

/** Runs `call` `count` times in sequence and returns the mean µs per call. */
export async function microsecondsPerCall(count: number, call: () => unknown): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index += 1) await call();
  return Number(process.hrtime.bigint() - started) / 1e3 / count;
}

/** Wall time and CPU time (user + system, all threads of this process) per call, in µs. */
export interface CallTimes {
  readonly wallUs: number;
  readonly cpuUs: number;
}

/**
 * Runs `call` `count` times in sequence and returns the mean wall time and CPU time per call. On a
 * loaded machine wall time includes waiting for a core; CPU time is the work itself (it includes
 * the libuv thread pool's file reads, but not other processes).
 */
export async function timeCalls(count: number, call: () => unknown): Promise<CallTimes> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index += 1) await call();
  const wall = Number(process.hrtime.bigint() - started) / 1e3;
  const used = process.cpuUsage(cpu);
  return { wallUs: wall / count, cpuUs: (used.user + used.system) / count };
}

/** Like {@link microsecondsPerCall} for synchronous calls (no `await` between calls). */
export function microsecondsPerSyncCall(count: number, call: () => unknown): number {
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index += 1) call();
  return Number(process.hrtime.bigint() - started) / 1e3 / count;
}

/** Wall time of one async operation, in ms. */
export async function milliseconds(operation: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await operation();
  return Number(process.hrtime.bigint() - started) / 1e6;
}
