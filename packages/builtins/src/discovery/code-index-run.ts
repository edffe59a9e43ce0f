import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  closeNames,
  errorResult,
  schemaFingerprint,
  type ToolCallContext,
  ToolhostError,
  type ToolResult,
  textResult,
} from '@toolhost/contracts';
import type { CodeIndexArguments } from './code-arguments.js';
import type { CodeIndexToolOptions } from './code-index.js';
import { CodeIndexStore, type RefreshReport } from './code-index-store.js';
import { CODE_EXTENSIONS, languageOfPath } from './code-languages.js';
import { kindsOf, namesSymbol, parseSymbolQuery, symbolScore } from './code-match.js';
import { codeIndexArgumentsSchema } from './code-schemas.generated.js';
import { type CodeSymbol, qualifiedName } from './code-symbols.js';
import { type CodeFile, walkCodeFiles } from './code-walk.js';
import { abortErrorOf } from './discovery-abort.js';
import { argumentError } from './discovery-definition.js';
import { comparePaths } from './discovery-paths.js';
import { resolveDiscoveryTarget } from './discovery-policy.js';

/** Default number of definitions `symbols` and `definition` return. */
export const CODE_INDEX_DEFAULT_LIMIT = 50;
/** Default number of definitions `outline` returns. */
export const CODE_INDEX_OUTLINE_LIMIT = 300;
/** Most bytes of results in the model text (under the host's 32 KiB cap). */
export const CODE_INDEX_OUTPUT_BYTES = 24 * 1024;

/** How many results of `definition` show their first line (each read from its file at query time). */
const SIGNATURE_LIMIT = 50;

const fingerprint = schemaFingerprint(codeIndexArgumentsSchema);

interface Found {
  readonly path: string;
  readonly symbol: CodeSymbol;
  readonly score: number;
}

/**
 * The body of `code_index` (loaded on its first call, see code-index.ts). The index covers the directory searched (default the project root): source files
 * found by grep's walk rules (see {@link walkCodeFiles}) are parsed with tree-sitter and their
 * definitions kept per file version, in memory and in `cacheDir`, so each call parses only new and
 * changed files.
 *
 * Error codes: the path policy's, `FS_NOT_FOUND`, `NOT_A_FILE` (outline of a directory),
 * `FILE_UNSUPPORTED` (outline of a file in no supported language), `ARGUMENT_VALIDATION` (no query
 * for definition, no path for outline), `SYMBOL_NOT_FOUND` (definition of an unknown name, with
 * close names), `TIMEOUT` / `ABORTED`, `EXECUTION_ERROR` (a grammar that cannot be loaded).
 */
