export {
  type AuditEvent,
  type AuditEventType,
  type AuditLog,
  type AuditLogOptions,
  createAuditLog,
} from './audit-log.js';
export { closeNames } from './close-names.js';
export { createHost, type Host, type HostOptions, type HostSnapshot } from './create-host.js';
export { narrowPolicy } from './create-session.js';
export type {
  ChildSessionOptions,
  ProviderTools,
  ProviderToolsOptions,
  Session,
  SessionJobRecord,
  SessionOptions,
  SessionPolicy,
  SessionGoal,
  SessionResultRecord,
  SessionSnapshot,
} from './session-types.js';
// The session tools' state types, for embedding loops (a session reports them; `run` drives goals).
export type {
  ConversationCompressOutcome,
  ConversationCompressRequest,
  ConversationPort,
  ConversationUserMessage,
  Deliverable,
  GoalActivation,
  GoalRecord,
  GoalRound,
  GoalStatus,
  GoalStopReason,
  TodoItem,
  TodoStatus,
} from '@toolhost/builtins';
export {
  DEFAULT_SESSION_MAX_AGE_MS,
  DEFAULT_SESSIONS_MAX_BYTES,
  SESSION_ID_PATTERN,
} from './session-store.js';
export {
  type ApprovalPolicy,
  decidePermission,
  type PermissionDecision,
  type PermissionRequest,
  type PermissionSource,
  type PermissionToolFacts,
  planDenial,
  type SandboxMode,
  sandboxDenial,
} from './decide-permission.js';
export { MAX_SUBAGENT_DEPTH } from './subagent-service.js';
export { SUBAGENT_REFERENCE_PATTERN } from './subagent-store.js';
export {
  MAX_SUBAGENT_ANSWER_BYTES,
  MAX_SUBAGENT_STATE_BYTES,
  type SubagentRecord,
  type SubagentResume,
  type SubagentRunner,
  type SubagentRunOutcome,
  type SubagentRunRequest,
  type SubagentStatus,
} from './subagent-types.js';
export {
  EXTENSION_TIMEOUT_MS,
  type ExtensionAfterResult,
  type ExtensionCall,
  type ExtensionDecision,
  type ExtensionToolResponse,
  type HostExtension,
} from './host-extension.js';
export {
  compileHookMatcher,
  type ConfiguredHook,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HOOK_EVENTS,
  type HookCommand,
  type HookEvent,
  type HookMatcher,
  type HookMatcherGroup,
  type HooksConfig,
  MAX_HOOK_TIMEOUT_SECONDS,
} from './hook-config.js';
export { EXIT_PLAN_MODE } from './plan-mode.js';
export { MAX_HOOK_REASON_BYTES } from './run-hooks.js';
export { MAX_CALL_REPLACEMENTS, MAX_PARALLEL_CALLS } from './pipeline-context.js';
export type {
  ApprovalAnswer,
  ApprovalChoice,
  ApprovalRequest,
  ApproveCallback,
  BatchResult,
  DispatchError,
  DispatchOptions,
  DispatchResult,
  ResolvedPathTarget,
  StopRequest,
  ToolCall,
  TurnOrigin,
} from './host-types.js';
export {
  CONFIG_FILE_NAME,
  EMPTY_HOST_CONFIG,
  type HostConfig,
  type HostConfigDefaults,
  type HostConfigInput,
  type WebFetchConfig,
  loadHostConfig,
  type McpServerConfig,
  parseConfigText,
  parseHostConfig,
  type SurfaceProfile,
} from './parse-host-config.js';
export {
  createPermissionRules,
  type PermissionRule,
  type PermissionRuleEffect,
  type PermissionRuleLists,
  type PermissionRuleMatch,
  type PermissionRules,
  parsePermissionRule,
  sessionPrefixRule,
} from './permission-rules.js';
export {
  type ConfigLayerReport,
  type ConfigRole,
  type IgnoredSetting,
  MAX_CONFIG_BYTES,
  type ResolvedHostConfig,
  type ResolveHostConfigOptions,
  readConfigFile,
  resolveHostConfig,
} from './resolve-host-config.js';
export { ABORT_GRACE_MS, type RunToolOptions, type RunToolOutcome, runTool } from './run-tool.js';
export {
  DEFAULT_MAX_PLAN_ENTRIES,
  MAX_PLAN_ENTRIES_LIMIT,
  parseSandboxConfig,
  parseShellEnvironment,
  type ResolveShellSandboxOptions,
  resolveShellSandbox,
  type SandboxConfig,
  type SandboxConfigInput,
  type ShellEnvironmentConfig,
  type ShellEnvironmentConfigInput,
  type ShellSandboxSettings,
} from './sandbox-config.js';
export {
  CONVERSATION_TOOLS,
  type HostPlatform,
  LEAN_SURFACE_TOOLS,
  type SelectSurfaceOptions,
  selectSurface,
  shellToolName,
  USE_CAPABILITY,
} from './select-surface.js';
export {
  MAX_MODEL_RESULT_BYTES,
  RESULT_BUDGETS,
  type ResultStore,
  type ShapedResultText,
  type ShapeResultOptions,
  type StoredResult,
  shapeResultText,
} from './shape-result.js';
export {
  createStormBreaker,
  type StormBreaker,
  type StormBreakerOptions,
  type StormNotice,
  type StormOutcome,
  stormCategory,
} from './storm-breaker.js';
export {
  configDigest,
  isProjectConfigTrusted,
  type ProjectTrustEntry,
  projectTrustEntry,
  resolveUserConfigDir,
  TRUST_STORE_FILE_NAME,
  USER_CONFIG_FILE_NAME,
  type UserConfigDirOptions,
  writeProjectTrust,
} from './user-config.js';
export { createToolTelemetry, type ToolTelemetry, type ToolTelemetryOptions } from './telemetry.js';
// The MCP sign-in API `toolhost mcp` uses (the CLI depends on boot only).
export {
  DEFAULT_MCP_LOGIN_TIMEOUT_MS,
  loginMcpServer,
  logoutMcpServer,
  MCP_OAUTH_DIR_NAME,
  type McpLoginOutcome,
  type McpSignInReport,
  mcpServerSignIn,
  mcpSignInTarget,
  parseMcpServers,
  type ResolvedMcpServer,
} from '@toolhost/capability-proxy';
