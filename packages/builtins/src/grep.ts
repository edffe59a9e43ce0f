import {
  defineTool,
  errorResult,
  schemaFingerprint,
  type ToolDefinition,
  ToolhostError,
  textResult,
} from '@toolhost/contracts';
import type { PathPolicy } from '@toolhost/path-policy';
import { abortErrorOf } from './discovery-abort.js';
import type { GrepArguments } from './discovery-arguments.js';
import {
  argumentError,
  DISCOVERY_ANNOTATIONS,
  DISCOVERY_CATEGORIES,
  discoveryExecution,
  searchPathAccess,
} from './discovery-definition.js';
import { resolveDiscoveryTarget } from './discovery-policy.js';
import { grepArgumentsSchema } from './discovery-schemas.generated.js';
import { GrepCollector } from './grep-collector.js';
import { runGrepFallback } from './grep-fallback.js';
import { GREP_FILE_TYPES } from './grep-file-types.js';
import { formatGrep } from './grep-format.js';
import { runRipgrep } from './grep-ripgrep.js';
import type { GrepSearch, GrepSearchOutcome } from './grep-search.js';

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

const fingerprint = schemaFingerprint(grepArgumentsSchema);

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
  const outputBytes = options.outputBytes ?? GREP_DEFAULT_OUTPUT_BYTES;
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
      if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'grep'));
      const target = await resolveDiscoveryTarget(policy, args.path, 'list');
      if (!target.ok) return errorResult(target.error);
      const { path: root, displayPath, kind } = target.value;
      if (kind === 'other') {
        return errorResult(
          new ToolhostError({
            code: 'NOT_A_FILE',
            message: `${JSON.stringify(displayPath)} is neither a regular file nor a directory`,
            recovery: 'search a directory or a regular file',
          }),
        );
      }
      if (kind === 'file' && !policy.allows(root, 'read')) {
        return errorResult(
          new ToolhostError({
            code: 'PATH_PROTECTED',
            message: `${JSON.stringify(displayPath)} may not be read`,
          }),
        );
      }
      const mode = args.output_mode ?? 'content';
      const collector = new GrepCollector({
        mode,
        limit: args.limit ?? GREP_DEFAULT_LIMIT,
        context: mode === 'content' ? (args.context ?? 0) : 0,
        // Files and counts are one short line per file and bounded by `limit`, so their whole answer
        // is returned: a list over the host's 32 KiB model cap is then kept whole in the session's
        // result store and paged with session:tool_result, as glob's is (issue 25: count mode used
        // to stop at 28 KiB, 330 of 1,645 files, with no page of the rest). Matching lines keep
        // the byte budget.
        budgetBytes: mode === 'content' ? outputBytes : Number.POSITIVE_INFINITY,
      });
      const search: GrepSearch = {
        root,
        rootIsFile: kind === 'file',
        pattern: args.pattern,
        literal: args.literal ?? false,
        ignoreCase: args.ignore_case ?? false,
        multiline: args.multiline ?? false,
        context: collector.options.context,
        mode,
        glob: args.glob,
        type: args.type,
        includeHidden: args.include_hidden ?? false,
        noIgnore: args.no_ignore ?? false,
        policy,
        collector,
        signal: context.signal,
      };
      const rgPath = options.ripgrep();
      let engine: 'ripgrep' | 'js' = rgPath === null ? 'js' : 'ripgrep';
      let outcome: GrepSearchOutcome | undefined;
      if (rgPath !== null) {
        const ran = await runRipgrep(search, rgPath);
        if (ran.ok || ran.reason !== 'missing') outcome = ran;
        else engine = 'js';
      }
      outcome ??= await runGrepFallback(search);
      if (!outcome.ok) return errorResult(outcomeError(outcome, context.signal));
      const formatted = formatGrep(collector, {
        displayRoot: displayPath,
        includeHidden: search.includeHidden,
        noIgnore: search.noIgnore,
        unreadable: outcome.unreadable,
      });
      return textResult(formatted.text, { engine, path: displayPath, ...formatted.details });
    },
  });
}

function outcomeError(
  outcome: Extract<GrepSearchOutcome, { ok: false }>,
  signal: AbortSignal,
): ToolhostError {
  switch (outcome.reason) {
    case 'aborted':
      return abortErrorOf(signal, 'grep');
    case 'pattern':
      return argumentError({
        toolName: 'grep',
        fingerprint,
        argument: 'pattern',
        message: `the pattern is not a valid regular expression: ${outcome.problem}`,
        recovery:
          'fix the pattern (ripgrep regex syntax: no look-around or backreferences) or pass literal=true to search for the text as written',
      });
    case 'type':
      return argumentError({
        toolName: 'grep',
        fingerprint,
        argument: 'type',
        message: `type names no known file type; known types include ${Object.keys(GREP_FILE_TYPES).join(', ')}`,
        recovery: 'use one of the listed types, or a glob such as "*.ext"',
      });
    case 'glob':
      return argumentError({
        toolName: 'grep',
        fingerprint,
        argument: 'glob',
        message: outcome.problem,
        recovery: 'fix the glob (for example "*.ts" or "src/**")',
      });
    default:
      return new ToolhostError({ code: 'EXECUTION_ERROR', message: `grep failed: ${outcome.problem}` });
  }
}