export function createCodeIndexExecutor(
  options: CodeIndexToolOptions,
): (args: CodeIndexArguments, context: ToolCallContext) => Promise<ToolResult> {
  const policy = options.pathPolicy;
  const store = new CodeIndexStore({
    maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
  });
  const maxFiles = options.maxFiles ?? 50_000;
  return async (args: CodeIndexArguments, context: ToolCallContext): Promise<ToolResult> => {
    const invalid = (argument: string, message: string, recovery: string) =>
      errorResult(argumentError({ toolName: 'code_index', fingerprint, argument, message, recovery }));
    if (args.action === 'definition' && !args.query?.trim())
      return invalid(
        'query',
        'action=definition needs the name to look up in query',
        'pass query, for example "Server.close"',
      );
    if (args.action === 'outline' && args.path === undefined)
      return invalid(
        'path',
        'action=outline needs the file to outline in path',
        'pass path, for example "src/server.ts"',
      );
    if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'code_index'));
    const target = await resolveDiscoveryTarget(
      policy,
      args.path,
      args.action === 'outline' ? 'read' : 'list',
    );
    if (!target.ok) return errorResult(target.error);
    const { path: scope, displayPath, kind } = target.value;
    if (kind === 'other')
      return errorResult(
        new ToolhostError({
          code: 'NOT_A_FILE',
          message: `${JSON.stringify(displayPath)} is neither a file nor a directory`,
        }),
      );
    if (args.action === 'outline' && kind !== 'file')
      return errorResult(
        new ToolhostError({
          code: 'NOT_A_FILE',
          message: `${JSON.stringify(displayPath)} is a directory; outline takes one source file`,
          recovery: 'pass a file as path, or use action="symbols" with this directory',
        }),
      );
    let files: CodeFile[];
    let capped = false;
    if (kind === 'file') {
      const language = languageOfPath(scope);
      if (!language)
        return errorResult(
          new ToolhostError({
            code: 'FILE_UNSUPPORTED',
            message: `${JSON.stringify(displayPath)} is not a source file code_index parses (${Object.keys(CODE_EXTENSIONS).join(' ')})`,
            recovery: 'use grep or read_file for this file',
          }),
        );
      files = [{ path: scope, language }];
    } else {
      try {
        const walked = await walkCodeFiles({ root: scope, policy, signal: context.signal, maxFiles });
        files = walked.files;
        capped = walked.capped;
      } catch (error) {
        if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'code_index'));
        throw error;
      }
    }
    let report: RefreshReport;
    try {
      report = await store.refresh(scope, files, context.signal);
    } catch (error) {
      if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'code_index'));
      return errorResult(
        new ToolhostError({
          code: 'EXECUTION_ERROR',
          message: 'the syntax-tree index could not be built (a grammar failed to load)',
          recovery: 'use grep instead',
          cause: error,
        }),
      );
    }
    const details = {
      action: args.action,
      path: displayPath,
      files: report.files,
      parsed: report.parsed,
      cached: report.cached,
      removed: report.removed,
      skipped: report.skipped,
      capped,
      ...(report.cacheError ? { cacheError: report.cacheError } : {}),
    };
    const indexed = `${report.files} file${report.files === 1 ? '' : 's'} indexed: ${report.parsed} parsed, ${report.cached} from cache${report.skipped ? `, ${report.skipped} skipped (too large or binary)` : ''}${capped ? `; stopped at ${maxFiles} files, pass a narrower path` : ''}`;
    const wanted = args.kind ? kindsOf(args.kind) : undefined;
    const found: Found[] = [];
    const names = new Set<string>();
    const query = args.query?.trim();
    const parsedQuery = query ? parseSymbolQuery(query) : undefined;
    for (const file of files) {
      const entry = store.get(file.path);
      if (!entry) continue;
      for (const symbol of entry.symbols) {
        if (wanted && !wanted.has(symbol.kind)) continue;
        names.add(symbol.name);
        let score = 0;
        if (args.action === 'definition') {
          if (!parsedQuery || !namesSymbol(symbol, parsedQuery, false)) continue;
          score = namesSymbol(symbol, parsedQuery) ? 0 : 1;
        } else if (args.action === 'symbols' && query) {
          const matched = symbolScore(symbol, query);
          if (matched === undefined) continue;
          score = matched;
        }
        found.push({ path: file.path, symbol, score });
      }
    }
    if (args.action === 'definition') {
      // Exact-case matches hide the ones that differ only in case.
      const exact = found.filter((item) => item.score === 0);
      if (exact.length > 0) found.splice(0, found.length, ...exact);
      if (found.length === 0) {
        const close = closeNames(parsedQuery?.name ?? '', names, 5);
        return errorResult(
          new ToolhostError({
            code: 'SYMBOL_NOT_FOUND',
            message: `no definition of that name${args.kind ? ` (kind ${args.kind})` : ''} in ${JSON.stringify(displayPath)} (${indexed})${close.length > 0 ? `; close names: ${close.join(', ')}` : ''}`,
            details: { ...details, closeNames: close },
          }),
        );
      }
    }
    const displayOf = new Map<string, string>();
    const shown = (path: string) => {
      let display = displayOf.get(path);
      if (display === undefined) {
        display = policy.displayPathOf(path);
        displayOf.set(path, display);
      }
      return display;
    };
    if (args.action !== 'outline')
      found.sort(
        (left, right) =>
          left.score - right.score ||
          comparePaths(shown(left.path), shown(right.path)) ||
          left.symbol.startLine - right.symbol.startLine,
      );
    const limit =
      args.limit ?? (args.action === 'outline' ? CODE_INDEX_OUTLINE_LIMIT : CODE_INDEX_DEFAULT_LIMIT);
    const signatures =
      args.action === 'definition'
        ? await firstLines(found.slice(0, Math.min(limit, SIGNATURE_LIMIT)), context.signal)
        : undefined;
    const lines: string[] = [];
    let bytes = 0;
    let budgetHit = false;
    for (const [index, item] of found.slice(0, limit).entries()) {
      const { symbol } = item;
      const range = `${symbol.startLine}-${symbol.endLine}`;
      let line =
        args.action === 'outline'
          ? `${'  '.repeat(symbol.container ? symbol.container.split('.').length : 0)}${range} ${symbol.kind} ${qualifiedName(symbol)}`
          : `${shown(item.path)}:${range} ${symbol.kind} ${qualifiedName(symbol)}`;
      const signature = signatures?.[index];
      if (signature) line += `\n    ${signature}`;
      const size = Buffer.byteLength(line) + 1;
      if (bytes + size > CODE_INDEX_OUTPUT_BYTES) {
        budgetHit = true;
        break;
      }
      lines.push(line);
      bytes += size;
    }
    const count = `${found.length} definition${found.length === 1 ? '' : 's'}`;
    const ofKind = args.kind ? ` (kind ${args.kind})` : '';
    const header =
      args.action === 'outline'
        ? `outline of ${displayPath}: ${count}${ofKind} (${indexed})`
        : `${count}${args.action === 'definition' ? ` of ${JSON.stringify(query)}` : query ? ` matching ${JSON.stringify(query)}` : ''}${ofKind} in ${displayPath} (${indexed})`;
    const notices: string[] = [];
    if (lines.length < found.length)
      notices.push(
        `[${budgetHit ? 'Output budget reached' : 'Limit reached'}: showing ${lines.length} of ${found.length}. ${
          budgetHit
            ? 'Narrow path, query or kind.'
            : `Pass limit=${Math.min(1000, limit * 2)}, or narrow path, query or kind.`
        }]`,
      );
    if (found.length === 0 && args.action === 'symbols')
      lines.push(query ? 'No definition names match.' : 'No definitions found.');
    const text = [header, ...lines, ...(notices.length > 0 ? ['', ...notices] : [])].join('\n');
    return textResult(text, { ...details, matches: found.length, shown: lines.length });
  };
}

/** The first line of each definition (trimmed, at most 160 characters), read at query time; '' when unreadable. */
async function firstLines(found: readonly Found[], signal: AbortSignal): Promise<string[]> {
  const byFile = new Map<string, string[] | null>();
  for (const item of found) {
    if (signal.aborted) break;
    if (byFile.has(item.path)) continue;
    try {
      const handle = await open(item.path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      try {
        byFile.set(item.path, (await handle.readFile('utf8')).split(/\r\n|\r|\n/));
      } finally {
        await handle.close();
      }
    } catch {
      byFile.set(item.path, null);
    }
  }
  return found.map((item) => {
    const line = byFile.get(item.path)?.[item.symbol.startLine - 1]?.trim() ?? '';
    return line.length > 160 ? `${line.slice(0, 157)}...` : line;
  });
}
