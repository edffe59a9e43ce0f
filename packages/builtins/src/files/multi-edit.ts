import type { AnyToolDefinition } from '@toolhost/contracts';
import { defineEditTool, textEditHandler, unchangedReplacementResult } from './edit-tool.js';
import type { MultiEditArguments } from './file-arguments.js';
import { editFailureResult, replacementPlan } from './file-edit-result.js';
import { multiEditArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import { countLineBreaks, lineRangeText } from './text-lines.js';

const DESCRIPTION = [
  'Apply several replacements to one file, in order, each to the result of the previous one; either every edit applies or the file is left untouched. Each old_string must occur exactly once unless its replace_all is true.',
  'Requires a current observation of the file (read any window of it with read_file first). Matching works as in edit_file (exact, then line-ending-normalised, then a unique fuzzy match). Failures name the edit: "edit 2: ...".',
].join('\n');

/**
 * Creates `multi_edit`: ordered replacements applied in memory, all or nothing, failures prefixed
 * "edit N:" (MEDIT-1, MEDIT-2 in REQUIREMENTS.md); one write and one observation advance. Sequential, not abortable.
 */
export function createMultiEditTool(options: ResolvedFileToolsOptions): AnyToolDefinition {
  return defineEditTool(options, {
    name: 'multi_edit',
    description: DESCRIPTION,
    inputSchema: multiEditArgumentsSchema,
    preview: (args) => `multi_edit ${args.path} (${args.edits.length} edits)`,
    execute: textEditHandler(options, {
      // Check every step's arguments before touching the file (MEDIT-2).
      check(args: MultiEditArguments) {
        for (const [index, step] of args.edits.entries())
          if (step.old_string.length === 0)
            return editFailureResult(
              {
                index,
                error: { code: 'ARGUMENT_VALIDATION', message: 'old_string is required (it is empty)' },
              },
              `edit ${index + 1}: `,
            );
        return undefined;
      },
      plan: (args, decoded, displayPath) =>
        replacementPlan(decoded, args.edits, displayPath, true, (index) => `edit ${index + 1}: `),
      unchanged: unchangedReplacementResult,
      summary(args, { report: applied, displayPath, changeLine }) {
        const count = args.edits.length;
        const fuzzy = applied.fuzzy ? ' (fuzzy match)' : '';
        const header = `multi_edit ${displayPath}: ${count} edit${count === 1 ? '' : 's'} applied (${applied.replacements} total replacement${applied.replacements === 1 ? '' : 's'})${fuzzy}`;
        const changedEnd = applied.text.length - applied.suffixLength;
        const lastLine = changeLine + countLineBreaks(applied.text, applied.prefixLength, changedEnd - 1);
        const where =
          changedEnd > applied.prefixLength
            ? `; the changes now span ${lineRangeText(changeLine, lastLine)}`
            : '';
        return {
          text: `${header}${where}`,
          details: {
            path: displayPath,
            edits: count,
            replacements: applied.replacements,
            strategies: applied.strategies,
            fuzzy: applied.fuzzy,
          },
        };
      },
    }),
  });
}
