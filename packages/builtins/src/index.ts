// The public API of @toolhost/builtins, as the README's "API" section lists it: the tool factories a
// host calls, their options, and the types and helpers a host needs to keep a session's state. An
// explicit line is an API decision; tests import everything else by file.

// Discovery tools: ls, glob, grep, view_image.
export { createDiscoveryTools, type DiscoveryToolsOptions } from './discovery/create-discovery-tools.js';
export type {
  GlobArguments,
  GrepArguments,
  LsArguments,
  ViewImageArguments,
} from './discovery/discovery-arguments.js';
export {
  globArgumentsSchema,
  grepArgumentsSchema,
  lsArgumentsSchema,
  viewImageArgumentsSchema,
} from './discovery/discovery-schemas.generated.js';
export { createGlobTool, type GlobToolOptions } from './discovery/glob.js';
export { createLsTool, type LsToolOptions } from './discovery/ls.js';
export { createGrepTool, type GrepToolOptions } from './grep/grep.js';
export { findRipgrep } from './grep/grep-ripgrep-path.js';
export { createViewImageTool, type ViewImageToolOptions } from './files/view-image.js';

// File tools: read_file, write_file, edit_file, multi_edit, delete_range, move_file.
export { createFileTools } from './files/create-file-tools.js';
export type {
  DeleteRangeArguments,
  EditFileArguments,
  MoveFileArguments,
  MultiEditArguments,
  MultiEditStep,
  ReadFileArguments,
  WriteFileArguments,
} from './files/file-arguments.js';
export {
  deleteRangeArgumentsSchema,
  editFileArgumentsSchema,
  moveFileArgumentsSchema,
  multiEditArgumentsSchema,
  readFileArgumentsSchema,
  writeFileArgumentsSchema,
} from './files/file-schemas.generated.js';
export type { FilePathPolicy, FileToolLimits, FileToolsOptions } from './files/file-tools-options.js';

// Structured editors (notebook_edit, delete_symbol), code_index and web_fetch.
export { createStructuredEditTools } from './files/create-structured-edit-tools.js';
export { type CodeIndexToolOptions, createCodeIndexTool } from './discovery/code-index.js';
export { createWebFetchTool, type WebFetchToolOptions } from './web/web-fetch.js';

// Shell tools: bash or pwsh, job_output, job_kill and the hidden legacy aliases.
export { createShellTools } from './shell/create-shell-tools.js';
export type { PowerShellEdition, ShellPlatform, ShellToolsOptions } from './shell/shell-tools-options.js';

// Subagent tools: task, parallel_tasks, read_subagent_result.
export type {
  ParallelTasksArguments,
  ReadSubagentResultArguments,
  TaskArguments,
} from './session/subagent-arguments.js';
export {
  fairShares,
  type RenderSubagentOptions,
  renderSubagentResults,
  type SubagentStatus,
  type SubagentSummary,
  subagentReadRecipe,
} from './session/subagent-format.js';
export {
  parallelTasksArgumentsSchema,
  readSubagentResultArgumentsSchema,
  taskArgumentsSchema,
} from './session/subagent-schemas.generated.js';
export {
  createSubagentTools,
  SUBAGENT_PREVIEW_BYTES,
  type SubagentService,
  type SubagentToolsOptions,
} from './session/subagent-tools.js';

// Session tools: todo_write, create_goal, get_goal, update_goal, present, compress; the session state.
export { createSessionTools } from './session/create-session-tools.js';
export { beginGoalRound, type GoalRound, restoredGoalState } from './session/goal-protocol.js';
export type {
  ConversationCompressOutcome,
  ConversationCompressRequest,
  ConversationPort,
  ConversationUserMessage,
  Deliverable,
  GoalActivation,
  GoalRecord,
  GoalState,
  GoalStatus,
  GoalStopReason,
  SessionStateAccess,
  SessionStatePort,
  TodoItem,
  TodoStatus,
} from './session/session-state.js';
export { parseSessionStateSnapshot, type SessionStateSnapshot } from './session/session-state-snapshot.js';
export type { SessionToolsOptions } from './session/session-tool-options.js';
