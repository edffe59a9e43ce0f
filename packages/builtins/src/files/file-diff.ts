import { convertLineEndings } from '@toolhost/read-evidence';
import { lazyRequire } from '@toolhost/internal';
import { countLineBreaks } from './text-lines.js';

/**
 * The diff library, loaded on the first diff (issue 25: cold start; its ES build is 19 modules that
 * every toolhost process would otherwise resolve and parse at start-up, while most never diff). It
 * ships a CommonJS build, so a synchronous require keeps the caller synchronous.
 */
const loadDiff = lazyRequire<typeof import('diff')>(import.meta.url, 'diff');

/** Options of {@link formatUnifiedDiff}. */
export interface FormatUnifiedDiffOptions {
  readonly oldText: string;
  readonly newText: string;
  /** Length of the prefix both texts share (0 when unknown). */
  readonly prefixLength: number;
  /** Length of the suffix both texts share (0 when unknown). */
  readonly suffixLength: number;
  readonly displayPath: string;
  /** Most lines in the diff. */
  readonly maxLines: number;
  /** Most bytes in the diff. */
  readonly maxBytes: number;
}

const CONTEXT_LINES = 3;
const MAX_EXCERPT_CHARS = 4 * 1024 * 1024;

function isBreak(code: number): boolean {
  return code === 10 || code === 13;
}

/** Index where the line containing `offset` starts. */
function lineStart(text: string, offset: number): number {
  let index = offset;
  while (index > 0 && !isBreak(text.charCodeAt(index - 1))) index--;
  return index;
}

/** Index after the line break that ends the line containing `offset` (or the text's end). */
function lineEndAfter(text: string, offset: number): number {
  let index = offset;
  while (index < text.length && !isBreak(text.charCodeAt(index))) index++;
  if (index < text.length)
    index += text.charCodeAt(index) === 13 && text.charCodeAt(index + 1) === 10 ? 2 : 1;
  return index;
}

function backLines(text: string, start: number, count: number): number {
  let index = start;
  for (let line = 0; line < count && index > 0; line++) {
    index--;
    if (text.charCodeAt(index) === 10 && text.charCodeAt(index - 1) === 13) index--;
    index = lineStart(text, index);
  }
  return index;
}

function forwardLines(text: string, end: number, count: number): number {
  let index = end;
  for (let line = 0; line < count && index < text.length; line++) index = lineEndAfter(text, index);
  return index;
}

/** A unified diff and the 1-based line where the change starts (the same in both versions). */
export interface UnifiedDiff {
  readonly text: string;
  /** The line that holds the first changed character (found while diffing, so callers need not count lines again). */
  readonly changeLine: number;
}

/**
 * A unified diff of two versions of a file that share a known prefix and suffix. Only the changed
 * span plus three context lines is diffed (with the `diff` package), so a one-line edit of a 50 MB
 * file costs about what one of a small file does. Line endings are shown as LF. Bounded by
 * `maxLines` and `maxBytes`, with a notice saying how much was left out.
 */
export function formatUnifiedDiff(options: FormatUnifiedDiffOptions): UnifiedDiff {
  const { oldText, newText, prefixLength, suffixLength } = options;
  const changeStart = lineStart(oldText, prefixLength);
  const oldChangeEnd = oldText.length - suffixLength;
  // From the change's end on, both texts are the same (the shared suffix), so one distance serves both.
  const oldLineEnd =
    oldChangeEnd > changeStart && !isBreak(oldText.charCodeAt(oldChangeEnd - 1))
      ? lineEndAfter(oldText, oldChangeEnd)
      : oldChangeEnd;
  const excerptStart = backLines(oldText, changeStart, CONTEXT_LINES);
  const oldExcerptEnd = forwardLines(oldText, oldLineEnd, CONTEXT_LINES);
  const newExcerptEnd = newText.length - (oldText.length - oldExcerptEnd);
  const firstLine = countLineBreaks(oldText, 0, excerptStart) + 1;
  const changeLine = firstLine + countLineBreaks(oldText, excerptStart, prefixLength);

  const header = `--- a/${options.displayPath}\n+++ b/${options.displayPath}\n`;
  if (oldExcerptEnd - excerptStart > MAX_EXCERPT_CHARS || newExcerptEnd - excerptStart > MAX_EXCERPT_CHARS)
    return { changeLine, text: `${header}(diff not shown: the changes span too much of the file)\n` };
  const patch = loadDiff().structuredPatch(
    'a',
    'b',
    convertLineEndings(oldText.slice(excerptStart, oldExcerptEnd), 'lf'),
    convertLineEndings(newText.slice(excerptStart, newExcerptEnd), 'lf'),
    undefined,
    undefined,
    { context: CONTEXT_LINES, maxEditLength: 20_000, timeout: 500 },
  );
  if (!patch) return { changeLine, text: `${header}(diff not shown: too many changed lines to compare)\n` };

  const lines: string[] = [];
  for (const hunk of patch.hunks)
    lines.push(
      `@@ -${hunk.oldStart + firstLine - 1},${hunk.oldLines} +${hunk.newStart + firstLine - 1},${hunk.newLines} @@`,
      ...hunk.lines,
    );
  let text = header;
  let bytes = Buffer.byteLength(header);
  let shown = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (shown >= options.maxLines || bytes + size > options.maxBytes) break;
    text += `${line}\n`;
    bytes += size;
    shown++;
  }
  if (shown < lines.length) text += `... diff truncated: ${lines.length - shown} more lines not shown\n`;
  return { changeLine, text };
}
