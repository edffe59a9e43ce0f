import type { ErrorCode } from '@toolhost/contracts';
import type { DialectName } from './ir.js';

/**
 * The codes this package uses, a subset of the contract's closed set: `PROVIDER_ERROR` (the
 * provider returned an error body or event, a malformed response, or a stream that ended early)
 * and `CONFIG_INVALID` (misuse: an unknown dialect, duplicate tool names, a tool choice naming an
 * unknown tool).
 */
export type DialectErrorCode = Extract<ErrorCode, 'PROVIDER_ERROR' | 'CONFIG_INVALID'>;

/** Value-free facts about a dialect failure. */
export interface DialectErrorDetails {
  readonly dialect?: DialectName;
  /** The provider's own error type or code (`invalid_request_error`, `RESOURCE_EXHAUSTED`, ...). */
  readonly providerCode?: string;
  /** The HTTP status the provider put in its error body, when it did. */
  readonly status?: number;
  /** Whether retrying the same request later may succeed (rate limits, overload, server errors). */
  readonly retryable?: boolean;
  readonly [key: string]: unknown;
}

const brand = Symbol.for('toolhost.dialect-error');

/**
 * The error type of this package. It imports no runtime code from `@toolhost/contracts`, so hosts
 * turn it into a `ToolhostError` with `new ToolhostError({ code: error.code, message:
 * error.message, details: error.details, cause: error })`. `isInstance` works across installed
 * copies.
 */
export class DialectError extends Error {
  readonly code: DialectErrorCode;
  readonly details: DialectErrorDetails;
  declare readonly [brand]: true;

  constructor(options: {
    code: DialectErrorCode;
    message: string;
    details?: DialectErrorDetails;
    cause?: unknown;
  }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DialectError';
    this.code = options.code;
    this.details = options.details ?? {};
    Object.defineProperty(this, brand, { value: true, enumerable: false });
  }

  /** Whether `value` is a dialect error from this or another copy of the package. */
  static isInstance(value: unknown): value is DialectError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }
}

/** A provider error with a message that names the provider and its code. */
export function providerError(
  dialect: DialectName,
  message: string,
  details: Omit<DialectErrorDetails, 'dialect'> = {},
): DialectError {
  return new DialectError({ code: 'PROVIDER_ERROR', message, details: { dialect, ...details } });
}
