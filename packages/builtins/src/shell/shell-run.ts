import { stat } from 'node:fs/promises';
import {
  errorResult,
  type ToolCallContext,
  type ToolDefinition,
  ToolhostError,
  type ToolResult,
  textResult,
} from '@toolhost/contracts';
import type { JobShell, JobSnapshot } from '@toolhost/jobs';
import type { BashArguments, PwshArguments } from './shell-arguments.js';
import { boundedOutput, formatDuration, jobErrorToToolhostError, jobsUnavailable } from './shell-format.js';
import {
  SHELL_DEFAULT_OUTPUT_BYTES,
  SHELL_DEFAULT_TIMEOUT_MS,
  SHELL_MAX_TIMEOUT_MS,
  jobsFor,
  type ShellToolsOptions,
} from './shell-tools-options.js';

/** The annotations of `bash` and `pwsh`: they can change anything their sandbox allows and reach out. */
export const SHELL_ANNOTATIONS = Object.freeze({ destructive: true, openWorld: true });

/** How often a running foreground command reports progress. */
const PROGRESS_INTERVAL_MS = 1_000;

/** How long the host lets a shell call run: the largest foreground timeout plus time for the tree kill. */
export const SHELL_EXECUTION_TIMEOUT_MS = SHELL_MAX_TIMEOUT_MS + 60_000;

/** The permission facts of a shell call: the command is the subject of `bash(git status:*)` rules. */
export function shellPermission(shell: JobShell): NonNullable<ToolDefinition<BashArguments>['permission']> {
  return {
    paths: (args) => [{ argument: 'workdir', path: args.workdir, access: 'list' }],
    subject: (args) => args.command,
    preview: (args) => `${shell}$ ${args.command}${args.description ? `  # ${args.description}` : ''}`,
  };
}

async function resolveWorkdir(
  options: ShellToolsOptions,
  workdir: string | undefined,
): Promise<{ ok: true; path: string; displayPath: string } | { ok: false; error: ToolhostError }> {
  const resolved = options.pathPolicy.resolve(workdir, { access: 'list', optional: true });
  if (!resolved.ok) {
    return {
      ok: false,
      error: new ToolhostError({
        code: resolved.error.code,
        message: resolved.error.message,
        details: { argument: 'workdir', reason: resolved.error.reason },
      }),
    };
  }
  try {
    const stats = await stat(resolved.path);
    if (!stats.isDirectory()) {
      return {
        ok: false,
        error: new ToolhostError({
          code: 'NOT_A_DIRECTORY',
          message: `workdir ${JSON.stringify(resolved.displayPath)} is not a directory`,
          recovery: 'pass a directory relative to the project root',
        }),
      };
    }
  } catch {
    return {
      ok: false,
      error: new ToolhostError({
        code: 'FS_NOT_FOUND',
        message: `workdir ${JSON.stringify(resolved.displayPath)} does not exist`,
        recovery: 'pass an existing directory relative to the project root, or create it first',
      }),
    };
  }
  return { ok: true, path: resolved.path, displayPath: resolved.displayPath };
}

function facts(snapshot: JobSnapshot, workdir: string, truncated: boolean) {
  return {
    jobId: snapshot.id,
    state: snapshot.state,
    ...(snapshot.exitCode !== undefined ? { exitCode: snapshot.exitCode } : {}),
    ...(snapshot.signal ? { signal: snapshot.signal } : {}),
    ...(snapshot.endReason ? { endReason: snapshot.endReason } : {}),
    ...(snapshot.durationMs !== undefined ? { durationMs: snapshot.durationMs } : {}),
    outputBytes: snapshot.outputBytes,
    truncated,
    logPath: snapshot.logPath,
    workdir,
    sandbox: snapshot.sandbox,
    // Whether a pid namespace held the command (nothing it started can outlive it), and why not.
    contained: snapshot.contained,
    ...(snapshot.containment ? { containment: snapshot.containment } : {}),
  };
}

/** The job's notes (a protected path moved to the quarantine, a disk budget reached) as text lines. */
function notesText(snapshot: JobSnapshot): string {
  return snapshot.notes.map((note) => `[sandbox note: ${note}]`).join('\n');
}

/**
 * Runs one `bash` / `pwsh` call (requirements SH-1..SH-7 in REQUIREMENTS.md): resolves `workdir` through the path
 * policy, starts the command as a job, and either returns the background job's id at once or waits
 * for the foreground command (its own timeout, the call's abort signal) and reports its bounded output.
 *
 * Results: success with the output (`(no output)` when empty); `COMMAND_FAILED` with all the output
 * and the exit code in details; `TIMEOUT` with the output so far ("timed out (> 2m0s)"), the tree
 * killed; `ABORTED` when the call was cancelled; `EXECUTION_ERROR` when the output limit stopped it
 * or the shell could not start; `DISK_FULL` when the log's file system was full (before the start, or
 * while the command failed); `SANDBOX_UNAVAILABLE`, `SANDBOX_PLAN_INCOMPLETE`, `JOB_LIMIT_REACHED` and
 * the path policy's codes before anything runs. Notes of the job (a protected path the command created
 * and the sandbox moved to its quarantine) follow the output.
 */
