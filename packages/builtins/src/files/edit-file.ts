import type { AnyToolDefinition } from '@toolhost/contracts';
import { defineEditTool, textEditHandler, unchangedReplacementResult } from './edit-tool.js';
import type { EditFileArguments } from './file-arguments.js';
import { replacementPlan } from './file-edit-result.js';
import { editFileArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import type { AppliedEdits } from './text-edits.js';
import { countLineBreaks, lineRangeText } from './text-lines.js';

const DESCRIPTION = [
  'Replace one exact, unique piece of text in a file with another. old_string must occur exactly once: include enough surrounding lines to make it unique, and copy it without read_file\'s "N→" prefixes.',
  'Requires a current observation of the file: read any window of it with read_file first (a window anywhere in the file is enough). After a successful edit the observation advances, so further edits need no re-read. An LF old_string matches a CRLF file; if nothing matches exactly, a unique match that differs only in trailing whitespace or tab width is applied and marked "(fuzzy match)".',
  'The result shows a unified diff and the lines where the replacement landed. For several changes to one file use multi_edit.',
].join('\n');

/**
 * Where a single replacement was and where it landed ("replaced lines 10-12; the new text is at
 * lines 10-14"). `changeLine` is the line of the replacement's start, the same in both versions.
 */
export function landedText(before: string, after: string, applied: AppliedEdits, changeLine: number): string {
  const region = applied.lastRegions[0];
  if (!region) return '';
  const oldLast = changeLine + countLineBreaks(before, region.start, Math.max(region.start, region.end - 1));
  if (region.newEnd === region.newStart) return `removed ${lineRangeText(changeLine, oldLast)}`;
  const newLast =
    changeLine + countLineBreaks(after, region.newStart, Math.max(region.newStart, region.newEnd - 1));
  return `replaced ${lineRangeText(changeLine, oldLast)}; the new text is at ${lineRangeText(changeLine, newLast)}`;
}

/**
 * Creates `edit_file`: one exact, unique replacement through the matching ladder (exact,
 * line-ending-normalised, fuzzy), with a bounded unified diff and where the change landed
 * (EDIT-1..EDIT-11 in REQUIREMENTS.md). Sequential and not abortable.
 */
export function createEditFileTool(options: ResolvedFileToolsOptions): AnyToolDefinition {
  return defineEditTool(options, {
    name: 'edit_file',
    description: DESCRIPTION,
    inputSchema: editFileArgumentsSchema,
    preview: (args) => `edit_file ${args.path}`,
    execute: textEditHandler(options, {
      plan: (args: EditFileArguments, decoded, displayPath) =>
        replacementPlan(decoded, [args], displayPath, false, () => ''),
      unchanged: unchangedReplacementResult,
      summary: (_args, { report: applied, displayPath, before, changeLine }) => ({
        text: `edited ${displayPath}${applied.fuzzy ? ' (fuzzy match)' : ''}: ${landedText(before, applied.text, applied, changeLine)}`,
        details: {
          path: displayPath,
          replacements: applied.replacements,
          strategy: applied.strategies[0],
          fuzzy: applied.fuzzy,
        },
      }),
    }),
  });
}
