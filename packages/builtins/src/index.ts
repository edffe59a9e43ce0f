// Each area (editing, discovery, shell) adds its named exports here: an explicit line is an API decision.
export { createDiscoveryTools, type DiscoveryToolsOptions } from './discovery/create-discovery-tools.js';
export { createFileTools } from './files/create-file-tools.js';
export { createStructuredEditTools } from './files/create-structured-edit-tools.js';
export type {
  CodeIndexArguments,
  DeleteSymbolArguments,
  SymbolKindArgument,
} from './discovery/code-arguments.js';
export { type CodeIndexToolOptions, createCodeIndexTool } from './discovery/code-index.js';
export { codeIndexArgumentsSchema, deleteSymbolArgumentsSchema } from './discovery/code-schemas.generated.js';
export type { NotebookEditArguments } from './files/notebook-arguments.js';
export type { WebFetchArguments } from './web/web-arguments.js';
export { createWebFetchTool, type WebFetchToolOptions } from './web/web-fetch.js';
export { webFetchArgumentsSchema } from './web/web-schemas.generated.js';
export { notebookEditArgumentsSchema } from './files/notebook-schemas.generated.js';
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
export { createGlobTool, type GlobToolOptions } from './discovery/glob.js';
export { createGrepTool, type GrepToolOptions } from './grep/grep.js';
export { findRipgrep } from './grep/grep-ripgrep-path.js';
export { createLsTool, type LsToolOptions } from './discovery/ls.js';
export { createViewImageTool, type ViewImageToolOptions } from './files/view-image.js';
export { createBashTool } from './shell/bash.js';
export { createShellTools } from './shell/create-shell-tools.js';
export { createJobKillTool } from './shell/job-kill.js';
export { createJobOutputTool } from './shell/job-output.js';
export { createBashOutputTool, createKillShellTool, createWaitTool } from './shell/legacy-job-aliases.js';
export { createPwshTool } from './shell/pwsh.js';
export type {
  BashArguments,
  BashOutputArguments,
  JobKillArguments,
  JobOutputArguments,
  KillShellArguments,
  PwshArguments,
  WaitArguments,
} from './shell/shell-arguments.js';
export { findPowerShellChainOperator, type PowerShellChainOperator } from './shell/shell-powershell.js';
export {
  bashArgumentsSchema,
  bashOutputArgumentsSchema,
  jobKillArgumentsSchema,
  jobOutputArgumentsSchema,
  killShellArgumentsSchema,
  pwshArgumentsSchema,
  waitArgumentsSchema,
} from './shell/shell-schemas.generated.js';
export type { PowerShellEdition, ShellPlatform, ShellToolsOptions } from './shell/shell-tools-options.js';
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
  MAX_PARALLEL_SUBAGENTS,
  SUBAGENT_PREVIEW_BYTES,
  SUBAGENT_TOOL_NAMES,
  type SubagentService,
  type SubagentToolsOptions,
} from './session/subagent-tools.js';
export { createSessionTools } from './session/create-session-tools.js';
export { createCompressTool, countOccurrences } from './session/compress.js';
export { createCreateGoalTool } from './session/create-goal.js';
export { createGetGoalTool } from './session/get-goal.js';
export { createPresentTool } from './session/present.js';
export { createTodoWriteTool, renderTodos } from './session/todo-write.js';
export { createUpdateGoalTool } from './session/update-goal.js';
export {
  beginGoalRound,
  createGoal,
  type GoalRound,
  type GoalUpdate,
  goalModelView,
  parseGoalRecord,
  restoredGoalState,
  updateGoal,
} from './session/goal-protocol.js';
export type {
  CompressArguments,
  CreateGoalArguments,
  GetGoalArguments,
  PresentArguments,
  PresentFile,
  TodoWriteArguments,
  TodoWriteItem,
  UpdateGoalArguments,
} from './session/session-arguments.js';
export {
  compressArgumentsSchema,
  createGoalArgumentsSchema,
  getGoalArgumentsSchema,
  presentArgumentsSchema,
  todoWriteArgumentsSchema,
  updateGoalArgumentsSchema,
} from './session/session-schemas.generated.js';
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
export {
  SESSION_READ_ANNOTATIONS,
  SESSION_WRITE_ANNOTATIONS,
  type SessionToolsOptions,
} from './session/session-tool-options.js';
