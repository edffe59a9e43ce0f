import { type Dirent, readdir as readdirCallback } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
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
import type { GlobArguments } from './discovery-arguments.js';
import {
  argumentError,
  DISCOVERY_ANNOTATIONS,
  DISCOVERY_CATEGORIES,
  discoveryExecution,
} from './discovery-definition.js';
import {
  type IgnoreLevel,
  loadAncestorIgnoreLevels,
  loadIgnoreLevel,
  matchIgnoreLevels,
} from './discovery-ignore.js';
import { comparePaths, joinRealPath, sortPaths } from './discovery-paths.js';
import { resolveDiscoveryTarget } from './discovery-policy.js';
import { globArgumentsSchema } from './discovery-schemas.generated.js';
import { compileLinearGlob, type LinearGlob } from '@toolhost/path-policy';

/** Default path limit of `glob`. */
export const GLOB_DEFAULT_LIMIT = 200;
/** The largest `limit` of `glob` (the schema's maximum). */
export const GLOB_MAX_LIMIT = 2000;
/** Matches collected before sorting; past this the walk stops and the notice says "at least". */
export const GLOB_SCAN_CAP = 100_000;

/** Options of {@link createGlobTool}. */
export interface GlobToolOptions {
  readonly pathPolicy: PathPolicy;
  /** Default 30 000 ms. */
  readonly timeoutMs?: number;
}

const DESCRIPTION = [
  'Find files by name with a glob pattern, for example "**/*.ts", "src/**/*.test.ts", "*.{json,yaml}" or "package.json" (a pattern without "/" matches names at any depth; "**/" also matches zero directories).',
  'Returns file paths sorted by path (sort="mtime": most recently modified first), skipping .git, node_modules, .gitignore-d and secret files; wildcards skip dot-names unless include_hidden=true.',
  'Use this instead of find or ls -R in the shell. Independent glob, grep, ls and read_file calls should be issued together in the same turn: they run in parallel.',
  'At most `limit` paths are returned (default 200) and a notice tells how many matched.',
].join(' ');

const fingerprint = schemaFingerprint(globArgumentsSchema);

/**
 * Creates the `glob` tool (a fast-glob walk, matched in linear time by path-policy's compileLinearGlob). The pattern
 * is relative to `path`; a pattern without `/`
 * matches names at any depth (`*.ts` is read as `**` + `/*.ts`); a `**` segment matches zero or
 * more directories, so `src/**` + `/*.ts` matches `src/a.ts`.
 * `.git` is never entered; `node_modules` only when `no_ignore` is set or the pattern names it;
 * `.gitignore`/`.ignore` rules prune the walk (ripgrep's precedence, see discovery-ignore.ts) unless
 * `no_ignore`; symbolic links are not followed; secret files are never returned. All matches are
 * collected (up to {@link GLOB_SCAN_CAP}) and sorted, so the first `limit` paths are the first in
 * path order (or the newest with `sort: "mtime"`).
 *
 * Error codes: the path policy's, `FS_NOT_FOUND`, `NOT_A_DIRECTORY`, `ARGUMENT_VALIDATION` (an
 * absolute pattern, one with `..`, a negated one, or one the linear matcher refuses: `!(…)`, a lone
 * trailing `\`, a brace range of more than 1000 items), `TIMEOUT` / `ABORTED`.
 */
