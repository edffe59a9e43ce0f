import { stat } from 'node:fs/promises';
import { ToolhostError } from '@toolhost/contracts';
import type { PathPolicy, PathPolicyError } from '@toolhost/path-policy';

/** A path a discovery tool may use: its real absolute path, what the model is shown, and its kind. */
export interface DiscoveryTarget {
  /** The real absolute path (no symbolic links). */
  readonly path: string;
  /** The path as the model sees it (relative to the project root, `.` for the root). */
  readonly displayPath: string;
  readonly kind: 'file' | 'directory' | 'other';
  /** Size in bytes (files only; 0 otherwise). */
  readonly size: number;
}

/** Turns a refusal of the path policy into the contract's error; the codes are a shared subset. */
export function pathPolicyErrorToToolhostError(error: PathPolicyError): ToolhostError {
  return new ToolhostError({ code: error.code, message: error.message, details: { reason: error.reason } });
}

/**
 * Resolves an optional path argument through the path policy and inspects what is there.
 *
 * Error codes: those of `PathPolicy.resolve` (`PATH_INVALID`, `PATH_OUTSIDE_ROOT`, `PATH_PROTECTED`,
 * `FS_ACCESS_DENIED`), `FS_NOT_FOUND` when nothing exists there, `FS_ACCESS_DENIED` when it cannot
 * be inspected.
 */
export async function resolveDiscoveryTarget(
  policy: PathPolicy,
  input: string | undefined,
  access: 'read' | 'list',
): Promise<{ ok: true; value: DiscoveryTarget } | { ok: false; error: ToolhostError }> {
  const resolved = policy.resolve(input, { access, optional: true, argument: 'path' });
  if (!resolved.ok) return { ok: false, error: pathPolicyErrorToToolhostError(resolved.error) };
  try {
    const stats = await stat(resolved.path);
    const kind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
    return {
      ok: true,
      value: {
        path: resolved.path,
        displayPath: resolved.displayPath,
        kind,
        size: kind === 'file' ? stats.size : 0,
      },
    };
  } catch (error) {
    // A path that did not exist when it was resolved is not named (errors never echo a made-up path).
    return { ok: false, error: fileSystemError(error, resolved.exists ? resolved.displayPath : undefined) };
  }
}

/**
 * Maps a file system failure on a resolved path to the contract's codes, naming the display path of
 * an existing entry (`undefined`: the entry did not exist, so it is named by its argument).
 */
export function fileSystemError(error: unknown, displayPath: string | undefined): ToolhostError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const shown = displayPath === undefined ? 'the path given as "path"' : JSON.stringify(displayPath);
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new ToolhostError({ code: 'FS_NOT_FOUND', message: `${shown} does not exist`, cause: error });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new ToolhostError({
      code: 'FS_ACCESS_DENIED',
      message: `the operating system refused access to ${shown}`,
      cause: error,
    });
  }
  return new ToolhostError({
    code: 'EXECUTION_ERROR',
    message: `${shown} could not be inspected (${code ?? 'unknown error'})`,
    cause: error,
  });
}
