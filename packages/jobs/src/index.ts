// The public API of @toolhost/jobs (README "API"): the job manager, its sandbox and environment
// options, `containCommand`, and the bubblewrap lookup and probe (`toolhost doctor`). Everything else (bubblewrap and seatbelt plans, the host view, the
// process table, shell invocations) is internal: tests import it from its own file.
export { type BubblewrapProbe, findBubblewrap, probeBubblewrap } from './bubblewrap.js';
export { type ContainCommandOptions, type ContainedCommand, containCommand } from './containment.js';
export {
  createJobManager,
  type JobEndReason,
  type JobLogRange,
  type JobManager,
  type JobManagerOptions,
  type JobOutputChunk,
  type JobOutputExcerpt,
  type JobSnapshot,
  type JobState,
  type StartJobOptions,
} from './create-job-manager.js';
export {
  createJobEnvironment,
  type EnvironmentInheritance,
  type JobEnvironmentOptions,
} from './job-environment.js';
export { HOME_CREDENTIAL_PATHS, SYSTEM_SECRET_PATHS } from './host-view.js';
export type { JobError, JobErrorCode, JobResult } from './job-error.js';
export type { LineFilter } from './job-log.js';
export type { ReapedOrphan } from './job-registry.js';
export { normalizeSandboxOptions, type SandboxMode, type SandboxOptions } from './sandbox.js';
export type { JobShell, ShellExecutables } from './shell-invocation.js';
