import type { ArgumentValidator, RegisteredTool } from '@toolhost/contracts';
import {
  mcpToolCapabilityId,
  SESSION_TOOL_RESULT_ID,
  serverCapabilityId,
  toolCapabilityId,
} from './capability-ids.js';
import type { ResolvedMcpServer } from './mcp-config.js';
import type { McpConnection, McpTimeouts } from './mcp-connection.js';
import type { McpToolSchema } from './mcp-tools.js';
import type { AuthorizeCapability, DispatchTool } from './proxy-types.js';
import {
  type ResultStore,
  TOOL_RESULT_PAGE_DEFAULT_BYTES,
  TOOL_RESULT_PAGE_MAX_BYTES,
} from './result-store.js';
import type { CapabilitySummary } from './search-capabilities.js';

/** The name of the proxy tool. */
export const USE_CAPABILITY_TOOL_NAME = 'use_capability';

/** What `session:tool_result` is, for search, list and inspect. */
export const SESSION_TOOL_RESULT_DESCRIPTION = `Pages the full text of a tool result that was truncated for you, by UTF-8 byte offset. Pass the tool_call_id and result_ref from the truncation marker; follow next_offset until complete is true. Each page starts with one JSON header line (result_ref, offset, next_offset, total_bytes, sha256 of the whole body, complete). limit: 1 to ${TOOL_RESULT_PAGE_MAX_BYTES} bytes, default ${TOOL_RESULT_PAGE_DEFAULT_BYTES}.`;

/** What every frontend of one proxy shares: the servers, their connections, the validator. */
export interface SharedState {
  readonly servers: readonly ResolvedMcpServer[];
  readonly connections: ReadonlyMap<string, McpConnection>;
  readonly validator: ArgumentValidator;
  readonly useCapabilitySchemaHash: string;
  readonly sessionSchemaHash: string;
  /** The longest bounds of any server (the slowest handshake, the longest total). */
  readonly timeouts: McpTimeouts;
  closed: boolean;
}

/**
 * One frontend of the proxy (the root or a child agent's clone), as the resolution, rendering,
 * MCP calling and paging modules see it: the shared servers plus this frontend's own catalog,
 * dispatcher, permission step and result store.
 */
export interface FrontendContext {
  readonly shared: SharedState;
  readonly catalog: () => readonly RegisteredTool[];
  readonly dispatchTool: DispatchTool | undefined;
  readonly authorize: AuthorizeCapability;
  readonly resultStore: ResultStore | undefined;
  /** The last connect decision of this frontend's `authorize`, per server. */
  readonly authorized: Map<string, boolean>;
  /** True once this frontend or the whole proxy is closed. */
  readonly closed: boolean;
}

/** Where an MCP tool's schema came from when it was resolved. */
export type SchemaSource = 'live' | 'cached' | 'unknown';

/** A capability id resolved against the inventory (nothing started). */
export type ResolvedCapability =
  | { readonly kind: 'tool'; readonly id: string; readonly tool: RegisteredTool }
  | { readonly kind: 'mcp-server'; readonly id: string; readonly connection: McpConnection }
  | {
      readonly kind: 'mcp-tool';
      readonly id: string;
      readonly connection: McpConnection;
      readonly tool: string;
      readonly schema: McpToolSchema | undefined;
      readonly schemaSource: SchemaSource;
    }
  | { readonly kind: 'session'; readonly id: string };

/** The built-ins reachable as `tool:<name>`: listed ones, never the proxy itself. */
export function catalogTools(context: FrontendContext): RegisteredTool[] {
  return context
    .catalog()
    .filter((tool) => tool.definition.visibility === 'listed' && tool.name !== USE_CAPABILITY_TOOL_NAME);
}

/** A server's tools as known now: live while connected, else from the schema cache, else none. */
export function serverTools(connection: McpConnection): {
  tools: readonly McpToolSchema[] | undefined;
  source: 'live' | 'cached' | 'none';
} {
  if (connection.status === 'ready' && connection.liveTools)
    return { tools: connection.liveTools, source: 'live' };
  const cached = connection.cachedTools();
  return cached ? { tools: cached, source: 'cached' } : { tools: undefined, source: 'none' };
}

/** Everything this frontend can reach, as search and candidate lists see it. */
export function capabilitySummaries(context: FrontendContext): CapabilitySummary[] {
  const out: CapabilitySummary[] = [];
  for (const tool of catalogTools(context)) {
    out.push({
      id: toolCapabilityId(tool.name),
      kind: 'tool',
      name: tool.name,
      description: tool.definition.modelTool.description,
    });
  }
  for (const connection of context.shared.connections.values()) {
    const name = connection.server.name;
    out.push({ id: serverCapabilityId(name), kind: 'mcp-server', name, description: `MCP server ${name}` });
    if (!connection.server.enabled) continue;
    const { tools, source } = serverTools(connection);
    for (const tool of tools ?? [])
      out.push(mcpToolSummary(name, tool, source === 'live' ? 'live' : 'cached'));
  }
  if (context.resultStore) {
    out.push({
      id: SESSION_TOOL_RESULT_ID,
      kind: 'session',
      name: 'tool_result',
      description: SESSION_TOOL_RESULT_DESCRIPTION,
    });
  }
  return out;
}

// One summary object per tool schema and source, so search can keep its word index per object.
const toolSummaries = new WeakMap<McpToolSchema, Map<string, CapabilitySummary>>();

function mcpToolSummary(server: string, tool: McpToolSchema, source: 'live' | 'cached'): CapabilitySummary {
  let byKey = toolSummaries.get(tool);
  if (!byKey) {
    byKey = new Map();
    toolSummaries.set(tool, byKey);
  }
  const key = `${source}\0${server}`;
  let summary = byKey.get(key);
  if (!summary) {
    summary = {
      id: mcpToolCapabilityId(server, tool.name),
      kind: 'mcp-tool',
      name: tool.name,
      server,
      description: tool.title ? `${tool.title}. ${tool.description}` : tool.description,
      schemaSource: source,
    };
    byKey.set(key, summary);
  }
  return summary;
}
