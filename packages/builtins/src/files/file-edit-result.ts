import { errorResult, type ToolResult, ToolhostError } from '@toolhost/contracts';
import type { DecodedText } from '@toolhost/read-evidence';
import type { TextEditPlan } from './edit-tool.js';
import type { EditStep } from './match-edit.js';
import { type AppliedEdits, applyEdits, type FailedEdit } from './text-edits.js';

/**
 * Turns a failed edit step into a tool result. `prefix` is "edit N: " for multi_edit. The most
 * similar line's text goes into the result's output (what the model needs to fix its old_string),
 * never into the error message.
 */
export function editFailureResult(failure: FailedEdit, prefix: string): ToolResult {
  const { error } = failure;
  const toolError = new ToolhostError({
    code: error.code,
    message: `${prefix}${error.message}`,
    ...(error.recovery === undefined ? {} : { recovery: error.recovery }),
    details: { ...(error.details ?? {}), ...(prefix ? { edit: failure.index + 1 } : {}) },
  });
  if (!error.nearest) return errorResult(toolError);
  const text = error.nearest.text.length > 240 ? `${error.nearest.text.slice(0, 240)}…` : error.nearest.text;
  return errorResult(toolError, {
    content: [
      { type: 'text', text: `most similar line (${error.nearest.line}):\n${error.nearest.line}→${text}` },
    ],
  });
}

/**
 * The plan of edit_file and multi_edit: the replacement steps applied in memory to the decoded text
 * (the file's own line ending; `offersReplaceAll` when a step may set replace_all), or the failed
 * step's result, its message prefixed by `failurePrefix` of the step's 0-based index.
 */
export function replacementPlan(
  decoded: DecodedText,
  steps: readonly EditStep[],
  displayPath: string,
  offersReplaceAll: boolean,
  failurePrefix: (index: number) => string,
): TextEditPlan<AppliedEdits> {
  const applied = applyEdits(decoded.text, steps, {
    lineEnding: decoded.lineEnding,
    displayPath,
    offersReplaceAll,
  });
  if (!applied.ok)
    return { ok: false, result: editFailureResult(applied.error, failurePrefix(applied.error.index)) };
  return {
    ok: true,
    text: applied.value.text,
    report: applied.value,
    span: { prefixLength: applied.value.prefixLength, suffixLength: applied.value.suffixLength },
  };
}
