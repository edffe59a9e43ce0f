import { defineTool, errorResult, type ToolDefinition, ToolhostError, textResult } from '@toolhost/contracts';
import { JOB_KILL_ANNOTATIONS } from './job-kill.js';
import { JOB_READ_ANNOTATIONS, JOB_READ_EXECUTION_TIMEOUT_MS, notFound } from './job-output.js';
import type { BashOutputArguments, KillShellArguments, WaitArguments } from './shell-arguments.js';
import {
  compileFilter,
  jobErrorToToolhostError,
  jobsUnavailable,
  newOutputBody,
  shownJobId,
} from './shell-format.js';
import {
  bashOutputArgumentsSchema,
  killShellArgumentsSchema,
  waitArgumentsSchema,
} from './shell-schemas.generated.js';
import { jobsFor, type ShellToolsOptions } from './shell-tools-options.js';

/** The default `timeout_seconds` of the legacy `wait`. */
export const WAIT_DEFAULT_SECONDS = 30;

/**
 * Creates `bash_output`, a hidden legacy alias of job_output (LG-2 in REQUIREMENTS.md): `[<id>] <status>`,
 * then the new output or `(no new output)`; it shares job_output's cursor. An invalid filter is
 * `ARGUMENT_VALIDATION` ("invalid filter regexp: ...") and consumes nothing; an unknown id is
 * `JOB_NOT_FOUND`.
 */
export function createBashOutputTool(options: ShellToolsOptions): ToolDefinition<BashOutputArguments> {
  return defineTool({
    name: 'bash_output',
    source: 'builtin',
    group: 'shell_builtins',
    category: 'shell',
    annotations: JOB_READ_ANNOTATIONS,
    execution: { mode: 'parallel', timeoutMs: 30_000, abortable: true },
    pathAccess: 'none',
    visibility: 'hidden',
    resultShape: 'shell',
    modelTool: {
      name: 'bash_output',
      description:
        'Legacy alias kept for old sessions; use job_output. Reads the new output of a background shell job.',
      inputSchema: bashOutputArgumentsSchema,
    },
    async execute(args, context) {
      const jobs = jobsFor(options, context);
      const filter = compileFilter(args.filter, 'invalid filter regexp');
      if (!filter.ok) return errorResult(filter.error);
      if (jobs.closed) return errorResult(jobsUnavailable());
      const id = args.job_id.trim();
      if (!jobs.get(id))
        return errorResult(jobErrorToToolhostError(notFound(jobs.list().map((job) => job.id))));
      const read = await jobs.readNew(id, filter.value ? { filter: filter.value } : {});
      if (!read.ok) return errorResult(jobErrorToToolhostError(read.error));
      return textResult(`[${id}] ${read.value.snapshot.state}\n${newOutputBody(read.value)}`, {
        jobId: id,
        state: read.value.snapshot.state,
      });
    },
  });
}

/**
 * Creates `kill_shell`, a hidden legacy alias of job_kill: `Killed background job "<id>".` or
 * `Background job "<id>" was not running (already finished or unknown).` (both normal results).
 */
export function createKillShellTool(options: ShellToolsOptions): ToolDefinition<KillShellArguments> {
  return defineTool({
    name: 'kill_shell',
    source: 'builtin',
    group: 'shell_builtins',
    category: 'shell',
    annotations: JOB_KILL_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: 10_000, abortable: true },
    pathAccess: 'none',
    visibility: 'hidden',
    resultShape: 'default',
    modelTool: {
      name: 'kill_shell',
      description: 'Legacy alias kept for old sessions; use job_kill. Stops a background shell job.',
      inputSchema: killShellArgumentsSchema,
    },
    permission: { subject: (args) => args.job_id },
    async execute(args, context) {
      const jobs = jobsFor(options, context);
      if (jobs.closed) return errorResult(jobsUnavailable());
      const id = args.job_id.trim();
      const killed = jobs.get(id) ? jobs.kill(id, { reason: 'kill_shell' }) : undefined;
      if (killed?.ok && killed.value.wasRunning) {
        return textResult(`Killed background job "${id}".`, { jobId: id, wasRunning: true });
      }
      return textResult(`Background job ${shownJobId(id)} was not running (already finished or unknown).`, {
        wasRunning: false,
      });
    },
  });
}

/**
 * Creates `wait`, a hidden legacy alias of job_output(wait=true) over several jobs: it blocks until
 * the listed jobs (default: every job running now) have finished or `timeout_seconds` (default 30)
 * pass, never killing, then returns one block per job — `[<id> (<label>)] <status>` and its new
 * output — separated by blank lines; `No background jobs to wait for.` when there are none. Unknown
 * ids get a `[<id>] unknown job` block.
 */
export function createWaitTool(options: ShellToolsOptions): ToolDefinition<WaitArguments> {
  return defineTool({
    name: 'wait',
    source: 'builtin',
    group: 'shell_builtins',
    category: 'shell',
    annotations: JOB_READ_ANNOTATIONS,
    execution: { mode: 'parallel', timeoutMs: JOB_READ_EXECUTION_TIMEOUT_MS, abortable: true },
    pathAccess: 'none',
    visibility: 'hidden',
    resultShape: 'shell',
    modelTool: {
      name: 'wait',
      description:
        'Legacy alias kept for old sessions; use job_output with wait=true. Waits for background jobs to finish.',
      inputSchema: waitArgumentsSchema,
    },
    async execute(args, context) {
      const jobs = jobsFor(options, context);
      if (jobs.closed) return errorResult(jobsUnavailable());
      const ids = args.job_ids
        ? [...new Set(args.job_ids.map((id) => id.trim()))]
        : jobs
            .list()
            .filter((job) => job.state === 'running')
            .map((job) => job.id);
      if (ids.length === 0) return textResult('No background jobs to wait for.', { jobs: [] });
      const timeoutMs = (args.timeout_seconds ?? WAIT_DEFAULT_SECONDS) * 1000;
      await Promise.all(
        ids.filter((id) => jobs.get(id)).map((id) => jobs.wait(id, { timeoutMs, signal: context.signal })),
      );
      if (context.signal.aborted) {
        return errorResult(
          new ToolhostError({ code: 'ABORTED', message: 'wait was cancelled; the jobs keep running' }),
        );
      }
      const blocks: string[] = [];
      const states: Array<{ jobId: string; state: string }> = [];
      for (const id of ids) {
        const snapshot = jobs.get(id);
        if (!snapshot) {
          blocks.push(`[${shownJobId(id).replace(/^"|"$/g, '')}] unknown job`);
          continue;
        }
        const read = await jobs.readNew(id);
        if (!read.ok) return errorResult(jobErrorToToolhostError(read.error));
        states.push({ jobId: id, state: read.value.snapshot.state });
        blocks.push(`[${id} (${snapshot.label})] ${read.value.snapshot.state}\n${newOutputBody(read.value)}`);
      }
      return textResult(blocks.join('\n\n'), { jobs: states });
    },
  });
}
