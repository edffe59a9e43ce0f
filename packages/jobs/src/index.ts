export {
  buildBubblewrapArguments,
  type BubblewrapLayout,
  type BubblewrapProbe,
  findBubblewrap,
  probeBubblewrap,
} from './bubblewrap.js';
export {
  type ContainCommandOptions,
  type ContainedCommand,
  type ContainmentProbe,
  containCommand,
  containmentArguments,
  probeContainment,
  resolveExecutable,
} from './containment.js';
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
  ENVIRONMENT_ALLOWLIST,
  type EnvironmentInheritance,
  FORCED_ENVIRONMENT,
  type JobEnvironmentOptions,
  SECRET_NAME_PATTERN,
} from './job-environment.js';
export {
  HOME_CREDENTIAL_PATHS,
  HOME_TOOLCHAIN_DIRECTORIES,
  type HostView,
  type HostViewMount,
  type HostViewOptions,
  listVisibleSockets,
  planHostView,
  SYSTEM_DIRECTORIES,
  SYSTEM_SECRET_PATHS,
} from './host-view.js';
export { closingDescriptors, listInheritedDescriptors } from './inherited-descriptors.js';
export type { JobError, JobErrorCode, JobResult } from './job-error.js';
export type { LineFilter } from './job-log.js';
export type { PlaceholderRecord, ReapedOrphan } from './job-registry.js';
export {
  findProcessesWithEnvironment,
  isProcessAlive,
  listProcesses,
  type ProcessIdentity,
  type ProcessInfo,
  readProcessIdentity,
} from './process-table.js';
export { collectJobProcesses, JOB_MARKER_VARIABLE, type JobProcessSelector } from './process-tree.js';
export {
  type EntryIdentity,
  type IndexUpdate,
  ProtectedPathIndex,
  type ProtectedPathIndexOptions,
} from './protected-path-index.js';
export {
  ALWAYS_PROTECTED_NAMES,
  isAbsoluteLiteral,
  type MissingProtectedPath,
  type PlanProtectedPathsOptions,
  planProtectedPaths,
  type ProtectedPathPlan,
} from './protected-paths.js';
export {
  type JobGuard,
  type JobWindow,
  normalizeSandboxOptions,
  type QuarantinedEntry,
  type SandboxMode,
  type SandboxOptions,
} from './sandbox.js';
export { buildSeatbeltProfile, patternToSeatbeltRegex, type SeatbeltLayout } from './seatbelt.js';
export {
  buildBashInvocation,
  buildPowerShellInvocation,
  buildPowerShellScript,
  buildShellInvocation,
  encodePowerShellCommand,
  type JobShell,
  POWERSHELL_COMMAND_VARIABLE,
  POWERSHELL_INLINE_LIMIT,
  type ShellExecutables,
  type ShellInvocation,
} from './shell-invocation.js';
