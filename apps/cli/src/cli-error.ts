/**
 * The exit codes of the `toolhost` command (DESIGN.md "The CLI is a stable black box"): `0` success,
 * `1` a tool or provider error, `2` a usage or configuration error (with a one-line reason on
 * stderr), and `130` when a person interrupted a run with Ctrl-C (the shell convention for SIGINT).
 */
export const EXIT_CODES = Object.freeze({
  success: 0,
  failure: 1,
  usage: 2,
  interrupted: 130,
} as const);

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

const brand = Symbol.for('toolhost.cli-error');

/**
 * An error that ends a command with a given exit code and a one-line reason (printed as
 * `toolhost: <message>` on stderr). Commands throw it for expected failures; anything else that
 * escapes a command is a bug and exits 1 with its message.
 */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  declare readonly [brand]: true;

  constructor(message: string, exitCode: ExitCode, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
    Object.defineProperty(this, brand, { value: true, enumerable: false });
  }

  /** Whether `value` is a {@link CliError} (from any copy of this module). */
  static isInstance(value: unknown): value is CliError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }
}

/** A usage or configuration error: exit code 2 with `message` as the one-line reason. */
export function usageError(message: string, cause?: unknown): CliError {
  return new CliError(message, EXIT_CODES.usage, cause === undefined ? undefined : { cause });
}

/** A tool or provider failure: exit code 1 with `message` as the one-line reason. */
export function failure(message: string, cause?: unknown): CliError {
  return new CliError(message, EXIT_CODES.failure, cause === undefined ? undefined : { cause });
}

/** Collapses a message to one line (the exit-2 contract promises a one-line reason). */
export function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
