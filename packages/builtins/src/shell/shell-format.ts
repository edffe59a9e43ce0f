import {
  compileLinearRegExp,
  type ErrorCode,
  isErrorCode,
  type LinearRegExp,
  ToolhostError,
} from '@toolhost/contracts';
import type { JobError, JobManager, JobSnapshot } from '@toolhost/jobs';

/** The `[status: ...]` line of job_output: the state, with the exit code or stop reason when useful. */
export function statusLine(snapshot: JobSnapshot): string {
  return `[status: ${statusText(snapshot)}]`;
}

/** The status words without brackets (`failed, exit code 2`, `killed, timed out`). */
export function statusText(snapshot: JobSnapshot): string {
  switch (snapshot.state) {
    case 'failed':
      if (snapshot.exitCode !== undefined) return `failed, exit code ${snapshot.exitCode}`;
      return snapshot.signal ? `failed, signal ${snapshot.signal}` : 'failed';
    case 'killed':
      if (snapshot.endReason === 'timeout') return 'killed, timed out';
      if (snapshot.endReason === 'output_limit') return 'killed, output limit reached';
      return 'killed';
    default:
      return snapshot.state;
  }
}

/**
 * Formats a duration the way Go prints one (`2m0s`, `30s`, `1.5s`, `250ms`), as Reasonix's timeout
 * messages do ("timed out (> 2m0s)").
 */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${milliseconds}ms`;
  const hours = Math.floor(milliseconds / 3_600_000);
  const minutes = Math.floor((milliseconds % 3_600_000) / 60_000);
  const seconds = (milliseconds % 60_000) / 1000;
  const secondsText = `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3).replace(/0+$/, '')}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}

/** A job id as it may appear in a message: ids we issue look like `bash-3`; anything else is not echoed. */
export function shownJobId(input: string): string {
  const id = input.trim();
  return /^[a-z]{1,16}-\d{1,9}$/.test(id) ? `"${id}"` : 'with that id';
}

/** Converts a jobs-package error into the contract's error (the codes are a subset). */
export function jobErrorToToolhostError(error: JobError): ToolhostError {
  const code: ErrorCode = isErrorCode(error.code) ? error.code : 'EXECUTION_ERROR';
  return new ToolhostError({ code, message: error.message });
}

/** How to read any byte range of a log with the shell (the log is readable inside every sandbox). */
function readRecipe(logPath: string, offset: number): string {
  return `tail -c +${offset + 1} '${logPath}' | head -c 65536`;
}

/**
 * A job's whole output, bounded to `budget` bytes: all of it when it fits, otherwise a quarter from
 * the start and the rest from the end with a marker naming the omitted range, the log and a command
 * that reads any range of it, and a last line saying that the result is not the whole output (the
 * host shows a result's end to the model, and stores and pages the result as it is). Moves the
 * job's read cursor to the end (the model has seen this).
 */
export function boundedOutput(
  jobs: JobManager,
  id: string,
  budget: number,
): { text: string; truncated: boolean; totalBytes: number } {
  const headBytes = Math.floor(budget / 4);
  const excerpt = jobs.output(id, { headBytes, tailBytes: budget - headBytes, consume: true });
  if (!excerpt.ok) return { text: '', truncated: false, totalBytes: 0 };
  const { head, tail, omittedBytes, omittedOffset, totalBytes, snapshot } = excerpt.value;
  if (omittedBytes === 0) return { text: head, truncated: false, totalBytes };
  const marker =
    `\n[... ${omittedBytes} bytes omitted (bytes ${omittedOffset}-${omittedOffset + omittedBytes - 1} of ${totalBytes}). ` +
    `The full output is in ${snapshot.logPath}; read a range with: ${readRecipe(snapshot.logPath, omittedOffset)} ...]\n`;
  const trailer =
    `\n[This result is not the whole output: the command printed ${totalBytes} bytes, more than the ${budget} bytes one result keeps, ` +
    `so bytes ${omittedOffset}-${omittedOffset + omittedBytes - 1} are left out (see the marker above); the whole output is in ${snapshot.logPath}.]`;
  return { text: `${head}${marker}${tail.replace(/\n+$/, '')}${trailer}`, truncated: true, totalBytes };
}

/** A job's new output for job_output / bash_output, with the markers for skipped bytes and dropped matches. */
export function newOutputBody(chunk: {
  text: string;
  skippedBytes: number;
  fromOffset: number;
  droppedLines?: number;
  snapshot: JobSnapshot;
}): string {
  const lines: string[] = [];
  if (chunk.skippedBytes > 0) {
    lines.push(
      `[... ${chunk.skippedBytes} earlier bytes of new output skipped; read them with: ${readRecipe(chunk.snapshot.logPath, chunk.fromOffset)}]`,
    );
  }
  if (chunk.droppedLines) lines.push(`[... ${chunk.droppedLines} earlier matching lines dropped]`);
  const text = chunk.text.replace(/\n+$/, '');
  if (text.trim() === '' && chunk.snapshot.logRemoved) {
    lines.push('(no new output: the log of this job was deleted to keep old logs within their disk budget)');
  } else lines.push(text.trim() === '' ? '(no new output)' : text);
  return lines.join('\n');
}

/**
 * Compiles a job_output filter before anything is consumed: JavaScript regex syntax, matched by a
 * linear-time engine (contracts' `compileLinearRegExp`), because the log is scanned on the host's
 * thread and a backtracking regex such as `^(a+)+$` would block the whole host. Look-around and
 * backreferences are refused (`ARGUMENT_VALIDATION` saying why), as is invalid syntax. The error
 * names the problem, never the pattern (messages must not echo argument values).
 */
export function compileFilter(
  filter: string | undefined,
  prefix: string,
): { ok: true; value: LinearRegExp | undefined } | { ok: false; error: ToolhostError } {
  if (filter === undefined || filter === '') return { ok: true, value: undefined };
  const compiled = compileLinearRegExp(filter);
  if (compiled.ok) return { ok: true, value: compiled.value };
  const { reason, problem } = compiled.error;
  return {
    ok: false,
    error: new ToolhostError({
      code: 'ARGUMENT_VALIDATION',
      message: `${prefix}: ${problem}`,
      recovery:
        reason === 'syntax'
          ? 'fix the regular expression (JavaScript syntax) or leave filter out; no output was consumed'
          : 'rewrite the filter without look-around or backreferences (or filter the log in the shell with grep); no output was consumed',
      details: { argument: 'filter', reason },
    }),
  };
}

/** The error for a call when the job manager is closed (the session is ending). */
export function jobsUnavailable(): ToolhostError {
  return new ToolhostError({
    code: 'EXECUTION_ERROR',
    message: 'background jobs are not available in this context (the session is closing)',
    recovery: null,
  });
}
