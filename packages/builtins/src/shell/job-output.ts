import { defineTool, errorResult, type ToolDefinition, ToolhostError, textResult } from '@toolhost/contracts';
import type { JobOutputArguments } from './shell-arguments.js';
import {
  compileFilter,
  jobErrorToToolhostError,
  jobsUnavailable,
  newOutputBody,
  statusLine,
} from './shell-format.js';
import { jobOutputArgumentsSchema } from './shell-schemas.generated.js';
import {
  JOB_OUTPUT_DEFAULT_WAIT_MS,
  SHELL_MAX_TIMEOUT_MS,
  jobsFor,
  type ShellToolsOptions,
} from './shell-tools-options.js';

const DESCRIPTION = [
  'Read the new output of a background job (started with run_in_background=true) and its status.',
  'Returns only what the job printed since the previous job_output call for it, or "(no new output)", followed by a "[status: running|done|failed|killed|interrupted]" line.',
  'wait=true blocks until the job finishes or timeout_ms passes (default 30 s); a timeout leaves the job running. filter keeps only the new lines matching a regular expression.',
].join(' ');

/** The facts of job_output and the read-only legacy aliases. */
export const JOB_READ_ANNOTATIONS = Object.freeze({
  readOnly: true,
  destructive: false,
  idempotent: false,
  openWorld: false,
});

/** How long the host lets a job read run: the longest wait plus a margin. */
export const JOB_READ_EXECUTION_TIMEOUT_MS = SHELL_MAX_TIMEOUT_MS + 30_000;

/**
 * Creates `job_output` (requirements JO-1..JO-7 in REQUIREMENTS.md): checks in order — `job_id`
 * (blank: `ARGUMENT_VALIDATION`), the filter (compiled before anything is consumed: an invalid one is
 * `ARGUMENT_VALIDATION` and the cursor stays), the manager (`EXECUTION_ERROR` when it is closed), the
 * job (`JOB_NOT_FOUND`); then waits if asked (never killing), reads the new output (one cursor per
 * job, shared with the legacy aliases) and appends the status line.
 */
export function createJobOutputTool(options: ShellToolsOptions): ToolDefinition<JobOutputArguments> {
  return defineTool({
    name: 'job_output',
    source: 'builtin',
    group: 'shell_builtins',
    category: 'shell',
    annotations: JOB_READ_ANNOTATIONS,
    execution: { mode: 'parallel', timeoutMs: JOB_READ_EXECUTION_TIMEOUT_MS, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    resultShape: 'shell',
    modelTool: { name: 'job_output', description: DESCRIPTION, inputSchema: jobOutputArgumentsSchema },
    permission: { subject: (args) => args.job_id, preview: (args) => `job_output ${args.job_id}` },
    async execute(args, context) {
      const jobs = jobsFor(options, context);
      const id = args.job_id.trim();
      if (id === '') {
        return errorResult(
          new ToolhostError({
            code: 'ARGUMENT_VALIDATION',
            message: 'job_id is required',
            recovery: 'pass the id returned when the job was started',
            details: { argument: 'job_id' },
          }),
        );
      }
      const filter = compileFilter(args.filter, 'invalid filter');
      if (!filter.ok) return errorResult(filter.error);
      if (jobs.closed) return errorResult(jobsUnavailable());
      if (!jobs.get(id))
        return errorResult(jobErrorToToolhostError(notFound(jobs.list().map((job) => job.id))));
      if (args.wait) {
        const waited = await jobs.wait(id, {
          timeoutMs: args.timeout_ms ?? JOB_OUTPUT_DEFAULT_WAIT_MS,
          signal: context.signal,
        });
        if (!waited.ok) return errorResult(jobErrorToToolhostError(waited.error));
        if (context.signal.aborted) {
          return errorResult(
            new ToolhostError({
              code: 'ABORTED',
              message: 'job_output was cancelled while waiting; the job keeps running',
            }),
          );
        }
      }
      const read = await jobs.readNew(id, filter.value ? { filter: filter.value } : {});
      if (!read.ok) return errorResult(jobErrorToToolhostError(read.error));
      const chunk = read.value;
      const snapshot = chunk.snapshot;
      return textResult(`${newOutputBody(chunk)}\n${statusLine(snapshot)}`, {
        jobId: id,
        state: snapshot.state,
        ...(snapshot.exitCode !== undefined ? { exitCode: snapshot.exitCode } : {}),
        ...(snapshot.endReason ? { endReason: snapshot.endReason } : {}),
        newBytes: chunk.toOffset - chunk.fromOffset,
        skippedBytes: chunk.skippedBytes,
        ...(chunk.matchedLines !== undefined ? { matchedLines: chunk.matchedLines } : {}),
        outputBytes: snapshot.outputBytes,
        logPath: snapshot.logPath,
      });
    },
  });
}

/** `JOB_NOT_FOUND` naming the ids that do exist (never the id asked for: it is an argument value). */
export function notFound(known: readonly string[]): { code: 'JOB_NOT_FOUND'; message: string } {
  const recent = known.slice(-10);
  return {
    code: 'JOB_NOT_FOUND',
    message:
      recent.length > 0
        ? `no background job has that id (known jobs: ${recent.join(', ')})`
        : 'no background job has that id (no jobs were started in this session)',
  };
}
