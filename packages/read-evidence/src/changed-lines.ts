import { lazyRequire } from '@toolhost/internal';

/**
 * The diff library, loaded on the first diff (issue 25: cold start; its ES build is 19 modules that
 * every toolhost process would otherwise resolve and parse at start-up, while most never diff). It
 * ships a CommonJS build, so a synchronous require keeps the caller synchronous.
 */
const loadDiff = lazyRequire<typeof import('diff')>(import.meta.url, 'diff');

/** A range of lines that differ, numbered 1-based in the newer text. */
export interface ChangedLineRange {
  /** First changed line in the newer text (for a pure deletion: the line after which lines were removed, 0 at the top). */
  readonly start: number;
  /** Last changed line in the newer text (equal to `start` for a pure deletion). */
  readonly end: number;
  /** Lines of the older text that this range replaced or removed. */
  readonly removed: number;
  /** Lines of the newer text in this range. */
  readonly added: number;
}

const MAX_DIFF_EDIT_LENGTH = 5_000;
const DIFF_TIMEOUT_MS = 200;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * The line ranges where `newer` differs from `older`, numbered in `newer`. Returns `undefined` when
 * the difference is too large to compute quickly (more than 5 000 changed lines or 200 ms).
 */
export function changedLineRanges(older: string, newer: string): ChangedLineRange[] | undefined {
  const changes = loadDiff().diffArrays(splitLines(older), splitLines(newer), {
    maxEditLength: MAX_DIFF_EDIT_LENGTH,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!changes) return undefined;
  const ranges: ChangedLineRange[] = [];
  let newLine = 0;
  let pending: { start: number; removed: number; added: number } | undefined;
  const flush = () => {
    if (!pending) return;
    const end = pending.added > 0 ? pending.start + pending.added - 1 : pending.start;
    ranges.push({ start: pending.start, end, removed: pending.removed, added: pending.added });
    pending = undefined;
  };
  for (const change of changes) {
    const count = change.count ?? change.value.length;
    if (!change.added && !change.removed) {
      flush();
      newLine += count;
      continue;
    }
    pending ??= { start: newLine + 1, removed: 0, added: 0 };
    if (change.added) {
      pending.added += count;
      newLine += count;
    } else pending.removed += count;
  }
  flush();
  return ranges.map((range) =>
    range.added === 0 ? { ...range, start: range.start - 1, end: range.start - 1 } : range,
  );
}

/** A short human description of changed ranges: `lines 3-5, 12, lines removed after line 20`. */
export function describeChangedLines(ranges: readonly ChangedLineRange[], maxRanges = 8): string {
  const parts = ranges.slice(0, maxRanges).map((range) => {
    if (range.added === 0)
      return range.start === 0 ? 'lines removed at the top' : `lines removed after line ${range.start}`;
    return range.start === range.end ? `line ${range.start}` : `lines ${range.start}-${range.end}`;
  });
  if (ranges.length > maxRanges) parts.push(`${ranges.length - maxRanges} more ranges`);
  return parts.join(', ');
}
