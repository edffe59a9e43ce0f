import { defineTool, errorResult, type ToolDefinition, textResult } from '@toolhost/contracts';
import type { JobKillArguments } from './shell-arguments.js';
import { jobErrorToToolhostError, jobsUnavailable, shownJobId } from './shell-format.js';
import { jobKillArgumentsSchema } from './shell-schemas.generated.js';
import { jobsFor, type ShellToolsOptions } from './shell-tools-options.js';

const DESCRIPTION = [
  'Stop a background job and everything it started. Returns at once: the job is marked killed immediately and its processes are torn down in the background.',
  'Stopping a job that already finished, or an unknown id, is not an error.',
].join(' ');

/** The facts of job_kill and kill_shell: they end this session's own processes, nothing else. */
export const JOB_KILL_ANNOTATIONS = Object.freeze({
  readOnly: false,
  destructive: false,
  idempotent: true,
  openWorld: false,
});

/**
 * Creates `job_kill` (requirements JK-1..JK-3 in REQUIREMENTS.md): a running job →
 * `Requested cancellation of job "<id>".` and `[status: killed]`; a finished or unknown job → the
 * normal result `Job "<id>" had already finished or is unknown.`. `reason` is recorded on the job,
 * never echoed. Error codes: `EXECUTION_ERROR` when the job manager is closed.
 */
export function createJobKillTool(options: ShellToolsOptions): ToolDefinition<JobKillArguments> {
  return defineTool({
    name: 'job_kill',
    source: 'builtin',
    group: 'shell_builtins',
    category: 'shell',
    annotations: JOB_KILL_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: 10_000, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    resultShape: 'default',
    modelTool: { name: 'job_kill', description: DESCRIPTION, inputSchema: jobKillArgumentsSchema },
    permission: { subject: (args) => args.job_id, preview: (args) => `job_kill ${args.job_id}` },
    async execute(args, context) {
      const jobs = jobsFor(options, context);
      if (jobs.closed) return errorResult(jobsUnavailable());
      const id = args.job_id.trim();
      const killed = jobs.get(id) ? jobs.kill(id, args.reason ? { reason: args.reason } : {}) : undefined;
      if (killed && !killed.ok) return errorResult(jobErrorToToolhostError(killed.error));
      if (killed?.value.wasRunning) {
        return textResult(`Requested cancellation of job "${id}".\n[status: killed]`, {
          jobId: id,
          wasRunning: true,
          state: 'killed',
        });
      }
      return textResult(`Job ${shownJobId(id)} had already finished or is unknown.`, {
        wasRunning: false,
        ...(killed ? { jobId: id, state: killed.value.snapshot.state } : {}),
      });
    },
  });
}
