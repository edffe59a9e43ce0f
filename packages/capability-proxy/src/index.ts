// The public API of @toolhost/capability-proxy (README "API" lists every name): what other packages, the CLI,
// bench, docs and README examples import, and the types their signatures name. Everything else is
// internal: tests import it from its own file.
export type { CapabilityAction, UseCapabilityArguments } from './capability-arguments.js';
export { createCapabilityProxy } from './capability-proxy.js';
export {
  type McpServerConfig,
  type McpServersConfig,
  type McpTransportKind,
  parseMcpServers,
  type ResolvedMcpServer,
} from './mcp-config.js';
export type { McpLimits, McpServerStatus, McpTimeouts } from './mcp-connection.js';
export {
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
export { MCP_OAUTH_DIR_NAME, type McpSignInStatus } from './mcp-oauth-store.js';
export { schemaCachePath } from './mcp-tools.js';
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
  RefusesCapability,
} from './proxy-types.js';
export {
  createResultStore,
  type PageableBody,
  type PageToolResultOptions,
  type PutToolResultOptions,
  type PutToolResultValue,
  pageBody,
  type ResultStore,
  type ResultStoreOptions,
  type StoredToolResult,
  TOOL_RESULT_PAGE_DEFAULT_BYTES,
  TOOL_RESULT_PAGE_MAX_BYTES,
  type ToolResultLookup,
  type ToolResultPage,
  type ToolResultPageHeader,
} from './result-store.js';
