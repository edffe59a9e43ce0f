import type { Dirent } from 'node:fs';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import type { PathPolicy } from '@toolhost/path-policy';
import { type CodeLanguage, languageOfPath } from './code-languages.js';
import {
  type IgnoreLevel,
  ignoreLevelFromTexts,
  loadAncestorIgnoreLevels,
  matchIgnoreLevels,
} from './discovery-ignore.js';
import { compareNames, joinRealPath } from './discovery-paths.js';

// The walk reads directories and ignore files with synchronous calls, yielding to the event loop
// every YIELD_EVERY_MS: a directory listing is microseconds, a thread-pool round trip per directory
// cost more than the listing itself (measured in bench/, benchmark 10).
const YIELD_EVERY_MS = 25;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // unreadable ignore files count as empty, as in ripgrep
  }
}

/** A directory's ignore level from its listing (the same files and rules as `loadIgnoreLevel`). */
function ignoreLevelOf(
  directory: string,
  parent: IgnoreLevel | undefined,
  names: ReadonlySet<string>,
): IgnoreLevel | undefined {
  const hasGit = names.has('.git');
  if (!hasGit && !names.has('.rgignore') && !names.has('.ignore') && !names.has('.gitignore')) return parent;
  let gitExists = false;
  if (hasGit) {
    try {
      lstatSync(`${directory}/.git`);
      gitExists = true;
    } catch {
      gitExists = false;
    }
  }
  return ignoreLevelFromTexts(directory, parent, {
    rgignore: names.has('.rgignore') ? readText(`${directory}/.rgignore`) : undefined,
    ignore: names.has('.ignore') ? readText(`${directory}/.ignore`) : undefined,
    gitignore: names.has('.gitignore') ? readText(`${directory}/.gitignore`) : undefined,
    exclude: hasGit ? readText(`${directory}/.git/info/exclude`) : undefined,
    hasGit: gitExists,
  });
}

/** A source file a walk found. */
export interface CodeFile {
  /** The real absolute path. */
  readonly path: string;
  readonly language: CodeLanguage;
}

/** Options of {@link walkCodeFiles}. */
export interface WalkCodeFilesOptions {
  /** The real absolute directory to walk (resolved by the path policy). */
  readonly root: string;
  readonly policy: PathPolicy;
  readonly signal: AbortSignal;
  /** Stop after this many source files (`capped` is then set). */
  readonly maxFiles: number;
}

/** What a walk found. */
export interface WalkedCodeFiles {
  /** In walk order: depth first, names sorted. */
  readonly files: CodeFile[];
  /** Whether the walk stopped at `maxFiles`. */
  readonly capped: boolean;
  /** Directories that could not be read. */
  readonly unreadable: number;
}

/**
 * Finds the source files below a directory with the rules `grep` applies to a search of it:
 * `.git` is never entered and `node_modules` is skipped; `.gitignore`, `.ignore`, `.rgignore` and
 * `.git/info/exclude` with ripgrep's precedence (their files above the root count, as ripgrep reads
 * them); hidden names are skipped unless an ignore file re-includes them; symbolic links are never
 * followed. The path policy decides last: directories it does not let us list and files it does not
 * let us read (secret files), and protected ones (`.git`, the host's state directory), are never
 * returned. Only files of a language {@link languageOfPath} knows are returned.
 */
export async function walkCodeFiles(options: WalkCodeFilesOptions): Promise<WalkedCodeFiles> {
  const { root, policy, signal } = options;
  const files: CodeFile[] = [];
  let unreadable = 0;
  let capped = false;
  const ancestors = await loadAncestorIgnoreLevels(root);

  let lastYield = performance.now();
  const walk = async (directory: string, parent: IgnoreLevel | undefined): Promise<void> => {
    if (capped) return;
    if (signal.aborted) throw signal.reason;
    if (performance.now() - lastYield > YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      unreadable++;
      return;
    }
    const names = new Set(entries.map((entry) => entry.name));
    const level = ignoreLevelOf(directory, parent, names);
    entries.sort((left, right) => compareNames(left.name, right.name));
    const directories: string[] = [];
    for (const entry of entries) {
      const { name } = entry;
      if (name === '.git') continue;
      const isDirectory = entry.isDirectory();
      if (!isDirectory && !entry.isFile()) continue;
      if (isDirectory && name === 'node_modules') continue;
      const absolute = joinRealPath(directory, name);
      const ignored = matchIgnoreLevels(level, absolute, isDirectory);
      if (ignored === 'ignore') continue;
      if (ignored !== 'whitelist' && name.startsWith('.')) continue;
      if (isDirectory) {
        if (policy.allows(absolute, 'list') && !policy.isProtected(absolute, 'write'))
          directories.push(absolute);
        continue;
      }
      const language = languageOfPath(name);
      if (!language) continue;
      if (!policy.allows(absolute, 'read') || policy.isProtected(absolute, 'write')) continue;
      files.push({ path: absolute, language });
      if (files.length >= options.maxFiles) {
        capped = true;
        return;
      }
    }
    for (const child of directories) await walk(child, level);
  };

  await walk(root, ancestors);
  return { files, capped, unreadable };
}
