/** Helpers that work on text with its line endings as found (LF, CRLF or CR). */

/**
 * Line breaks (LF, CRLF or a lone CR, each counted once) in `text[start, end)`. Uses
 * String#indexOf, which is much faster than a character loop on multi-megabyte texts.
 */
export function countLineBreaks(text: string, start = 0, end = text.length): number {
  // A slice is a view (no copy) that bounds every indexOf, including the last, failing one, which
  // would otherwise scan to the end of a multi-megabyte text.
  const part = start === 0 && end === text.length ? text : text.slice(start, end);
  let count = 0;
  for (let index = part.indexOf('\n'); index !== -1; index = part.indexOf('\n', index + 1)) count++;
  for (let index = part.indexOf('\r'); index !== -1; index = part.indexOf('\r', index + 1))
    if (part.charCodeAt(index + 1) !== 10) count++;
  return count;
}

/** The 1-based line number of a character offset (a line break belongs to the line it ends). */
export function lineNumberAt(text: string, offset: number): number {
  return 1 + countLineBreaks(text, 0, offset);
}

/** The 1-based line numbers of several ascending character offsets, counting each stretch once. */
export function lineNumbersAt(text: string, offsets: readonly number[]): number[] {
  const result: number[] = [];
  let line = 1;
  let previous = 0;
  for (const offset of offsets) {
    line += countLineBreaks(text, previous, offset);
    previous = offset;
    result.push(line);
  }
  return result;
}

/** A line of a text: where it starts, where its content ends, and where the next line starts. */
export interface TextLine {
  readonly start: number;
  /** End of the content (before the terminator). */
  readonly end: number;
  /** Start of the next line (after the terminator); equals `end` for a last line without one. */
  readonly next: number;
}

/** Splits a text into lines with their offsets; a trailing line break does not start an extra line. */
export function splitTextLines(text: string): TextLine[] {
  const lines: TextLine[] = [];
  let start = 0;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code !== 10 && code !== 13) continue;
    const next = code === 13 && text.charCodeAt(index + 1) === 10 ? index + 2 : index + 1;
    lines.push({ start, end: index, next });
    start = next;
    index = next - 1;
  }
  if (start < length) lines.push({ start, end: length, next: length });
  return lines;
}

/** Splits a string into lines on LF, CRLF or CR (no offsets). A final line break adds an empty last element. */
export function splitLinesLoose(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Whether a string contains a line break. */
export function hasLineBreak(text: string): boolean {
  return text.includes('\n') || text.includes('\r');
}

/** Describes 1-based line numbers as "3, 8, 12 and 2 more" with at most `max` listed. */
export function listLineNumbers(lines: readonly number[], max = 5): string {
  const shown = lines.slice(0, max).join(', ');
  return lines.length > max ? `${shown} and ${lines.length - max} more` : shown;
}

/** Formats an inclusive line range: "line 4" or "lines 4-9". */
export function lineRangeText(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}
