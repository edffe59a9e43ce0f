import type { PathPolicy } from '@toolhost/path-policy';
import type { GrepCollector, GrepOutputMode } from './grep-collector.js';

/** Files larger than this are skipped by both engines (ripgrep `--max-filesize 64M`). */
export const GREP_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** One search, as both engines (ripgrep and the JS fallback) take it. */
export interface GrepSearch {
  /** The real absolute path to search: a directory, or one file. */
  readonly root: string;
  readonly rootIsFile: boolean;
  readonly pattern: string;
  readonly literal: boolean;
  readonly ignoreCase: boolean;
  readonly multiline: boolean;
  readonly context: number;
  readonly mode: GrepOutputMode;
  /** A ripgrep glob (`!` excludes), matched like a .gitignore line relative to `root`. */
  readonly glob: string | undefined;
  readonly type: string | undefined;
  readonly includeHidden: boolean;
  readonly noIgnore: boolean;
  /** Decides which files may be read and shown (containment and secret files). */
  readonly policy: PathPolicy;
  readonly collector: GrepCollector;
  readonly signal: AbortSignal;
}

/** How an engine run ended. */
export type GrepSearchOutcome =
  | { readonly ok: true; readonly unreadable: number }
  | {
      readonly ok: false;
      /** `pattern`: the regex is invalid; `type`: unknown file type; `aborted`: the signal fired. */
      readonly reason: 'pattern' | 'type' | 'glob' | 'aborted' | 'failed';
      readonly problem: string;
    };

/**
 * The glob lines both engines add after the caller's glob: `.git` is never searched, and
 * `node_modules` is skipped unless ignore rules are off. Later lines win, so these take precedence.
 */
export function hardExcludeGlobs(noIgnore: boolean): string[] {
  return noIgnore ? ['!.git'] : ['!.git', '!node_modules'];
}
