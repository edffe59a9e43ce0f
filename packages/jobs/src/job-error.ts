/**
 * The error codes of `@toolhost/jobs`: a subset of the toolhost contract's codes, so a tool layer can
 * pass them on unchanged.
 * - `SANDBOX_UNAVAILABLE`: the run needs an OS sandbox and none works here; nothing was spawned;
 * - `JOB_LIMIT_REACHED`: too many live jobs;
 * - `JOB_NOT_FOUND`: no job has that id;
 * - `NOT_A_DIRECTORY` / `FS_NOT_FOUND`: the working directory is not a usable directory;
 * - `EXECUTION_ERROR`: the command could not be started, or the manager is closed;
 * - `SANDBOX_PLAN_INCOMPLETE`: the walk that lists the protected and secret paths of the roots hit
 *   its entry budget, so the sandbox cannot promise to cover them; nothing was spawned;
 * - `DISK_FULL`: the file system of the state directory (the job logs) is full; nothing was spawned.
 */
export type JobErrorCode =
  | 'SANDBOX_UNAVAILABLE'
  | 'JOB_LIMIT_REACHED'
  | 'JOB_NOT_FOUND'
  | 'NOT_A_DIRECTORY'
  | 'FS_NOT_FOUND'
  | 'EXECUTION_ERROR'
  | 'SANDBOX_PLAN_INCOMPLETE'
  | 'DISK_FULL';

/** An expected failure of a job operation, as a value. */
export interface JobError {
  readonly code: JobErrorCode;
  /** What failed and why, without command text or output. */
  readonly message: string;
}

/** A job operation's outcome. */
export type JobResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: JobError };

/** Builds a failed {@link JobResult}. */
export function jobError(code: JobErrorCode, message: string): { ok: false; error: JobError } {
  return { ok: false, error: { code, message } };
}
