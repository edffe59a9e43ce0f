import type { AnyToolDefinition } from '@toolhost/contracts';
import { createDeleteSymbolTool } from './delete-symbol.js';
import { type FileToolsOptions, resolveFileToolsOptions } from './file-tools-options.js';
import { createNotebookEditTool } from './notebook-edit.js';

/**
 * Creates the structured editors `notebook_edit` and `delete_symbol` (group `editing_builtins`,
 * sequential, not abortable), with the options of {@link createFileTools}: pass the same
 * `observations` store (and locks), so a `read_file` of the target is the observation they require
 * and their writes advance it for the other file tools.
 *
 * Throws a TypeError when `pathPolicy` or `observations` is missing.
 */
export function createStructuredEditTools(options: FileToolsOptions): AnyToolDefinition[] {
  const resolved = resolveFileToolsOptions(options);
  return [createNotebookEditTool(resolved), createDeleteSymbolTool(resolved)];
}
