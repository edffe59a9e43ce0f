import type { ErrorCode } from '@toolhost/contracts';
import { convertLineEndings, type LineEnding } from '@toolhost/read-evidence';
import {
  hasLineBreak,
  lineNumbersAt,
  listLineNumbers,
  splitLinesLoose,
  splitTextLines,
} from './text-lines.js';

/** One replacement: `old_string` becomes `new_string`, once or (`replace_all`) everywhere. */
export interface EditStep {
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean;
}

/** How a step's `old_string` was found. */
export type MatchStrategy = 'exact' | 'line-endings' | 'fuzzy';

/** A replaced region: `[start, end)` in the text before the step, `[newStart, newEnd)` after it. */
export interface ReplacedRegion {
  readonly start: number;
  readonly end: number;
  readonly newStart: number;
  readonly newEnd: number;
}

/** A step that applied. */
export interface AppliedEditStep {
  readonly text: string;
  readonly strategy: MatchStrategy;
  readonly regions: readonly ReplacedRegion[];
}

/** The most similar line when nothing matched (1-based; `text` is for the model's output, never an error message). */
export interface NearestLine {
  readonly line: number;
  readonly similarity: number;
  readonly text: string;
}

/** A step that did not apply. `message` names the file and line numbers, never its content. */
export interface EditStepFailure {
  readonly code: Extract<
    ErrorCode,
    'EDIT_NOT_FOUND' | 'EDIT_NOT_UNIQUE' | 'EDIT_INVALID' | 'ARGUMENT_VALIDATION'
  >;
  readonly message: string;
  readonly recovery?: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly nearest?: NearestLine;
}

/** Options of {@link applyEditStep}. */
export interface ApplyEditStepOptions {
  /** The file's dominant line ending; replacement text adopts it. */
  readonly lineEnding: LineEnding;
  /** How the file is named in messages. */
  readonly displayPath: string;
  /** Whether the caller offers `replace_all` (multi_edit) and so may suggest it. */
  readonly offersReplaceAll: boolean;
}

/** read_file's line-number prefix ("  12→") when a model copies it into old_string. */
const COPIED_PREFIX = /^\s*\d+→/;
const TAB_WIDTH = '    ';
const MAX_LISTED_MATCHES = 5;
const NEAREST_LINE_SCAN_LIMIT = 100_000;
const NEAREST_MIN_SIMILARITY = 0.5;

/**
 * Applies one replacement with the matching ladder. Each rung counts uniqueness in its own space and
 * the first rung that finds anything decides:
 * 1. exact substring (overlapping occurrences count, so "aa" in "aaa" is not unique);
 * 2. line-ending-normalised: `old_string` rewritten in the file's line ending (an LF `old_string` in a
 *    CRLF file);
 * 3. fuzzy, whole lines only: trailing whitespace ignored, tabs read as four spaces, read_file's
 *    copied `N→` prefixes stripped (from `new_string` too, when every line has one).
 * Replacement text adopts the file's line ending. Without `replace_all` exactly one match is
 * required: none is `EDIT_NOT_FOUND` (with the nearest similar line), several are `EDIT_NOT_UNIQUE`
 * (with up to five line numbers). An empty `old_string` is `ARGUMENT_VALIDATION`; an `old_string`
 * equal to `new_string` is `EDIT_INVALID`.
 */
