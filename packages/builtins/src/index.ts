// Each area (editing, discovery, shell) adds its named exports here: an explicit line is an API decision.
export { createDiscoveryTools, type DiscoveryToolsOptions } from './create-discovery-tools.js';
export { createFileTools } from './create-file-tools.js';
export { createStructuredEditTools } from './create-structured-edit-tools.js';
export type { CodeIndexArguments, DeleteSymbolArguments, SymbolKindArgument } from './code-arguments.js';
export { type CodeIndexToolOptions, createCodeIndexTool } from './code-index.js';
export { codeIndexArgumentsSchema, deleteSymbolArgumentsSchema } from './code-schemas.generated.js';
export type { NotebookEditArguments } from './notebook-arguments.js';
export type { WebFetchArguments } from './web-arguments.js';
export { createWebFetchTool, type WebFetchToolOptions } from './web-fetch.js';
export { webFetchArgumentsSchema } from './web-schemas.generated.js';
export { notebookEditArgumentsSchema } from './notebook-schemas.generated.js';
export type { GlobArguments, GrepArguments, LsArguments, ViewImageArguments } from './discovery-arguments.js';
export {
  globArgumentsSchema,
  grepArgumentsSchema,
  lsArgumentsSchema,
  viewImageArgumentsSchema,
} from './discovery-schemas.generated.js';
export type {
  DeleteRangeArguments,
  EditFileArguments,
  MoveFileArguments,
  MultiEditArguments,
  MultiEditStep,
  ReadFileArguments,
  WriteFileArguments,
} from './file-arguments.js';
export {
  deleteRangeArgumentsSchema,
  editFileArgumentsSchema,
  moveFileArgumentsSchema,
  multiEditArgumentsSchema,
  readFileArgumentsSchema,
  writeFileArgumentsSchema,
} from './file-schemas.generated.js';
export type { FilePathPolicy, FileToolLimits, FileToolsOptions } from './file-tools-options.js';
export { createGlobTool, type GlobToolOptions } from './glob.js';
export { createGrepTool, type GrepToolOptions } from './grep.js';
export { findRipgrep } from './grep-ripgrep-path.js';
export { createLsTool, type LsToolOptions } from './ls.js';
export { createViewImageTool, type ViewImageToolOptions } from './view-image.js';
export { createBashTool } from './bash.js';
export { createShellTools } from './create-shell-tools.js';
export { createJobKillTool } from './job-kill.js';
export { createJobOutputTool } from './job-output.js';
export { createBashOutputTool, createKillShellTool, createWaitTool } from './legacy-job-aliases.js';
export { createPwshTool } from './pwsh.js';
export type {
  BashArguments,
  BashOutputArguments,
  JobKillArguments,
  JobOutputArguments,
  KillShellArguments,
  PwshArguments,
  WaitArguments,
} from './shell-arguments.js';
export { findPowerShellChainOperator, type PowerShellChainOperator } from './shell-powershell.js';
export {
  bashArgumentsSchema,
  bashOutputArgumentsSchema,
  jobKillArgumentsSchema,
  jobOutputArgumentsSchema,
  killShellArgumentsSchema,
  pwshArgumentsSchema,
  waitArgumentsSchema,
} from './shell-schemas.generated.js';
export type { PowerShellEdition, ShellPlatform, ShellToolsOptions } from './shell-tools-options.js';
export type {
  ParallelTasksArguments,
  ReadSubagentResultArguments,
  TaskArguments,
} from './subagent-arguments.js';
export {
  fairShares,
  type RenderSubagentOptions,
  renderSubagentResults,
  type SubagentStatus,
  type SubagentSummary,
  subagentReadRecipe,
} from './subagent-format.js';
export {
  parallelTasksArgumentsSchema,
  readSubagentResultArgumentsSchema,
  taskArgumentsSchema,
} from './subagent-schemas.generated.js';
export {
  createSubagentTools,
  MAX_PARALLEL_SUBAGENTS,
  SUBAGENT_PREVIEW_BYTES,
  SUBAGENT_TOOL_NAMES,
  type SubagentService,
  type SubagentToolsOptions,
} from './subagent-tools.js';
export { createSessionTools } from './create-session-tools.js';
export { createCompressTool, countOccurrences } from './compress.js';
export { createCreateGoalTool } from './create-goal.js';
export { createGetGoalTool } from './get-goal.js';
export { createPresentTool } from './present.js';
export { createTodoWriteTool, renderTodos } from './todo-write.js';
export { createUpdateGoalTool } from './update-goal.js';
export {
  beginGoalRound,
  createGoal,
  type GoalRound,
  type GoalUpdate,
  goalModelView,
  parseGoalRecord,
  restoredGoalState,
  updateGoal,
} from './goal-protocol.js';
export type {
  CompressArguments,
  CreateGoalArguments,
  GetGoalArguments,
  PresentArguments,
  PresentFile,
  TodoWriteArguments,
  TodoWriteItem,
  UpdateGoalArguments,
} from './session-arguments.js';
export {
  compressArgumentsSchema,
  createGoalArgumentsSchema,
  getGoalArgumentsSchema,
  presentArgumentsSchema,
  todoWriteArgumentsSchema,
  updateGoalArgumentsSchema,
} from './session-schemas.generated.js';
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
} from './session-state.js';
export { parseSessionStateSnapshot, type SessionStateSnapshot } from './session-state-snapshot.js';
export {
  SESSION_READ_ANNOTATIONS,
  SESSION_WRITE_ANNOTATIONS,
  type SessionToolsOptions,
} from './session-tool-options.js';
