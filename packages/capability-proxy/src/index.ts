export type {
  CapabilityAction,
  SessionToolResultArguments,
  UseCapabilityArguments,
} from './capability-arguments.js';
export {
  MCP_PROMPT_RULE,
  MCP_READ_RESOURCE_RULE,
  mcpPermissionName,
  mcpPromptCapabilityId,
  mcpResourceCapabilityId,
  mcpToolCapabilityId,
  type ParsedCapabilityId,
  parseCapabilityId,
  SESSION_TOOL_RESULT_ID,
  serverCapabilityId,
  toolCapabilityId,
} from './capability-ids.js';
export {
  createCapabilityProxy,
  DEFAULT_MCP_LIMITS,
  DEFAULT_MCP_TIMEOUTS,
  USE_CAPABILITY_DESCRIPTION,
  USE_CAPABILITY_TOOL_NAME,
} from './capability-proxy.js';
export {
  sessionToolResultArgumentsSchema,
  useCapabilityArgumentsSchema,
} from './capability-schemas.generated.js';
export { exampleFromSchema } from './example-from-schema.js';
export {
  expandVariables,
  MCP_SERVER_NAME_PATTERN,
  type McpServerConfig,
  type McpServersConfig,
  type McpTransportKind,
  parseMcpServers,
  type ResolvedMcpServer,
  slugOf,
} from './mcp-config.js';
export type { McpLimits, McpServerStatus, McpTimeouts, McpTransportUsed } from './mcp-connection.js';
export {
  MCP_IMAGE_RESOURCE_MAX_BYTES,
  type McpContentOrigin,
  type McpResultOrigin,
  toPromptOutput,
  toResourceOutput,
  toToolOutput,
} from './mcp-content.js';
export {
  type ContentArgumentsCheck,
  checkContentArguments,
  MCP_CONTENT_LIMITS,
  type McpPrompt,
  type McpPromptArgument,
  type McpResource,
  type McpResourceTemplate,
  type McpServerContent,
  type McpTemplateVariable,
  templateVariables,
} from './mcp-resources.js';
export {
  MCP_TOOL_LIMITS,
  type McpCachedToolListing,
  type McpSchemaCache,
  type McpToolSchema,
  mapAnnotations,
  type NormalizedMcpTools,
  schemaCachePath,
} from './mcp-tools.js';
export type {
  AuthorizeCapability,
  CapabilityAuthorization,
  CapabilityAuthorizationRequest,
  CapabilityInventory,
  CapabilityPolicyTarget,
  CapabilityProxy,
  CapabilityProxyCloneOptions,
  CapabilityProxyOptions,
  DispatchTool,
  DispatchToolContext,
  McpConnectAuthorizationRequest,
  McpServerInventory,
  McpServerProcess,
  McpToolAuthorizationRequest,
  RefuseCapability,
} from './proxy-types.js';
export {
  createResultStore,
  DEFAULT_RESULT_DISK_BYTES,
  type PageableBody,
  pageBody,
  type PageToolResultOptions,
  type PutToolResultOptions,
  type PutToolResultValue,
  type ResultStore,
  type ResultStoreOptions,
  resultRefOf,
  type StoredToolResult,
  TOOL_RESULT_PAGE_DEFAULT_BYTES,
  TOOL_RESULT_PAGE_MAX_BYTES,
  type ToolResultLookup,
  type ToolResultPage,
  type ToolResultPageHeader,
  toolResultRecipe,
} from './result-store.js';
export {
  type CapabilityHit,
  type CapabilitySummary,
  closeCandidates,
  searchCapabilities,
} from './search-capabilities.js';
export {
  createServerEnvironment,
  POSIX_SAFE_ENVIRONMENT,
  type ServerEnvironmentOptions,
  WINDOWS_SAFE_ENVIRONMENT,
} from './server-environment.js';
export {
  DEFAULT_MCP_LOGIN_TIMEOUT_MS,
  loginMcpServer,
  logoutMcpServer,
  type McpLoginOptions,
  type McpLoginOutcome,
  type McpSignInReport,
  type McpSignInTarget,
  mcpServerSignIn,
  mcpSignInTarget,
} from './mcp-oauth-login.js';
// The SDK's OAuthClientProvider implementation stays internal: exporting it would put the SDK's DOM
// types (HeadersInit) into this package's public declarations, which a Node-only consumer cannot check.
export { type McpOAuthLogin, McpSignInRequired } from './mcp-oauth-provider.js';
export {
  MCP_OAUTH_DIR_NAME,
  type McpOAuthEntry,
  type McpSignInStatus,
  mcpOAuthFile,
  mcpSignInStatus,
} from './mcp-oauth-store.js';
