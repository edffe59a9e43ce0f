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
  SessionResultRecord,
  SessionSnapshot,
} from './session-types.js';
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
  type SandboxMode,
  sandboxDenial,
} from './decide-permission.js';
export { MAX_PARALLEL_CALLS } from './pipeline-context.js';
export type {
  ApprovalAnswer,
  ApprovalRequest,
  ApproveCallback,
  BatchResult,
  DispatchError,
  DispatchOptions,
  DispatchResult,
  ResolvedPathTarget,
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
