import {
  type AnyToolDefinition,
  defineTool,
  type ToolCallContext,
  type ToolResult,
} from '@toolhost/contracts';
import type { DeleteSymbolArguments } from '../discovery/code-arguments.js';
import { deleteSymbolArgumentsSchema } from '../discovery/code-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';

const DESCRIPTION = [
  'Delete one named definition from a source file using its syntax tree: a function, a method (Go: Type.Method), a type, class, interface, enum, variable or constant, together with the doc comment directly above it and its decorators, attributes or annotations. Go, TypeScript, JavaScript, Python, Rust, Java, C and C++.',
  'Requires a current observation of the file (read any window of it with read_file first). The file must parse without errors before and after the deletion, or nothing is written. An ambiguous name is refused with the candidates (qualify it as Container.name or pass kind); an unknown one with close names. The result shows a unified diff. For text that is not one definition use delete_range.',
].join('\n');

/**
 * Creates `delete_symbol`: deletes one definition found in the file's tree-sitter syntax tree, with
 * its doc comment and decorators, under the edit_file observation protocol (read first, stale
 * check, atomic write, observation advanced). The file must parse without errors before and after,
 * or nothing is written. The deleting code and tree-sitter load on the first call. Sequential and
 * not abortable.
 *
 * Error codes: the path policy's, `FS_NOT_OBSERVED`, `FS_STALE_VERSION`, `FS_NOT_FOUND`,
 * `FILE_UNSUPPORTED` (a language it does not parse), `FILE_BINARY`, `SYMBOL_NOT_FOUND` (with close
 * names), `SYMBOL_AMBIGUOUS` (with the candidates), `EDIT_INVALID` (the file does not parse now, or
 * would not after the deletion; a name declared together with others), `EXECUTION_ERROR`.
 */
export function createDeleteSymbolTool(options: ResolvedFileToolsOptions): AnyToolDefinition {
  const { limits } = options;
  let executor:
    | Promise<(args: DeleteSymbolArguments, context: ToolCallContext) => Promise<ToolResult>>
    | undefined;
  return defineTool({
    name: 'delete_symbol',
    source: 'builtin',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: limits.writeTimeoutMs, abortable: false },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    modelTool: { name: 'delete_symbol', description: DESCRIPTION, inputSchema: deleteSymbolArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }],
      subject: (args) => args.path,
      preview: (args) => `delete_symbol ${args.symbol} in ${args.path}`,
    },
    async execute(args: DeleteSymbolArguments, context) {
      executor ??= import('./delete-symbol-run.js').then((module) =>
        module.createDeleteSymbolExecutor(options),
      );
      return (await executor)(args, context);
    },
  });
}
