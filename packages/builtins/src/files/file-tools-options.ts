import type { PathAccess, ToolCallContext } from '@toolhost/contracts';
import type { PathPolicy } from '@toolhost/path-policy';
import {
  type FileLocks,
  type MutationLocks,
  type ObservationStore,
  sharedFileLocks,
  sharedMutationLocks,
} from '@toolhost/read-evidence';

/** The part of a path policy the file tools use (a `PathPolicy` from `@toolhost/path-policy` fits). */
export type FilePathPolicy = Pick<PathPolicy, 'resolve' | 'verifyWriteTarget' | 'pinTarget'>;

/** Bounds of the file tools; every field has a default. */
export interface FileToolLimits {
  /** Lines read_file returns when `limit` is absent. Default 2000. */
  readonly defaultReadLines?: number;
  /** Longest line read_file shows, in bytes. Default 1 MiB. */
  readonly maxLineBytes?: number;
  /** Most text in one read_file window, in bytes. Default 8 MiB. */
  readonly maxPageBytes?: number;
  /** Largest file the editing tools rewrite, in bytes. Default 256 MiB. */
  readonly maxEditBytes?: number;
  /** Most lines of a unified diff in a result. Default 200. */
  readonly maxDiffLines?: number;
  /** Most bytes of a unified diff in a result. Default 16 KiB. */
  readonly maxDiffBytes?: number;
  /** read_file's timeout. Default 120 000 ms. */
  readonly readTimeoutMs?: number;
  /** The writers' timeout (they are not abortable: a write finishes before a timeout is reported). Default 120 000 ms. */
  readonly writeTimeoutMs?: number;
}

/** Options of {@link createFileTools}. */
export interface FileToolsOptions {
  /** Every path goes through it: read access for read_file, write access for the others. */
  readonly pathPolicy: FilePathPolicy;
  /**
   * The agent's observation store, or a function that picks the store of the agent making the call
   * (for hosts that run several agents over one tool set). Only these tools create observations.
   */
  readonly observations: ObservationStore | ((context: ToolCallContext) => ObservationStore);
  /** Mutation locks shared by every writer in the process. Default: `sharedMutationLocks()`. */
  readonly locks?: MutationLocks;
  /**
   * Cross-process locks: every toolhost process of this user that edits the same file (by device and
   * inode) waits for the others. Default: `sharedFileLocks()` (the per-user lock directory).
   */
  readonly fileLocks?: FileLocks;
  /** Bounds; see {@link FileToolLimits}. */
  readonly limits?: FileToolLimits;
  /** The `pathAccess` the tools declare. Default `current_project`. */
  readonly pathAccess?: PathAccess;
}

/** {@link FileToolsOptions} with every default applied (internal). */
export interface ResolvedFileToolsOptions {
  readonly pathPolicy: FilePathPolicy;
  readonly observationsFor: (context: ToolCallContext) => ObservationStore;
  readonly locks: MutationLocks;
  readonly fileLocks: FileLocks;
  readonly limits: Required<FileToolLimits>;
  readonly pathAccess: PathAccess;
}

/** Applies the defaults of {@link FileToolsOptions}; throws a TypeError on a missing policy or store. */
export function resolveFileToolsOptions(options: FileToolsOptions): ResolvedFileToolsOptions {
  if (
    !options?.pathPolicy ||
    typeof options.pathPolicy.resolve !== 'function' ||
    typeof options.pathPolicy.pinTarget !== 'function'
  )
    throw new TypeError('createFileTools: pathPolicy is required (a path policy with resolve and pinTarget)');
  const { observations } = options;
  if (!observations) throw new TypeError('createFileTools: observations is required');
  const limits = options.limits ?? {};
  return {
    pathPolicy: options.pathPolicy,
    observationsFor: typeof observations === 'function' ? observations : () => observations,
    locks: options.locks ?? sharedMutationLocks(),
    fileLocks: options.fileLocks ?? sharedFileLocks(),
    pathAccess: options.pathAccess ?? 'current_project',
    limits: {
      defaultReadLines: limits.defaultReadLines ?? 2000,
      maxLineBytes: limits.maxLineBytes ?? 1024 * 1024,
      maxPageBytes: limits.maxPageBytes ?? 8 * 1024 * 1024,
      maxEditBytes: limits.maxEditBytes ?? 256 * 1024 * 1024,
      maxDiffLines: limits.maxDiffLines ?? 200,
      maxDiffBytes: limits.maxDiffBytes ?? 16 * 1024,
      readTimeoutMs: limits.readTimeoutMs ?? 120_000,
      writeTimeoutMs: limits.writeTimeoutMs ?? 120_000,
    },
  };
}
