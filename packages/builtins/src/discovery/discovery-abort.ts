import { ToolhostError } from '@toolhost/contracts';

/**
 * The error to report for a fired abort signal: the host's own error when it aborted with a
 * {@link ToolhostError} (for example `TIMEOUT`), `TIMEOUT` for a `TimeoutError` reason (as
 * `AbortSignal.timeout` gives), and `ABORTED` otherwise.
 */
export function abortErrorOf(signal: AbortSignal, toolName: string): ToolhostError {
  const reason: unknown = signal.reason;
  if (ToolhostError.isInstance(reason)) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new ToolhostError({
      code: 'TIMEOUT',
      message: `${toolName} did not finish in time and was stopped`,
    });
  }
  return new ToolhostError({ code: 'ABORTED', message: `${toolName} was cancelled before it finished` });
}
