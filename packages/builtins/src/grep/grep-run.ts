import type { ToolCallContext, ToolResult } from '@toolhost/contracts';
import { errorResult, schemaFingerprint, ToolhostError, textResult } from '@toolhost/contracts';
import { abortErrorOf } from '../discovery/discovery-abort.js';
import type { GrepArguments } from '../discovery/discovery-arguments.js';
import { argumentError } from '../discovery/discovery-definition.js';
import { resolveDiscoveryTarget } from '../discovery/discovery-policy.js';
import { grepArgumentsSchema } from '../discovery/discovery-schemas.generated.js';
import { GREP_DEFAULT_LIMIT, GREP_DEFAULT_OUTPUT_BYTES, type GrepToolOptions } from './grep.js';
import { GrepCollector } from './grep-collector.js';
import { runGrepFallback } from './grep-fallback.js';
import { GREP_FILE_TYPES } from './grep-file-types.js';
import { formatGrep } from './grep-format.js';
import { runRipgrep } from './grep-ripgrep.js';
import type { GrepSearch, GrepSearchOutcome } from './grep-search.js';

// The body of `grep`: the search engines (ripgrep's driver and the JS engine with its worker pool),
// loaded on the first call, so a host that never searches (`toolhost serve` answering tools/list,
// `toolhost tools`) never parses them.

const fingerprint = schemaFingerprint(grepArgumentsSchema);

/** Runs one `grep` call (see {@link createGrepTool} for what it does and its error codes). */
export async function runGrepCall(
  options: GrepToolOptions,
  args: GrepArguments,
  context: ToolCallContext,
): Promise<ToolResult> {
  const policy = options.pathPolicy;
  const outputBytes = options.outputBytes ?? GREP_DEFAULT_OUTPUT_BYTES;
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
