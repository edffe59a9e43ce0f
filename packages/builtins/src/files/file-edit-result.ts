import { errorResult, type ToolResult, ToolhostError } from '@toolhost/contracts';
import type { FailedEdit } from './text-edits.js';

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
