import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import type { PathPolicy } from '@toolhost/path-policy';
import { type CodeLanguage, languageOfPath } from './code-languages.js';
import {
  type IgnoreLevel,
  loadAncestorIgnoreLevels,
  loadIgnoreLevel,
  matchIgnoreLevels,
} from './discovery-ignore.js';
import { compareNames, joinRealPath } from './discovery-paths.js';

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

  const walk = async (directory: string, parent: IgnoreLevel | undefined): Promise<void> => {
    if (capped) return;
    if (signal.aborted) throw signal.reason;
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      unreadable++;
      return;
    }
    const level = await loadIgnoreLevel(directory, parent, new Set(entries.map((entry) => entry.name)));
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
