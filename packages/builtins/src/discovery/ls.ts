import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import { defineTool, errorResult, type ToolDefinition, ToolhostError, textResult } from '@toolhost/contracts';
import { relative, sep } from 'node:path';
import {
  createPathPatternMatcher,
  isPathInside,
  type PathPatternMatcher,
  type PathPolicy,
} from '@toolhost/path-policy';
import { abortErrorOf } from './discovery-abort.js';
import type { LsArguments } from './discovery-arguments.js';
import { DISCOVERY_ANNOTATIONS, DISCOVERY_CATEGORIES, discoveryExecution } from './discovery-definition.js';
import {
  type IgnoreLevel,
  loadAncestorIgnoreLevels,
  loadIgnoreLevel,
  matchIgnoreLevels,
} from './discovery-ignore.js';
import { compareNames, comparePaths, joinRealPath } from './discovery-paths.js';
import { fileSystemError, resolveDiscoveryTarget } from './discovery-policy.js';
import { lsArgumentsSchema } from './discovery-schemas.generated.js';

/**
 * Directories `ls` leaves out (LS-1 in REQUIREMENTS.md), at any depth; the top-level ones
 * are named in a notice, and each can still be listed by passing it as `path`. `.git` is never listed.
 */
const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.next']);

/** Default entry limit of `ls`. */
export const LS_DEFAULT_LIMIT = 200;
/** The largest `limit` of `ls` (the schema's maximum). */
export const LS_MAX_LIMIT = 2000;

/** Options of {@link createLsTool}. */
export interface LsToolOptions {
  readonly pathPolicy: PathPolicy;
  /** Default 15 000 ms. */
  readonly timeoutMs?: number;
}

const DESCRIPTION = [
  'List a directory: one entry per line, sorted by name; directories end in "/", files show their size, symbolic links show their target.',
  '.git is never listed, nor are secret files (.env, keys); node_modules and .next are left out (named in a notice; pass one as path to list it).',
  'recursive=true lists the whole tree below it, shallowest entries first, honouring .gitignore and skipping node_modules.',
  'Use this instead of ls or find in the shell. Independent ls, glob, grep and read_file calls should be issued together in the same turn: they run in parallel.',
].join(' ');

interface ListedEntry {
  /** Path relative to the listed directory, `/`-separated. */
  readonly relative: string;
  readonly line: string;
}

/**
 * Creates the `ls` tool. Entries are sorted by name (case-insensitively first); the listing is cut
 * at `limit` (default 200, at most 2000) with a notice; a recursive listing walks breadth-first, so a
 * cut keeps the shallowest entries.
 *
 * Error codes: the path policy's, `FS_NOT_FOUND`, `NOT_A_DIRECTORY` (a file), `FS_ACCESS_DENIED`,
 * `TIMEOUT` / `ABORTED`.
 */
