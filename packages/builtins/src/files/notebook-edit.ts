import {
  type AnyToolDefinition,
  defineTool,
  type ToolCallContext,
  type ToolResult,
} from '@toolhost/contracts';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import type { NotebookEditArguments } from './notebook-arguments.js';
import { notebookEditArgumentsSchema } from './notebook-schemas.generated.js';

const DESCRIPTION = [
  'Edit one cell of a Jupyter notebook (.ipynb): replace its source (edit_mode="replace", the default), insert a new cell after it (edit_mode="insert", needs cell_type; cell_number=-1 inserts at the start, no cell at the end), or delete it (edit_mode="delete").',
  'Select the cell by its 0-based cell_number or its cell_id, as read_file of the notebook shows them. Replacing a code cell clears its outputs and execution count; cell_type converts a cell. The notebook stays valid nbformat 4: new cells get ids when the notebook has them, and the rest of the file (key order, indentation, other cells) is kept byte for byte.',
  'Requires a current observation of the notebook (read it with read_file first).',
].join('\n');

/**
 * Creates `notebook_edit`: replaces, inserts or deletes one cell of an nbformat 4 notebook under
 * the edit_file observation protocol (read first, stale check, atomic write, observation advanced).
 * The edit is applied to the file's text with jsonc-parser, so only the changed cell's bytes
 * change; the result is parsed and checked again before anything is written. The editing code
 * loads on the first call. Sequential and not abortable.
 *
 * Error codes: the path policy's, `FS_NOT_OBSERVED`, `FS_STALE_VERSION`, `FS_NOT_FOUND`,
 * `NOTEBOOK_INVALID` (not an nbformat 4 notebook, no such cell), `ARGUMENT_VALIDATION` (a missing
 * `new_source` or `cell_type`, cell_id and cell_number naming different cells, a non-.ipynb path),
 * `FILE_BINARY`, `EXECUTION_ERROR`.
 */
export function createNotebookEditTool(options: ResolvedFileToolsOptions): AnyToolDefinition {
  const { limits } = options;
  let executor:
    | Promise<(args: NotebookEditArguments, context: ToolCallContext) => Promise<ToolResult>>
    | undefined;
  return defineTool({
    name: 'notebook_edit',
    source: 'builtin',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: limits.writeTimeoutMs, abortable: false },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    modelTool: { name: 'notebook_edit', description: DESCRIPTION, inputSchema: notebookEditArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }],
      subject: (args) => args.path,
      preview: (args) => `notebook_edit ${args.edit_mode ?? 'replace'} ${args.path}`,
    },
    async execute(args: NotebookEditArguments, context) {
      executor ??= import('./notebook-edit-run.js').then((module) =>
        module.createNotebookEditExecutor(options),
      );
      return (await executor)(args, context);
    },
  });
}
