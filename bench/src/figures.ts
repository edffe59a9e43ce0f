import type { Figure, FigureUnit } from './benchmark-types.js';
import { pairwise, type Stats, summarize } from './stats.js';

/** Options of {@link figure}. */
export interface FigureOptions {
  /** This row is a baseline. */
  readonly baseline?: boolean;
  /** The samples are differences and may be negative. */
  readonly signed?: boolean;
  /** Add the run-by-run ratio to this baseline (its samples come from the same rounds). */
  readonly against?: { readonly label: string; readonly samples: readonly number[] };
}

/** A figure from raw samples (one per run). */
export function figure(
  label: string,
  unit: FigureUnit,
  samples: readonly number[],
  options: FigureOptions = {},
): Figure {
  return {
    label,
    unit,
    stats: summarize(samples),
    ...(options.baseline ? { baseline: true } : {}),
    ...(options.signed ? { signed: true } : {}),
    ...(options.against
      ? {
          ratio: {
            against: options.against.label,
            stats: summarize(pairwise(samples, options.against.samples)),
          },
        }
      : {}),
  };
}

/** Calls per second from samples of µs per call (each run converted, so min and max stay per run). */
export function rateFigure(label: string, microsecondsPerCall: readonly number[]): Figure {
  return figure(
    label,
    'calls/s',
    microsecondsPerCall.map((us) => 1e6 / us),
  );
}

/** A number with a precision that suits its size. */
export function formatNumber(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toPrecision(2);
}

/** `1.9 µs`, `12,345 calls/s`, `0.42×`. */
export function formatValue(value: number, unit: FigureUnit | '×'): string {
  return unit === '×' ? `${formatNumber(value)}×` : `${formatNumber(value)} ${unit}`;
}

/** `1.9 µs (median of 7 runs; 1.7–2.3)`. */
export function describeStats(stats: Stats, unit: FigureUnit | '×'): string {
  return `${formatValue(stats.median, unit)} (median of ${stats.runs} runs; ${formatNumber(stats.min)}–${formatNumber(stats.max)})`;
}

/** Bytes to decimal megabytes (the unit the targets are stated in). */
export function megabytes(bytes: number): number {
  return bytes / 1e6;
}
