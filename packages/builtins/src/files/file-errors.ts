import { type ErrorCode, isErrorCode, ToolhostError } from '@toolhost/contracts';
import type { PathPolicyError, PathPolicyErrorCode } from '@toolhost/path-policy';
import type { EvidenceError, EvidenceErrorCode } from '@toolhost/read-evidence';

// The mechanism packages return their own string codes; they must be contract codes. These two
// lines fail to compile if either package grows a code the contract does not have.
const evidenceCodesAreContractCodes: EvidenceErrorCode extends ErrorCode ? true : never = true;
const pathCodesAreContractCodes: PathPolicyErrorCode extends ErrorCode ? true : never = true;
void evidenceCodesAreContractCodes;
void pathCodesAreContractCodes;

/** Turns a read-evidence failure into the contract's error, keeping its recovery, details and cause. */
export function evidenceError(error: EvidenceError): ToolhostError {
  return new ToolhostError({
    code: isErrorCode(error.code) ? error.code : 'EXECUTION_ERROR',
    message: error.message,
    ...(error.recovery === undefined ? {} : { recovery: error.recovery }),
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(error.cause === undefined ? {} : { cause: error.cause }),
  });
}

/** Turns a path-policy refusal into the contract's error (its message already holds the remedy). */
export function pathError(error: PathPolicyError, argument: string): ToolhostError {
  return new ToolhostError({
    code: error.code,
    message: error.message,
    recovery: null,
    details: { argument, reason: error.reason },
  });
}

/** A failure of the file tools' own (matching, anchors, arguments). */
export function fileToolError(
  code: ErrorCode,
  message: string,
  extra: { recovery?: string; details?: Readonly<Record<string, unknown>> } = {},
): ToolhostError {
  return new ToolhostError({ code, message, ...extra });
}