export async function runShellCall(
  options: ShellToolsOptions,
  shell: JobShell,
  args: BashArguments | PwshArguments,
  context: ToolCallContext,
): Promise<ToolResult> {
  const jobs = jobsFor(options, context);
  if (jobs.closed) return errorResult(jobsUnavailable());
  if (context.signal.aborted) {
    return errorResult(
      new ToolhostError({ code: 'ABORTED', message: 'the call was cancelled before the command started' }),
    );
  }
  const workdir = await resolveWorkdir(options, args.workdir);
  if (!workdir.ok) return errorResult(workdir.error);
  const background = args.run_in_background === true;
  const timeoutMs = Math.min(
    args.timeout_ms ?? options.defaultTimeoutMs ?? SHELL_DEFAULT_TIMEOUT_MS,
    SHELL_MAX_TIMEOUT_MS,
  );
  const started = await jobs.start({
    shell,
    command: args.command,
    cwd: workdir.path,
    ...(args.description ? { label: args.description } : {}),
    background,
    ...(background ? {} : { timeoutMs, signal: context.signal }),
  });
  if (!started.ok) return errorResult(jobErrorToToolhostError(started.error));
  const id = started.value.id;
  if (background) {
    return textResult(
      `Started background job "${id}". It keeps running across turns; read it with job_output(job_id="${id}") or stop it with job_kill(job_id="${id}").`,
      {
        jobId: id,
        background: true,
        logPath: started.value.logPath,
        workdir: workdir.displayPath,
        sandbox: started.value.sandbox,
      },
    );
  }
  // While the command runs, report how long it has been running and how much it wrote, once a
  // second, so a client that resets its timeout on progress keeps waiting (and a person sees it live).
  const reportProgress = context.onProgress;
  const startedAt = Date.now();
  const ticker = reportProgress
    ? setInterval(() => {
        const seconds = Math.round((Date.now() - startedAt) / 1000);
        const bytes = jobs.get(id)?.outputBytes ?? 0;
        reportProgress({
          progress: seconds,
          message: `running for ${seconds}s; ${bytes} bytes of output so far`,
        });
      }, PROGRESS_INTERVAL_MS)
    : undefined;
  ticker?.unref();
  const waited = await jobs.wait(id).finally(() => clearInterval(ticker));
  if (!waited.ok) return errorResult(jobErrorToToolhostError(waited.error));
  const snapshot = waited.value.snapshot;
  const budget = options.outputBytes ?? SHELL_DEFAULT_OUTPUT_BYTES;
  const output = boundedOutput(jobs, id, budget);
  const details = facts(snapshot, workdir.displayPath, output.truncated);
  const text = output.text.trim() === '' ? '(no output)' : output.text.replace(/\n+$/, '');
  const notes = notesText(snapshot);
  const body = notes ? `${text}\n${notes}` : text;
  const withOutput = (error: ToolhostError) =>
    errorResult(error, { content: [{ type: 'text', text: body }], details });
  if (snapshot.diskFull) {
    return withOutput(
      new ToolhostError({
        code: 'DISK_FULL',
        message:
          'the command failed while the file system holding its output log was full, so its output is missing or cut short',
        details: { exitCode: snapshot.exitCode ?? null, jobId: id },
      }),
    );
  }
  switch (snapshot.state) {
    case 'done':
      return textResult(body, details);
    case 'failed':
      return withOutput(
        new ToolhostError({
          code: 'COMMAND_FAILED',
          message:
            snapshot.exitCode !== undefined
              ? `the command exited with code ${snapshot.exitCode}`
              : `the command was terminated by ${snapshot.signal ?? 'a signal'}`,
          details: { exitCode: snapshot.exitCode ?? null, jobId: id },
        }),
      );
    case 'killed':
      if (snapshot.endReason === 'timeout') {
        return withOutput(
          new ToolhostError({
            code: 'TIMEOUT',
            message: `the command timed out (> ${formatDuration(timeoutMs)}) and its process tree was killed; the output so far is included`,
            recovery:
              'run it with run_in_background=true and poll job_output, raise timeout_ms (at most 600000), or narrow the work',
            details: { timeoutMs, jobId: id },
          }),
        );
      }
      if (snapshot.endReason === 'output_limit') {
        return withOutput(
          new ToolhostError({
            code: 'EXECUTION_ERROR',
            message: `the command printed ${snapshot.outputBytes} bytes, more than this session allows, and was stopped`,
            recovery: 'redirect the output to a file or filter it (grep, head, tail)',
            details: { jobId: id },
          }),
        );
      }
      // The host's own reason (for example its TIMEOUT) wins over a generic cancellation.
      if (snapshot.endReason === 'aborted' && ToolhostError.isInstance(context.signal.reason)) {
        return withOutput(context.signal.reason);
      }
      return withOutput(
        new ToolhostError({
          code: 'ABORTED',
          message:
            snapshot.endReason === 'aborted'
              ? 'the call was cancelled; the command and its process tree were killed'
              : 'the command was killed before it finished',
          details: { jobId: id },
        }),
      );
    default:
      return withOutput(
        new ToolhostError({
          code: 'ABORTED',
          message: 'the session closed before the command finished; its process tree was killed',
          details: { jobId: id },
        }),
      );
  }
}
