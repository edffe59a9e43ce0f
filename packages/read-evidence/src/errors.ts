/**
 * The error codes read-evidence returns. They are a subset of toolhost's contract codes (the builtins
 * package checks that they line up), but this package does not import the contract: it is usable alone.
 */
export type EvidenceErrorCode =
  | 'FS_NOT_FOUND'
  | 'FS_NOT_OBSERVED'
  | 'FS_STALE_VERSION'
  | 'FS_ALREADY_EXISTS'
  | 'FS_ACCESS_DENIED'
  | 'NOT_A_FILE'
  | 'NOT_A_DIRECTORY'
  | 'FILE_BINARY'
  | 'FILE_TOO_LARGE'
  | 'FILE_UNSUPPORTED'
  | 'PATH_INVALID'
  | 'PATH_OUTSIDE_ROOT'
  | 'PATH_PROTECTED'
  | 'ABORTED'
  | 'EXECUTION_ERROR'
  | 'FS_LOCKED';

/** Every {@link EvidenceErrorCode}, for hosts that check the set against their own. */
export const EVIDENCE_ERROR_CODES: readonly EvidenceErrorCode[] = [
  'FS_NOT_FOUND',
  'FS_NOT_OBSERVED',
  'FS_STALE_VERSION',
  'FS_ALREADY_EXISTS',
  'FS_ACCESS_DENIED',
  'NOT_A_FILE',
  'NOT_A_DIRECTORY',
  'FILE_BINARY',
  'FILE_TOO_LARGE',
  'FILE_UNSUPPORTED',
  'PATH_INVALID',
  'PATH_OUTSIDE_ROOT',
  'PATH_PROTECTED',
  'ABORTED',
  'EXECUTION_ERROR',
  'FS_LOCKED',
];

/**
 * An expected failure, as a value. `message` says what failed and the rule without file contents;
 * `recovery` (optional) says what to do; `details` holds value-free facts (versions, line numbers).
 */
export interface EvidenceError {
  readonly code: EvidenceErrorCode;
  readonly message: string;
  readonly recovery?: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/** An expected outcome as a value: success with a value, or failure with an {@link EvidenceError}. */
export type EvidenceResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: EvidenceError };

/** Builds a failed {@link EvidenceResult}. */
export function evidenceFailure(
  code: EvidenceErrorCode,
  message: string,
  extra: { recovery?: string; details?: Readonly<Record<string, unknown>>; cause?: unknown } = {},
): { readonly ok: false; readonly error: EvidenceError } {
  return { ok: false, error: { code, message, ...extra } };
}

/**
 * Maps a Node file-system error to an {@link EvidenceError}. `subject` names the file in the message
 * (a display path, never a root the caller wants hidden).
 */
export function fsErrorToEvidence(error: unknown, subject: string): EvidenceError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return { code: 'FS_NOT_FOUND', message: `${subject} does not exist`, cause: error };
    case 'ENOTDIR':
      return {
        code: 'FS_NOT_FOUND',
        message: `${subject} does not exist (a parent is not a directory)`,
        cause: error,
      };
    case 'EISDIR':
      return {
        code: 'NOT_A_FILE',
        message: `${subject} is a directory, not a file`,
        recovery: 'list it with ls instead',
        cause: error,
      };
    case 'EACCES':
    case 'EPERM':
      return {
        code: 'FS_ACCESS_DENIED',
        message: `the operating system refused access to ${subject} (${code})`,
        cause: error,
      };
    case 'ELOOP':
      return {
        code: 'PATH_INVALID',
        message: `${subject} is a symbolic link loop or a symbolic link where a file was expected`,
        cause: error,
      };
    case 'ENAMETOOLONG':
      return { code: 'PATH_INVALID', message: `${subject} is too long for the file system`, cause: error };
    case 'EFBIG':
      return { code: 'FILE_TOO_LARGE', message: `${subject} is too large for the file system`, cause: error };
    default:
      return {
        code: 'EXECUTION_ERROR',
        message: `file system operation on ${subject} failed${code ? ` (${code})` : ''}`,
        cause: error,
      };
  }
}

/** Whether `error` is a Node system error with the given `code`. */
export function hasErrorCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null | undefined)?.code === code;
}
