import type { ToolCallContext, ToolDefinition, ToolResult } from '@toolhost/contracts';
import { defineTool } from '@toolhost/contracts';
import type { PathPolicy } from '@toolhost/path-policy';
import type { GrepArguments } from '../discovery/discovery-arguments.js';
import {
  DISCOVERY_ANNOTATIONS,
  DISCOVERY_CATEGORIES,
  discoveryExecution,
  searchPathAccess,
} from '../discovery/discovery-definition.js';
import { grepArgumentsSchema } from '../discovery/discovery-schemas.generated.js';

/** Default result limit of `grep`. */
export const GREP_DEFAULT_LIMIT = 200;
/** Default output budget of `grep`'s content mode, under the host's 32 KiB model-visible cap. */
export const GREP_DEFAULT_OUTPUT_BYTES = 28 * 1024;

/** Options of {@link createGrepTool}. */
export interface GrepToolOptions {
  readonly pathPolicy: PathPolicy;
  /** The ripgrep executable to use, or `null` for the JS engine; asked once per call. */
  readonly ripgrep: () => string | null;
  /**
   * Most bytes of matching lines (content mode) in the model text. Default
   * {@link GREP_DEFAULT_OUTPUT_BYTES}. The files and count modes return every file up to `limit`.
   */
  readonly outputBytes?: number;
  /** Default 30 000 ms. */
  readonly timeoutMs?: number;
}

const DESCRIPTION = [
  'Search file contents with a regular expression (ripgrep syntax) and get `path:line: text` lines, the matching files, or a count per file.',
  'Use this instead of grep, rg or find in the shell: results are bounded, sorted by path, skip hidden files, .gitignore-d files, node_modules and secret files (.env, keys), and never leave the project.',
  'Several independent searches (and ls/glob/read_file calls) should be issued together in the same turn: they run in parallel.',
  'Narrow with `path` (a directory or one file), `glob` ("*.ts") or `type` ("py"); `context` adds lines around matches; `multiline` lets a match span lines.',
  'At most `limit` results are returned (default 200); every cut is stated in a notice at the end, and lines over 500 characters are shortened.',
].join(' ');

/**
 * Creates the `grep` tool: ripgrep when an executable is given (JSON output streamed, the process
 * killed as soon as the limit or the output budget is reached and when the call's signal fires),
 * otherwise a JS engine with the same selection and output rules (see grep-fallback.ts).
 *
 * Error codes: the path policy's (`PATH_OUTSIDE_ROOT`, `PATH_PROTECTED`, `PATH_INVALID`,
 * `FS_ACCESS_DENIED`), `FS_NOT_FOUND`, `NOT_A_FILE` (neither file nor directory),
 * `ARGUMENT_VALIDATION` (an invalid regex, naming the problem and position but not quoting the
 * pattern; an unknown `type`; an invalid `glob`), `TIMEOUT` / `ABORTED` (signal), `EXECUTION_ERROR`.
 */
export function createGrepTool(options: GrepToolOptions): ToolDefinition<GrepArguments> {
  const policy = options.pathPolicy;
  // The engines load on the first call (grep-run.ts), not with the tool's definition.
  let run:
    | Promise<
        (options: GrepToolOptions, args: GrepArguments, context: ToolCallContext) => Promise<ToolResult>
      >
    | undefined;
  return defineTool({
    name: 'grep',
    source: 'builtin',
    group: 'read_only_builtins',
    category: DISCOVERY_CATEGORIES.grep,
    annotations: DISCOVERY_ANNOTATIONS,
    execution: discoveryExecution(options.timeoutMs ?? 30_000),
    pathAccess: 'current_project',
    visibility: 'listed',
    resultShape: 'search',
    modelTool: { name: 'grep', description: DESCRIPTION, inputSchema: grepArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: searchPathAccess(policy, args.path) }],
      subject: (args) => args.path ?? '.',
      preview: (args) => `grep ${JSON.stringify(args.pattern)} in ${args.path ?? '.'}`,
    },
    async execute(args, context) {
      run ??= import('./grep-run.js').then((module) => module.runGrepCall);
      return (await run)(options, args, context);
    },
  });
}
