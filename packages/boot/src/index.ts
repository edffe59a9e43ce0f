// The public API of @toolhost/boot (README "API" lists every name): what other packages, the CLI,
// bench, docs and README examples import, and the types their signatures name. Everything else is
// internal: tests import it from its own file.
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
// The MCP sign-in API `toolhost mcp` uses (the CLI depends on boot only).
export {
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
export type { AuditEvent, AuditEventType } from './audit-log.js';
export { createHost, type Host, type HostOptions, type HostSnapshot } from './create-host.js';
export type {
  ApprovalPolicy,
  PermissionDecision,
  PermissionSource,
  SandboxMode,
} from './decide-permission.js';
export {
  type ConfiguredHook,
  HOOK_EVENTS,
  type HookCommand,
  type HookEvent,
  type HookMatcher,
  type HookMatcherGroup,
  type HooksConfig,
} from './hook-config.js';
export type {
  ExtensionAfterResult,
  ExtensionCall,
  ExtensionDecision,
  ExtensionToolResponse,
  HostExtension,
} from './host-extension.js';
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
  type HostConfig,
  type HostConfigDefaults,
  type HostConfigInput,
  type McpServerConfig,
  type SurfaceProfile,
  type WebFetchConfig,
} from './parse-host-config.js';
export { MAX_PARALLEL_CALLS } from './pipeline-context.js';
export {
  type ConfigLayerReport,
  type ConfigRole,
  type IgnoredSetting,
  type ResolvedHostConfig,
  type ResolveHostConfigOptions,
  readConfigFile,
  resolveHostConfig,
} from './resolve-host-config.js';
export type {
  SandboxConfig,
  SandboxConfigInput,
  ShellEnvironmentConfig,
  ShellEnvironmentConfigInput,
} from './sandbox-config.js';
export type { HostPlatform } from './select-surface.js';
export type {
  ChildSessionOptions,
  ProviderTools,
  ProviderToolsOptions,
  Session,
  SessionGoal,
  SessionJobRecord,
  SessionOptions,
  SessionPolicy,
  SessionResultRecord,
  SessionSnapshot,
} from './session-types.js';
export { MAX_MODEL_RESULT_BYTES, RESULT_BUDGETS } from './shape-result.js';
export {
  createStormBreaker,
  type StormBreaker,
  type StormBreakerOptions,
  type StormNotice,
  type StormOutcome,
} from './storm-breaker.js';
export type {
  SubagentResume,
  SubagentRunner,
  SubagentRunOutcome,
  SubagentRunRequest,
  SubagentStatus,
} from './subagent-types.js';
export { createToolTelemetry, type ToolTelemetry, type ToolTelemetryOptions } from './telemetry.js';
export {
  configDigest,
  isProjectConfigTrusted,
  resolveUserConfigDir,
  TRUST_STORE_FILE_NAME,
  USER_CONFIG_FILE_NAME,
  type UserConfigDirOptions,
  writeProjectTrust,
} from './user-config.js';