export function createGlobTool(options: GlobToolOptions): ToolDefinition<GlobArguments> {
  const policy = options.pathPolicy;
  return defineTool({
    name: 'glob',
    source: 'builtin',
    group: 'read_only_builtins',
    category: DISCOVERY_CATEGORIES.glob,
    annotations: DISCOVERY_ANNOTATIONS,
    execution: discoveryExecution(options.timeoutMs ?? 30_000),
    pathAccess: 'current_project',
    visibility: 'listed',
    resultShape: 'search',
    modelTool: { name: 'glob', description: DESCRIPTION, inputSchema: globArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'list' }],
      subject: (args) => args.path ?? '.',
      preview: (args) => `glob ${JSON.stringify(args.pattern)} in ${args.path ?? '.'}`,
    },
    async execute(args, context) {
      if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'glob'));
      const pattern = normalizePattern(args.pattern);
      if (!pattern.ok) {
        return errorResult(
          argumentError({
            toolName: 'glob',
            fingerprint,
            argument: 'pattern',
            message: pattern.problem,
            recovery: 'pass a pattern relative to `path`, and the directory to search as `path`',
          }),
        );
      }
      const target = await resolveDiscoveryTarget(policy, args.path, 'list');
      if (!target.ok) return errorResult(target.error);
      const { path: root, displayPath, kind } = target.value;
      if (kind !== 'directory') {
        return errorResult(
          new ToolhostError({
            code: 'NOT_A_DIRECTORY',
            message: `${JSON.stringify(displayPath)} is not a directory`,
            recovery: 'pass the directory to search as `path`',
          }),
        );
      }
      const includeHidden = args.include_hidden ?? false;
      const matcher = compileLinearGlob(pattern.value, { dot: includeHidden, extglob: true });
      if (!matcher.ok) {
        return errorResult(
          argumentError({
            toolName: 'glob',
            fingerprint,
            argument: 'pattern',
            message: matcher.problem,
            recovery: 'rewrite the pattern with *, ?, **, [...] and {a,b}',
          }),
        );
      }
      const limit = args.limit ?? GLOB_DEFAULT_LIMIT;
      const noIgnore = args.no_ignore ?? false;
      let found: string[];
      let capped: boolean;
      try {
        ({ found, capped } = await findFiles({
          root,
          pattern: pattern.value,
          matcher: matcher.value,
          noIgnore,
          policy,
          signal: context.signal,
        }));
      } catch (error) {
        if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'glob'));
        throw error;
      }
      const sort = args.sort ?? 'path';
      let ordered: string[];
      if (sort === 'mtime') {
        ordered = await byModificationTime(root, found, context.signal);
        if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'glob'));
      } else {
        ordered = sortPaths(found);
      }
      const shown = ordered
        .slice(0, limit)
        .map((relative) => policy.displayPathOf(joinRealPath(root, relative)));
      const notices: string[] = [];
      if (found.length > limit) {
        const total = capped ? `at least ${found.length}` : String(found.length);
        const raise = limit < GLOB_MAX_LIMIT ? ` or pass limit=${Math.min(limit * 2, GLOB_MAX_LIMIT)}` : '';
        notices.push(
          `[Path limit reached: showing ${limit} of ${total} matching files${sort === 'mtime' ? ' (the newest)' : ''}. Use a narrower path or pattern${raise}.]`,
        );
      }
      let text: string;
      if (shown.length === 0) {
        const skipped: string[] = [];
        if (!includeHidden) skipped.push('dot-names for wildcards (include_hidden=true)');
        if (!noIgnore) skipped.push('ignored files and node_modules (no_ignore=true)');
        text = `No files match in ${displayPath}. Skipped: .git, secret files, ${skipped.join(', ')}.`;
      } else {
        text = notices.length > 0 ? `${shown.join('\n')}\n\n${notices.join('\n')}` : shown.join('\n');
      }
      return textResult(text, {
        path: displayPath,
        matches: found.length,
        shown: shown.length,
        limitReached: found.length > limit,
        capped,
        sort,
      });
    },
  });
}

/** Validates and normalises a glob pattern (relative, no `..`, not negated; bare names match at any depth). */
export function normalizePattern(
  input: string,
): { ok: true; value: string } | { ok: false; problem: string } {
  let pattern = input.trim();
  while (pattern.startsWith('./')) pattern = pattern.slice(2);
  if (pattern === '' || pattern === '.') return { ok: false, problem: 'the pattern is empty' };
  if (pattern.startsWith('!')) {
    return { ok: false, problem: 'the pattern is negated ("!"); glob takes one pattern of files to find' };
  }
  if (pattern.startsWith('/') || /^[A-Za-z]:/.test(pattern)) {
    return { ok: false, problem: 'the pattern is absolute; patterns are relative to `path`' };
  }
  if (pattern.split('/').includes('..')) {
    return { ok: false, problem: 'the pattern climbs out of `path` with ".."; patterns stay below `path`' };
  }
  if (!pattern.includes('/')) pattern = `**/${pattern}`;
  return { ok: true, value: pattern };
}

interface FindFilesOptions {
  readonly root: string;
  readonly pattern: string;
  /** The pattern compiled to a linear-time matcher (dot-names per include_hidden). */
  readonly matcher: LinearGlob;
  readonly noIgnore: boolean;
  readonly policy: PathPolicy;
  readonly signal: AbortSignal;
}

/**
 * Walks with fast-glob (pattern `**`, every name) through a file system adapter that does all the
 * selecting, and returns the matching paths relative to root. The pattern is never given to
 * fast-glob: its matcher (micromatch) compiles globs to backtracking regexes that run on this thread,
 * and `*a*a*a*a*a*a*a*a*a*a*a*b` against a 100-character name blocks the host; the linear matcher
 * decides instead, pruning every directory below which nothing can match.
 */
