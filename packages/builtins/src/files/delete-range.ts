import { type AnyToolDefinition, defineTool, errorResult, textResult } from '@toolhost/contracts';
import type { DeleteRangeArguments } from './file-arguments.js';
import { formatUnifiedDiff } from './file-diff.js';
import { editFailureResult } from './file-edit-result.js';
import { mutateTextFile, resolveFilePath } from './file-mutation.js';
import { deleteRangeArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import type { EditStepFailure } from './match-edit.js';
import type { FailedEdit } from './text-edits.js';
import { hasLineBreak, lineRangeText, listLineNumbers, splitTextLines, type TextLine } from './text-lines.js';

const DESCRIPTION = [
  'Delete a contiguous range of lines between two anchor lines. Each anchor is the full text of one line of the file (without read_file\'s "N→" prefix) and must occur exactly once; the range includes the anchor lines unless inclusive is false.',
  'Requires a current observation of the file (read any window of it with read_file first). Line endings and the final newline are kept; the result shows a unified diff.',
].join('\n');

const COPIED_PREFIX = /^\s*\d+→/;

/** The anchor as a line to compare: one trailing line break and a copied "N→" prefix removed. */
function anchorLine(anchor: string): string | undefined {
  const line = anchor.replace(/\r?\n$|\r$/, '').replace(COPIED_PREFIX, '');
  return hasLineBreak(line) ? undefined : line;
}

const loose = (line: string) => line.replace(/\t/g, '    ').trimEnd();

/**
 * Finds the one line equal to an anchor: exact (trailing CR ignored) first, then with trailing
 * whitespace and tab width ignored. Returns the 0-based index, or a failure naming the anchor.
 */
function findAnchor(
  text: string,
  lines: readonly TextLine[],
  anchor: string,
  name: 'start_anchor' | 'end_anchor',
  displayPath: string,
): { ok: true; index: number; fuzzy: boolean } | { ok: false; error: EditStepFailure } {
  const wanted = anchorLine(anchor);
  if (wanted === undefined)
    return {
      ok: false,
      error: {
        code: 'EDIT_INVALID',
        message: `${name} must be a single line`,
        recovery: 'pass the full text of one line as each anchor',
      },
    };
  for (const [fuzzy, compare] of [
    [false, (line: string) => line === wanted],
    [true, (line: string) => loose(line) === loose(wanted)],
  ] as const) {
    const found: number[] = [];
    for (const [index, line] of lines.entries())
      if (compare(text.slice(line.start, line.end))) {
        found.push(index);
        if (found.length > 50) break;
      }
    if (found.length === 1) return { ok: true, index: found[0]!, fuzzy };
    if (found.length > 1)
      return {
        ok: false,
        error: {
          code: 'EDIT_NOT_UNIQUE',
          message: `${name} matches ${found.length > 50 ? 'more than 50' : found.length} lines of ${displayPath} (lines ${listLineNumbers(
            found.map((index) => index + 1),
          )})`,
          recovery: 'choose an anchor line that occurs once, or use edit_file with surrounding lines',
          details: { anchor: name, lines: found.slice(0, 5).map((index) => index + 1) },
        },
      };
  }
  return {
    ok: false,
    error: {
      code: 'EDIT_NOT_FOUND',
      message: `${name} matches no whole line of ${displayPath}`,
      recovery: 're-read the file and copy one complete line as the anchor',
      details: { anchor: name },
    },
  };
}

/**
 * Creates `delete_range`: deletes the lines between two unique whole-line anchors, inclusive by
 * default, keeping line endings and the final newline, with a unified diff (DEL-1..DEL-3 in REQUIREMENTS.md).
 * Sequential and not abortable.
 */
export function createDeleteRangeTool(options: ResolvedFileToolsOptions): AnyToolDefinition {
  const { limits } = options;
  return defineTool({
    name: 'delete_range',
    source: 'builtin',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: limits.writeTimeoutMs, abortable: false },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    modelTool: { name: 'delete_range', description: DESCRIPTION, inputSchema: deleteRangeArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }],
      subject: (args) => args.path,
      preview: (args) => `delete_range ${args.path}`,
    },
    async execute(args: DeleteRangeArguments, context) {
      const target = resolveFilePath(options.pathPolicy, args.path, 'write', 'path', context.resolvedPaths);
      if (!target.ok) return errorResult(target.error);
      const { displayPath } = target.value;
      const inclusive = args.inclusive ?? true;
      const failed = (error: EditStepFailure) => ({
        ok: false as const,
        result: editFailureResult({ index: 0, error } satisfies FailedEdit, ''),
      });
      const outcome = await mutateTextFile(
        options,
        options.observationsFor(context),
        target.value,
        ({ decoded }) => {
          const text = decoded.text;
          const lines = splitTextLines(text);
          const start = findAnchor(text, lines, args.start_anchor, 'start_anchor', displayPath);
          if (!start.ok) return failed(start.error);
          const end = findAnchor(text, lines, args.end_anchor, 'end_anchor', displayPath);
          if (!end.ok) return failed(end.error);
          if (start.index > end.index)
            return failed({
              code: 'EDIT_INVALID',
              message: `start_anchor (line ${start.index + 1}) comes after end_anchor (line ${end.index + 1}) in ${displayPath}`,
              recovery: 'swap the anchors',
            });
          const first = inclusive ? start.index : start.index + 1;
          const last = inclusive ? end.index : end.index - 1;
          if (last < first)
            return failed({
              code: 'EDIT_INVALID',
              message: `no lines lie between the anchors (lines ${start.index + 1} and ${end.index + 1}) with inclusive=false`,
              recovery:
                'set inclusive=true to delete the anchor lines themselves, or choose anchors further apart',
            });
          const firstLine = lines[first]!;
          const lastLine = lines[last]!;
          let from = firstLine.start;
          const to = lastLine.next;
          // Deleting the last lines of a file without a final newline: take the break before them
          // instead, so the file still ends without one.
          if (to === text.length && lastLine.next === lastLine.end && first > 0) from = lines[first - 1]!.end;
          return {
            ok: true,
            text: text.slice(0, from) + text.slice(to),
            report: { first: first + 1, last: last + 1, from, to, fuzzy: start.fuzzy || end.fuzzy },
            span: { prefixLength: from, suffixLength: text.length - to },
          };
        },
      );
      if (!outcome.ok) return outcome.result;
      const { first, last, from, to, fuzzy } = outcome.report;
      const before = outcome.source.decoded.text;
      const after = before.slice(0, from) + before.slice(to);
      const diff = formatUnifiedDiff({
        oldText: before,
        newText: after,
        prefixLength: from,
        suffixLength: before.length - to,
        displayPath,
        maxLines: limits.maxDiffLines,
        maxBytes: limits.maxDiffBytes,
      });
      const count = last - first + 1;
      return textResult(
        `deleted ${lineRangeText(first, last)} of ${displayPath} (${count} line${count === 1 ? '' : 's'})${fuzzy ? ' (fuzzy match)' : ''}\n${diff.text}${outcome.notice ? `\n${outcome.notice}` : ''}`,
        { path: displayPath, firstLine: first, lastLine: last, deletedLines: count, inclusive },
      );
    },
  });
}