export function applyEditStep(
  text: string,
  step: EditStep,
  options: ApplyEditStepOptions,
): { ok: true; value: AppliedEditStep } | { ok: false; error: EditStepFailure } {
  const { old_string: oldString, new_string: newString } = step;
  const replaceAll = step.replace_all === true;
  if (oldString.length === 0)
    return {
      ok: false,
      error: { code: 'ARGUMENT_VALIDATION', message: 'old_string is required (it is empty)' },
    };
  if (oldString === newString)
    return {
      ok: false,
      error: {
        code: 'EDIT_INVALID',
        message: 'old_string and new_string are identical, so the edit would change nothing',
        recovery: 'put the changed text in new_string',
      },
    };
  const adapt = (value: string) =>
    hasLineBreak(value) ? convertLineEndings(value, options.lineEnding) : value;
  const replacement = adapt(newString);

  for (const [strategy, needle] of [
    ['exact', oldString],
    ['line-endings', adapt(oldString)],
  ] as const) {
    if (strategy === 'line-endings' && needle === oldString) continue;
    const positions = findOccurrences(text, needle, replaceAll);
    if (positions.length === 0) continue;
    if (positions.length > 1 && !replaceAll) return notUnique(text, positions, options);
    const regions = positions.map((start) => ({ start, end: start + needle.length, replacement }));
    return { ok: true, value: splice(text, regions, strategy) };
  }

  const fuzzy = fuzzyRegions(text, oldString, newString, options.lineEnding, replaceAll);
  if (fuzzy.length > 1 && !replaceAll)
    return notUnique(
      text,
      fuzzy.map((region) => region.start),
      options,
      ' (comparing whole lines and ignoring trailing whitespace and tab width)',
    );
  if (fuzzy.length > 0) return { ok: true, value: splice(text, fuzzy, 'fuzzy') };
  return notFound(text, oldString, options);
}

/** Start offsets of `needle` in `text`: overlapping ones when counting for uniqueness, else non-overlapping. */
function findOccurrences(text: string, needle: string, nonOverlapping: boolean): number[] {
  const positions: number[] = [];
  const advance = nonOverlapping ? needle.length : 1;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + advance)) {
    positions.push(index);
    // Two are enough to know a single replacement is ambiguous; the count in the message is capped.
    if (!nonOverlapping && positions.length > 1000) break;
  }
  return positions;
}

interface PendingRegion {
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
}

function splice(text: string, regions: readonly PendingRegion[], strategy: MatchStrategy): AppliedEditStep {
  const parts: string[] = [];
  const replaced: ReplacedRegion[] = [];
  let cursor = 0;
  let length = 0;
  for (const region of regions) {
    const kept = text.slice(cursor, region.start);
    parts.push(kept, region.replacement);
    length += kept.length;
    replaced.push({
      start: region.start,
      end: region.end,
      newStart: length,
      newEnd: length + region.replacement.length,
    });
    length += region.replacement.length;
    cursor = region.end;
  }
  parts.push(text.slice(cursor));
  return { text: parts.join(''), strategy, regions: replaced };
}

function normaliseLine(line: string): string {
  return line.replace(/\t/g, TAB_WIDTH).trimEnd();
}

/** Removes read_file's "N→" prefixes when every non-empty line carries one. */
function stripCopiedPrefixes(lines: string[]): string[] {
  const nonEmpty = lines.filter((line) => line.length > 0);
  if (nonEmpty.length === 0 || !nonEmpty.every((line) => COPIED_PREFIX.test(line))) return lines;
  return lines.map((line) => line.replace(COPIED_PREFIX, ''));
}

function fuzzyRegions(
  text: string,
  oldString: string,
  newString: string,
  lineEnding: LineEnding,
  replaceAll: boolean,
): PendingRegion[] {
  let oldLines = splitLinesLoose(oldString);
  const oldEndsWithBreak = oldLines.length > 1 && oldLines.at(-1) === '';
  if (oldEndsWithBreak) oldLines.pop();
  oldLines = stripCopiedPrefixes(oldLines);
  const wanted = oldLines.map(normaliseLine);
  if (wanted.every((line) => line === '')) return [];

  let newLines = splitLinesLoose(newString);
  const newEndsWithBreak = newLines.length > 1 && newLines.at(-1) === '';
  if (newEndsWithBreak) newLines.pop();
  newLines = stripCopiedPrefixes(newLines);
  const separator = lineEnding === 'crlf' ? '\r\n' : lineEnding === 'cr' ? '\r' : '\n';
  const newBody = newString.length === 0 ? '' : newLines.join(separator);

  const lines = splitTextLines(text);
  const normalised = new Map<number, string>();
  const lineAt = (index: number) => {
    let value = normalised.get(index);
    if (value === undefined) {
      const line = lines[index]!;
      value = normaliseLine(text.slice(line.start, line.end));
      normalised.set(index, value);
    }
    return value;
  };
  const count = wanted.length;
  const regions: PendingRegion[] = [];
  for (let index = 0; index + count <= lines.length; index++) {
    let matches = true;
    for (let offset = 0; offset < count && matches; offset++)
      matches = lineAt(index + offset) === wanted[offset];
    if (!matches) continue;
    const first = lines[index]!;
    const last = lines[index + count - 1]!;
    const lastHasBreak = last.next > last.end;
    // An old_string ending in a line break covers the last line's break too; keep the file's final
    // newline state when that line had none.
    const end = oldEndsWithBreak ? last.next : last.end;
    const keepsBreak = newEndsWithBreak && !(oldEndsWithBreak && !lastHasBreak);
    const replacement = keepsBreak ? newBody + separator : newBody;
    regions.push({ start: first.start, end, replacement });
    if (!replaceAll && regions.length > 1) break;
    if (replaceAll) index += count - 1;
  }
  return regions;
}