async function findFiles(options: FindFilesOptions): Promise<{ found: string[]; capped: boolean }> {
  // fast-glob (about 50 ms of imports) is loaded on the first glob, not when the host starts.
  const { default: fastGlob } = await import('fast-glob');
  const { root, pattern, matcher, policy, signal } = options;
  const relativeOf = (absolute: string) => (absolute === root ? '' : absolute.slice(root.length + 1));
  const segments = pattern.split('/');
  const keepNodeModules = options.noIgnore || segments.includes('node_modules');
  const levels = new Map<string, Promise<IgnoreLevel | undefined>>();
  const ancestors = options.noIgnore ? undefined : loadAncestorIgnoreLevels(root);

  // The level of ignore files in effect inside `directory` (below or at the root).
  const levelOf = (directory: string, names?: ReadonlySet<string>): Promise<IgnoreLevel | undefined> => {
    let level = levels.get(directory);
    if (level === undefined) {
      const parent =
        directory === root ? (ancestors ?? Promise.resolve(undefined)) : levelOf(path.dirname(directory));
      level = parent.then((parentLevel) => loadIgnoreLevel(directory, parentLevel, names));
      levels.set(directory, level);
    }
    return level;
  };

  const keep = async (directory: string, dirents: Dirent[]): Promise<Dirent[]> => {
    const level = options.noIgnore
      ? undefined
      : await levelOf(directory, new Set(dirents.map((entry) => entry.name)));
    const base = relativeOf(directory);
    return dirents.filter((dirent) => {
      if (dirent.name === '.git') return false;
      const isDirectory = dirent.isDirectory();
      if (isDirectory && dirent.name === 'node_modules' && !keepNodeModules) return false;
      const relative = base === '' ? dirent.name : `${base}/${dirent.name}`;
      // What cannot match (or hold a match) is dropped before the ignore rules are asked.
      if (isDirectory ? !matcher.couldMatchBelow(relative) : !matcher.test(relative)) return false;
      const absolute = joinRealPath(directory, dirent.name);
      if (!options.noIgnore && matchIgnoreLevels(level, absolute, isDirectory) === 'ignore') return false;
      // Directories are checked here, to prune secret ones; files only once they match (below).
      return !isDirectory || policy.allows(absolute, 'list');
    });
  };

  // fast-glob reads directories through this adapter (`fs.readdir` with `withFileTypes`), so pruned
  // entries are never walked into and never matched.
  const readdir = (
    directory: string,
    readOptions: { withFileTypes: true },
    callback: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void,
  ): void => {
    if (signal.aborted) {
      callback(Object.assign(new Error('aborted'), { code: 'ABORT_ERR' }), []);
      return;
    }
    readdirCallback(directory, readOptions, (error, dirents) => {
      if (error) {
        callback(error, []);
        return;
      }
      keep(directory, dirents).then(
        (kept) => callback(null, kept),
        (failure: NodeJS.ErrnoException) => callback(failure, []),
      );
    });
  };

  const stream: Readable = fastGlob.stream('**', {
    cwd: root,
    // Dot-names are the matcher's to decide (include_hidden); fast-glob only walks.
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    // One pattern cannot yield an entry twice; fast-glob's duplicate set costs time on big trees.
    unique: false,
    caseSensitiveMatch: true,
    suppressErrors: true,
    fs: { readdir: readdir as unknown as typeof readdirCallback },
  }) as Readable;
  const found: string[] = [];
  let capped = false;
  const onAbort = () => stream.destroy();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const entry of stream) {
      const relative = String(entry);
      // The adapter selected already (the matcher, ignore rules); `.git` is excluded at any depth.
      if (relative.split('/').includes('.git')) continue;
      if (!policy.allows(joinRealPath(root, relative), 'read')) continue;
      found.push(relative);
      if (found.length >= GLOB_SCAN_CAP) {
        capped = true;
        break;
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!stream.destroyed) stream.destroy();
  }
  if (signal.aborted) throw signal.reason;
  return { found, capped };
}

/** Newest first (ties in path order); files that vanished sort last. */
async function byModificationTime(
  root: string,
  found: readonly string[],
  signal: AbortSignal,
): Promise<string[]> {
  const times = new Map<string, number>();
  const batch = 64;
  for (let start = 0; start < found.length && !signal.aborted; start += batch) {
    await Promise.all(
      found.slice(start, start + batch).map(async (relative) => {
        try {
          times.set(relative, (await lstat(joinRealPath(root, relative))).mtimeMs);
        } catch {
          times.set(relative, Number.NEGATIVE_INFINITY);
        }
      }),
    );
  }
  return [...found].sort(
    (left, right) => (times.get(right) ?? 0) - (times.get(left) ?? 0) || comparePaths(left, right),
  );
}