export function createLsTool(options: LsToolOptions): ToolDefinition<LsArguments> {
  const policy = options.pathPolicy;
  const protectedMatcher = createPathPatternMatcher(policy.protectedPatterns, {
    caseSensitive: policy.caseSensitive,
  });
  return defineTool({
    name: 'ls',
    source: 'builtin',
    group: 'read_only_builtins',
    category: DISCOVERY_CATEGORIES.ls,
    annotations: DISCOVERY_ANNOTATIONS,
    execution: discoveryExecution(options.timeoutMs ?? 15_000),
    pathAccess: 'current_project',
    visibility: 'listed',
    resultShape: 'search',
    modelTool: { name: 'ls', description: DESCRIPTION, inputSchema: lsArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'list' }],
      subject: (args) => args.path ?? '.',
      preview: (args) => `ls ${args.recursive ? '-R ' : ''}${args.path ?? '.'}`,
    },
    async execute(args, context) {
      if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'ls'));
      const target = await resolveDiscoveryTarget(policy, args.path, 'list');
      if (!target.ok) return errorResult(target.error);
      const { path: directory, displayPath, kind } = target.value;
      if (kind !== 'directory') {
        return errorResult(
          new ToolhostError({
            code: 'NOT_A_DIRECTORY',
            message: `${JSON.stringify(displayPath)} is not a directory`,
            recovery: kind === 'file' ? 'use read_file to read a file' : 'list a directory',
          }),
        );
      }
      const limit = args.limit ?? LS_DEFAULT_LIMIT;
      const recursive = args.recursive ?? false;
      const listing = new Listing(policy, protectedMatcher, directory, limit, context.signal);
      try {
        if (recursive) await listing.walk();
        else await listing.listOne();
      } catch (error) {
        if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'ls'));
        return errorResult(fileSystemError(error, displayPath));
      }
      const entries = listing.entries.sort((left, right) => comparePaths(left.relative, right.relative));
      const header = `Directory: ${displayPath}${recursive ? ' (recursive)' : ''}`;
      const lines = entries.map((entry) => entry.line);
      const notices: string[] = [];
      if (listing.cut) {
        const raise = limit < LS_MAX_LIMIT ? ` or pass limit=${Math.min(limit * 2, LS_MAX_LIMIT)}` : '';
        notices.push(
          `[Entry limit reached: showing ${limit} entries${recursive ? ', the shallowest first' : ''}; more exist. Use a narrower path${raise}.]`,
        );
      }
      if (listing.skipped.length > 0) {
        notices.push(
          `[Not listed: ${listing.skipped.join(', ')} (dependencies and build output); pass one as path to list it.]`,
        );
      }
      if (listing.secretCount > 0) {
        notices.push(
          `[${listing.secretCount} secret ${listing.secretCount === 1 ? 'entry is' : 'entries are'} not shown (matching a secret pattern, such as .env files and keys: never read, listed or written).]`,
        );
      }
      if (listing.protectedCount > 0) {
        notices.push(
          `[${listing.protectedCount} protected ${listing.protectedCount === 1 ? 'entry is' : 'entries are'} not shown (the host's own state or configuration: kept from file tools, not secret files).]`,
        );
      }
      if (listing.unreadable > 0) {
        notices.push(
          `[${listing.unreadable} ${listing.unreadable === 1 ? 'directory' : 'directories'} could not be read.]`,
        );
      }
      const body = lines.length === 0 ? 'No entries.' : lines.join('\n');
      const text = `${header}\n${body}${notices.length > 0 ? `\n\n${notices.join('\n')}` : ''}`;
      return textResult(text, {
        path: displayPath,
        recursive,
        entries: lines.length,
        limitReached: listing.cut,
        protected: listing.protectedCount,
        secret: listing.secretCount,
        skipped: listing.skipped,
      });
    },
  });
}

class Listing {
  readonly entries: ListedEntry[] = [];
  cut = false;
  /** Refused entries that a protected pattern covers too (the host's state, its configuration). */
  protectedCount = 0;
  /** Refused entries covered by a secret pattern alone (.env files, keys). */
  secretCount = 0;
  /** Dependency and build directories left out of the top level (named in a notice). */
  readonly skipped: string[] = [];
  unreadable = 0;

  constructor(
    private readonly policy: PathPolicy,
    private readonly protectedMatcher: PathPatternMatcher,
    private readonly root: string,
    private readonly limit: number,
    private readonly signal: AbortSignal,
  ) {}

  /** The direct entries of the directory (all but `.git` and refused ones). */
  async listOne(): Promise<void> {
    const dirents = await readdir(this.root, { withFileTypes: true });
    dirents.sort((left, right) => compareNames(left.name, right.name));
    for (const dirent of dirents) {
      if (dirent.name === '.git') continue;
      if (dirent.isDirectory() && SKIPPED_DIRECTORIES.has(dirent.name)) {
        this.skipped.push(`${dirent.name}/`);
        continue;
      }
      if (!(await this.add(dirent, this.root, ''))) return;
    }
  }

