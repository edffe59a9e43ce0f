import type { AnyToolDefinition } from '@toolhost/contracts';
import { createDeleteRangeTool } from './delete-range.js';
import { createEditFileTool } from './edit-file.js';
import { type FileToolsOptions, resolveFileToolsOptions } from './file-tools-options.js';
import { createMoveFileTool } from './move-file.js';
import { createMultiEditTool } from './multi-edit.js';
import { createReadFileTool } from './read-file.js';
import { createWriteFileTool } from './write-file.js';

/**
 * Creates the file tools: `read_file` (group `read_only_builtins`: parallel, abortable, result shape
 * `read`) and `write_file`, `edit_file`, `multi_edit`, `delete_range`, `move_file` (group
 * `editing_builtins`: sequential and not abortable, so a write never lands after a reported timeout).
 *
 * Every path goes through `options.pathPolicy` (read access for read_file, write access for the
 * others; move_file checks both paths), each tool declares `permission.paths` so the host's
 * permission step can run the policy first, and writers re-check the policy immediately before they
 * commit. Observations live in `options.observations` (one store per agent): read_file and every
 * successful write record them; the writers require a current one for an existing target (evidence
 * is enforced inside the tools, under the mutation lock, so the check and the write cannot be
 * separated). No other tool receives the store, so shell, grep, glob and ls never create observations.
 *
 * Throws a TypeError when `pathPolicy` or `observations` is missing.
 */
export function createFileTools(options: FileToolsOptions): AnyToolDefinition[] {
  const resolved = resolveFileToolsOptions(options);
  return [
    createReadFileTool(resolved),
    createWriteFileTool(resolved),
    createEditFileTool(resolved),
    createMultiEditTool(resolved),
    createDeleteRangeTool(resolved),
    createMoveFileTool(resolved),
  ];
}
