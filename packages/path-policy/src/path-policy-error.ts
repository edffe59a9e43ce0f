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
 * model (what failed, the rule, the remedy; it shows the input as given and never an absolute root).
 */
export interface PathPolicyError {
  readonly code: PathPolicyErrorCode;
  readonly reason: PathPolicyErrorReason;
  readonly message: string;
}

/** The longest slice of an input that messages quote; longer inputs are cut with an ellipsis. */
const QUOTE_LIMIT = 160;

/** Quotes an input for a message: JSON escaping makes control characters and NUL bytes visible. */
export function quoteInput(input: string): string {
  const cut = input.length > QUOTE_LIMIT ? `${input.slice(0, QUOTE_LIMIT)}…` : input;
  return JSON.stringify(cut);
}

/** Builds a refused-path value (internal helper; callers return it as `{ ok: false, error }`). */
export function pathError(
  code: PathPolicyErrorCode,
  reason: PathPolicyErrorReason,
  message: string,
): { ok: false; error: PathPolicyError } {
  return { ok: false, error: { code, reason, message } };
}
