/**
 * The codes a path decision can fail with. They are a subset of the tool contract's closed code set
 * (`@toolhost/contracts`), spelled as plain strings so this package stays free of that dependency.
 */
export type PathPolicyErrorCode =
  | 'PATH_INVALID'
  | 'PATH_OUTSIDE_ROOT'
  | 'PATH_PROTECTED'
  | 'FS_ACCESS_DENIED'
  | 'FS_NOT_FOUND';

/**
 * Why a path was refused, one step finer than the code: for audit records and tests, never needed
 * to decide what to tell the model (the message does that).
 */
export type PathPolicyErrorReason =
  | 'not_a_string'
  | 'nul_byte'
  | 'invalid_unicode'
  | 'empty'
  | 'too_long'
  | 'name_too_long'
  | 'symlink_loop'
  | 'tilde_not_expanded'
  | 'windows_device_path'
  | 'windows_unc_incomplete'
  | 'windows_drive_relative'
  | 'windows_invalid_name'
  | 'windows_reserved_name'
  | 'windows_trailing_dot_or_space'
  | 'not_canonical'
  | 'changed_since_check'
  | 'unresolvable'
  | 'no_access'
  | 'no_roots'
  | 'outside_root'
  | 'symlink_outside_root'
  | 'protected'
  | 'secret'
  | 'access_denied'
  | 'missing_parent'
  | 'parent_not_a_directory';

/**
 * A refused path: `code` is what hosts map onto their error type, `message` is written for the
 * model (what failed, the rule, the remedy). A message never echoes the input: it names the argument
 * when the caller gave its name, shows at most the bounded display path of something that exists
 * inside the roots, and never an outside path, an absolute root or a secret's name.
 */
export interface PathPolicyError {
  readonly code: PathPolicyErrorCode;
  readonly reason: PathPolicyErrorReason;
  readonly message: string;
}

/** The longest display path a message shows; longer ones keep their start and end around an ellipsis. */
const DISPLAY_LIMIT = 160;
/** The longest argument name a message shows. */
const ARGUMENT_LIMIT = 64;

/**
 * How a message names the path it refuses without echoing the model's argument (requirement
 * PP-MSG-1): `The path`, or `The path given as "<argument>"` when the caller named the argument (an
 * argument name is the tool's, never the model's).
 */
export function subjectOf(argument: string | undefined): string {
  if (argument === undefined || argument === '') return 'The path';
  const name = argument.length > ARGUMENT_LIMIT ? `${argument.slice(0, ARGUMENT_LIMIT)}…` : argument;
  return `The path given as ${JSON.stringify(name)}`;
}

/**
 * A display path fit for a message: quoted, with control characters escaped, at most 160 characters
 * (the middle is cut). Only for the display path of something that exists inside the roots.
 */
export function quoteDisplayPath(displayPath: string): string {
  if (displayPath.length <= DISPLAY_LIMIT) return JSON.stringify(displayPath);
  const half = Math.floor((DISPLAY_LIMIT - 1) / 2);
  return JSON.stringify(`${displayPath.slice(0, half)}…${displayPath.slice(-half)}`);
}

/** Builds a refused-path value (internal helper; callers return it as `{ ok: false, error }`). */
export function pathError(
  code: PathPolicyErrorCode,
  reason: PathPolicyErrorReason,
  message: string,
): { ok: false; error: PathPolicyError } {
  return { ok: false, error: { code, reason, message } };
}