function notUnique(
  text: string,
  positions: readonly number[],
  options: ApplyEditStepOptions,
  space = '',
): { ok: false; error: EditStepFailure } {
  const shown = positions.slice(0, MAX_LISTED_MATCHES + 1);
  const lines = lineNumbersAt(text, shown.slice(0, MAX_LISTED_MATCHES));
  const count = positions.length > 1000 ? 'more than 1000' : String(positions.length);
  const more =
    positions.length > MAX_LISTED_MATCHES ? ` and ${positions.length - MAX_LISTED_MATCHES} more` : '';
  return {
    ok: false,
    error: {
      code: 'EDIT_NOT_UNIQUE',
      message: `old_string is not unique in ${options.displayPath}${space} (${count} matches, at lines ${listLineNumbers(lines, MAX_LISTED_MATCHES)}${more})`,
      recovery: options.offersReplaceAll
        ? 'add nearby unique lines to old_string, not just repeated separator lines, or set replace_all if every match should change'
        : 'add nearby unique lines to old_string, not just repeated separator lines',
      details: { matches: positions.length, lines },
    },
  };
}

function notFound(
  text: string,
  oldString: string,
  options: ApplyEditStepOptions,
): { ok: false; error: EditStepFailure } {
  const nearest = nearestLine(text, oldString);
  return {
    ok: false,
    error: {
      code: 'EDIT_NOT_FOUND',
      message: `old_string not found in ${options.displayPath}${
        nearest
          ? ` (the most similar line is line ${nearest.line}, ${Math.round(nearest.similarity * 100)}% similar)`
          : ''
      }`,
      recovery:
        're-read the current file before retrying; if several related edits target the same area, combine the final replacements in one multi_edit call',
      details: nearest ? { nearestLine: nearest.line, similarity: nearest.similarity } : {},
      ...(nearest ? { nearest } : {}),
    },
  };
}

/** Character-bigram Dice similarity: cheap enough to compare one line against 100 000. */
function bigrams(value: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index + 1 < value.length; index++) {
    const pair = value.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return counts;
}

function similarity(probe: Map<string, number>, probeSize: number, candidate: string): number {
  if (candidate.length < 2 || probeSize === 0) return 0;
  const other = bigrams(candidate);
  let shared = 0;
  for (const [pair, count] of other) shared += Math.min(count, probe.get(pair) ?? 0);
  return (2 * shared) / (probeSize + candidate.length - 1);
}

function nearestLine(text: string, oldString: string): NearestLine | undefined {
  const candidates = stripCopiedPrefixes(splitLinesLoose(oldString)).map((line) => line.trim());
  const probeText = candidates.reduce((longest, line) => (line.length > longest.length ? line : longest), '');
  if (probeText.length < 2) return undefined;
  const probe = bigrams(probeText);
  const probeSize = probeText.length - 1;
  const lines = splitTextLines(text);
  let best: NearestLine | undefined;
  const limit = Math.min(lines.length, NEAREST_LINE_SCAN_LIMIT);
  for (let index = 0; index < limit; index++) {
    const line = lines[index]!;
    const content = text.slice(line.start, line.end);
    const trimmed = content.trim();
    if (Math.abs(trimmed.length - probeText.length) > Math.max(probeText.length, trimmed.length) * 0.6)
      continue;
    const score = similarity(probe, probeSize, trimmed);
    if (score >= NEAREST_MIN_SIMILARITY && (!best || score > best.similarity))
      best = { line: index + 1, similarity: score, text: content };
  }
  return best;
}