  /** The tree, breadth-first: `.git`, `node_modules` and ignored entries are skipped entirely. */
  async walk(): Promise<void> {
    const ancestors = await loadAncestorIgnoreLevels(this.root);
    let queue: Array<{ directory: string; relative: string; parent: IgnoreLevel | undefined }> = [
      { directory: this.root, relative: '', parent: ancestors },
    ];
    while (queue.length > 0) {
      const next: typeof queue = [];
      for (const { directory, relative, parent } of queue) {
        if (this.signal.aborted) throw this.signal.reason;
        let dirents: Dirent[];
        try {
          dirents = await readdir(directory, { withFileTypes: true });
        } catch (error) {
          if (directory === this.root) throw error;
          this.unreadable += 1;
          continue;
        }
        const level = await loadIgnoreLevel(directory, parent, new Set(dirents.map((dirent) => dirent.name)));
        dirents.sort((left, right) => compareNames(left.name, right.name));
        for (const dirent of dirents) {
          if (dirent.name === '.git') continue;
          if (dirent.isDirectory() && SKIPPED_DIRECTORIES.has(dirent.name)) {
            if (directory === this.root) this.skipped.push(`${dirent.name}/`);
            continue;
          }
          const absolute = joinRealPath(directory, dirent.name);
          if (matchIgnoreLevels(level, absolute, dirent.isDirectory()) === 'ignore') continue;
          if (!(await this.add(dirent, directory, relative))) return;
          if (dirent.isDirectory() && this.policy.allows(absolute, 'list')) {
            next.push({
              directory: absolute,
              relative: relative === '' ? dirent.name : `${relative}/${dirent.name}`,
              parent: level,
            });
          }
        }
      }
      queue = next;
    }
  }

  /** Adds one entry; false when the limit is reached (the entry is not added then). */
  private async add(dirent: Dirent, directory: string, relativeDirectory: string): Promise<boolean> {
    const absolute = joinRealPath(directory, dirent.name);
    if (!this.policy.allows(absolute, 'list')) {
      if (this.coveredByProtectedPattern(absolute)) this.protectedCount += 1;
      else this.secretCount += 1;
      return true;
    }
    if (this.entries.length >= this.limit) {
      this.cut = true;
      return false;
    }
    const relative = relativeDirectory === '' ? dirent.name : `${relativeDirectory}/${dirent.name}`;
    this.entries.push({ relative, line: await this.describe(dirent, absolute, relative) });
    return true;
  }

  /**
   * Whether a protected pattern covers an entry the policy refuses to list. The policy refuses a
   * listing only for secret patterns; the host puts its own state and configuration directories in
   * both lists, and those are protected host data, not secret files (issue 16: ls called them secret).
   */
  private coveredByProtectedPattern(absolute: string): boolean {
    const options = { caseSensitive: this.policy.caseSensitive };
    for (const root of this.policy.roots) {
      if (!isPathInside(root, absolute, options)) continue;
      const names = relative(root, absolute)
        .split(sep)
        .filter((name) => name !== '');
      if (this.protectedMatcher.matchCovering(names, true) !== undefined) return true;
    }
    return false;
  }

  private async describe(dirent: Dirent, absolute: string, relative: string): Promise<string> {
    if (dirent.isDirectory()) return `${relative}/`;
    if (dirent.isSymbolicLink()) return `${relative} -> ${await this.linkTarget(absolute)}`;
    if (dirent.isFile()) {
      try {
        return `${relative}  ${formatSize((await lstat(absolute)).size)}`;
      } catch {
        return relative;
      }
    }
    return `${relative}  (special file)`;
  }

  /** A link's target as a display path, without revealing anything outside the roots. */
  private async linkTarget(absolute: string): Promise<string> {
    let target: string;
    try {
      target = await realpath(absolute);
    } catch {
      return '(broken link)';
    }
    if (!this.policy.allows(target, 'list')) {
      return this.policy.contains(target) ? '(protected)' : '(outside the allowed roots)';
    }
    return this.policy.displayPathOf(target);
  }
}

/** A size in bytes as `812 B`, `2.1 KiB`, `3.0 MiB` or `1.2 GiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
