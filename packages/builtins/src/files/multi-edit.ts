import { type AnyToolDefinition, defineTool, errorResult, textResult } from '@toolhost/contracts';
import type { MultiEditArguments } from './file-arguments.js';
import { formatUnifiedDiff } from './file-diff.js';
import { editFailureResult } from './file-edit-result.js';
import { mutateTextFile, resolveFilePath } from './file-mutation.js';
import { multiEditArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import { applyEdits } from './text-edits.js';
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
  const { limits } = options;
  return defineTool({
    name: 'multi_edit',
    source: 'builtin',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: limits.writeTimeoutMs, abortable: false },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    modelTool: { name: 'multi_edit', description: DESCRIPTION, inputSchema: multiEditArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }],
      subject: (args) => args.path,
      preview: (args) => `multi_edit ${args.path} (${args.edits.length} edits)`,
    },
    async execute(args: MultiEditArguments, context) {
      const target = resolveFilePath(options.pathPolicy, args.path, 'write', 'path', context.resolvedPaths);
      if (!target.ok) return errorResult(target.error);
      const { displayPath } = target.value;
      // Check every step's arguments before touching the file (MEDIT-2).
      for (const [index, step] of args.edits.entries())
        if (step.old_string.length === 0)
          return editFailureResult(
            {
              index,
              error: { code: 'ARGUMENT_VALIDATION', message: 'old_string is required (it is empty)' },
            },
            `edit ${index + 1}: `,
          );
      const outcome = await mutateTextFile(
        options,
        options.observationsFor(context),
        target.value,
        ({ decoded }) => {
          const applied = applyEdits(decoded.text, args.edits, {
            lineEnding: decoded.lineEnding,
            displayPath,
            offersReplaceAll: true,
          });
          if (!applied.ok)
            return {
              ok: false,
              result: editFailureResult(applied.error, `edit ${applied.error.index + 1}: `),
            };
          return {
            ok: true,
            text: applied.value.text,
            report: applied.value,
            span: { prefixLength: applied.value.prefixLength, suffixLength: applied.value.suffixLength },
          };
        },
      );
      if (!outcome.ok) return outcome.result;
      if (!outcome.changed)
        return textResult(`${displayPath} is unchanged: the replacement equals the text it matched`, {
          path: displayPath,
          replacements: 0,
        });
      const applied = outcome.report;
      const before = outcome.source.decoded.text;
      const count = args.edits.length;
      const fuzzy = applied.fuzzy ? ' (fuzzy match)' : '';
      const header = `multi_edit ${displayPath}: ${count} edit${count === 1 ? '' : 's'} applied (${applied.replacements} total replacement${applied.replacements === 1 ? '' : 's'})${fuzzy}`;
      const diff = formatUnifiedDiff({
        oldText: before,
        newText: applied.text,
        prefixLength: applied.prefixLength,
        suffixLength: applied.suffixLength,
        displayPath,
        maxLines: limits.maxDiffLines,
        maxBytes: limits.maxDiffBytes,
      });
      const changedEnd = applied.text.length - applied.suffixLength;
      const lastLine = diff.changeLine + countLineBreaks(applied.text, applied.prefixLength, changedEnd - 1);
      const where =
        changedEnd > applied.prefixLength
          ? `; the changes now span ${lineRangeText(diff.changeLine, lastLine)}`
          : '';
      return textResult(`${header}${where}\n${diff.text}${outcome.notice ? `\n${outcome.notice}` : ''}`, {
        path: displayPath,
        edits: count,
        replacements: applied.replacements,
        strategies: applied.strategies,
        fuzzy: applied.fuzzy,
      });
    },
  });
}
