import { defineTool, type ToolCallContext, type ToolDefinition, type ToolResult } from '@toolhost/contracts';
import type { PathPolicy } from '@toolhost/path-policy';
import type { CodeIndexArguments } from './code-arguments.js';
import { codeIndexArgumentsSchema } from './code-schemas.generated.js';
import { DISCOVERY_ANNOTATIONS, discoveryExecution, searchPathAccess } from './discovery-definition.js';

/** Options of {@link createCodeIndexTool}. */
export interface CodeIndexToolOptions {
  readonly pathPolicy: PathPolicy;
  /**
   * Where the index is kept between processes (a host uses `<state dir>/code-index`). Default: in
   * memory only, for the life of the tool.
   */
  readonly cacheDir?: string;
  /** Larger files are listed as skipped, not parsed. Default 1 MiB. */
  readonly maxFileBytes?: number;
  /** Most source files one call indexes. Default 50 000. */
  readonly maxFiles?: number;
  /** Default 120 000 ms (a first index of a large tree parses every file). */
  readonly timeoutMs?: number;
}

const DESCRIPTION = [
  'Find definitions (functions, methods, classes, types, variables, ...) by name in TypeScript, JavaScript, Python, Go, Rust, Java, C and C++ source, from a syntax-tree index of the project.',
  'action="symbols" searches names (exact, prefix, word starts such as "gFS" for getFileSnapshot, or fuzzy); action="definition" gives where a name (or Container.name) is defined, with the first line of each; action="outline" lists every definition of one file with line ranges.',
  'Results are "path:start-end kind Container.name". The index skips what grep skips (ignored, hidden, node_modules and secret files) and re-parses only files changed since the last call.',
  'Prefer a language server or code-graph tool when one is offered; use grep for text that is not a definition.',
].join(' ');

/**
 * Creates the `code_index` tool (group `read_only_builtins`; read-only, closed world, parallel,
 * abortable). The index covers the directory searched (default the project root): source files
 * found by grep's walk rules are parsed with tree-sitter and their definitions kept per file
 * version, in memory and in `cacheDir`, so each call parses only new and changed files. The index
 * code and tree-sitter load on the first call, so hosts that never index pay nothing at start-up.
 *
 * Error codes: the path policy's, `FS_NOT_FOUND`, `NOT_A_FILE` (outline of a directory),
 * `FILE_UNSUPPORTED` (outline of a file in no supported language), `ARGUMENT_VALIDATION` (no query
 * for definition, no path for outline), `SYMBOL_NOT_FOUND` (definition of an unknown name, with
 * close names), `TIMEOUT` / `ABORTED`, `EXECUTION_ERROR` (a grammar that cannot be loaded).
 */
export function createCodeIndexTool(options: CodeIndexToolOptions): ToolDefinition<CodeIndexArguments> {
  const policy = options.pathPolicy;
  let executor:
    | Promise<(args: CodeIndexArguments, context: ToolCallContext) => Promise<ToolResult>>
    | undefined;
  return defineTool({
    name: 'code_index',
    source: 'builtin',
    group: 'read_only_builtins',
    category: 'search',
    annotations: DISCOVERY_ANNOTATIONS,
    execution: discoveryExecution(options.timeoutMs ?? 120_000),
    pathAccess: 'current_project',
    visibility: 'listed',
    resultShape: 'search',
    modelTool: { name: 'code_index', description: DESCRIPTION, inputSchema: codeIndexArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: searchPathAccess(policy, args.path) }],
      subject: (args) => args.path ?? '.',
      preview: (args) =>
        `code_index ${args.action}${args.query ? ` ${JSON.stringify(args.query)}` : ''} in ${args.path ?? '.'}`,
    },
    async execute(args, context) {
      // One executor (and so one index) per tool, created on the first call.
      executor ??= import('./code-index-run.js').then((module) => module.createCodeIndexExecutor(options));
      return (await executor)(args, context);
    },
  });
}
