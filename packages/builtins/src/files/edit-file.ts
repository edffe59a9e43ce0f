import { type AnyToolDefinition, defineTool, errorResult, textResult } from '@toolhost/contracts';
import type { EditFileArguments } from './file-arguments.js';
import { formatUnifiedDiff } from './file-diff.js';
import { editFailureResult } from './file-edit-result.js';
import { mutateTextFile, resolveFilePath } from './file-mutation.js';
import { editFileArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import { type AppliedEdits, applyEdits } from './text-edits.js';
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
  const { limits } = options;
  return defineTool({
    name: 'edit_file',
    source: 'builtin',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: limits.writeTimeoutMs, abortable: false },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    modelTool: { name: 'edit_file', description: DESCRIPTION, inputSchema: editFileArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }],
      subject: (args) => args.path,
      preview: (args) => `edit_file ${args.path}`,
    },
    async execute(args: EditFileArguments, context) {
      const target = resolveFilePath(options.pathPolicy, args.path, 'write', 'path', context.resolvedPaths);
      if (!target.ok) return errorResult(target.error);
      const { displayPath } = target.value;
      const outcome = await mutateTextFile(
        options,
        options.observationsFor(context),
        target.value,
        ({ decoded }) => {
          const applied = applyEdits(decoded.text, [args], {
            lineEnding: decoded.lineEnding,
            displayPath,
            offersReplaceAll: false,
          });
          if (!applied.ok) return { ok: false, result: editFailureResult(applied.error, '') };
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
      const diff = formatUnifiedDiff({
        oldText: before,
        newText: applied.text,
        prefixLength: applied.prefixLength,
        suffixLength: applied.suffixLength,
        displayPath,
        maxLines: limits.maxDiffLines,
        maxBytes: limits.maxDiffBytes,
      });
      const fuzzy = applied.fuzzy ? ' (fuzzy match)' : '';
      return textResult(
        `edited ${displayPath}${fuzzy}: ${landedText(before, applied.text, applied, diff.changeLine)}\n${diff.text}${outcome.notice ? `\n${outcome.notice}` : ''}`,
        {
          path: displayPath,
          replacements: applied.replacements,
          strategy: applied.strategies[0],
          fuzzy: applied.fuzzy,
        },
      );
    },
  });
}
