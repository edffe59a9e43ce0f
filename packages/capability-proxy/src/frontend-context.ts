import {
  type ArgumentValidator,
  type RegisteredTool,
  type ToolAnnotations,
  ToolhostError,
} from '@toolhost/contracts';
import {
  MCP_PROMPT_RULE,
  MCP_READ_RESOURCE_RULE,
  mcpPermissionName,
  mcpPromptCapabilityId,
  mcpResourceCapabilityId,
  mcpToolCapabilityId,
  SESSION_TOOL_RESULT_ID,
  serverCapabilityId,
  toolCapabilityId,
} from './capability-ids.js';
import type { ResolvedMcpServer } from './mcp-config.js';
import type { McpConnection, McpTimeouts } from './mcp-connection.js';
import {
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  type McpServerContent,
  UNKNOWN_CONTENT,
} from './mcp-resources.js';
import type { McpCachedToolListing, McpToolListing, McpToolSchema } from './mcp-tools.js';
import type {
  AuthorizeCapability,
  CapabilityPolicyTarget,
  DispatchTool,
  RefuseCapability,
  RefusesCapability,
} from './proxy-types.js';
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
  readonly refusal: RefuseCapability | undefined;
  /** The yes-or-no form of `refusal` for listings, when the host gives one. */
  readonly refuses: RefusesCapability | undefined;
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
      /**
       * Why the schema is unknown although the server has a cache: the cached list names the tool
       * without a schema (it did not compile), or does not name it (added since, or a wrong name:
       * only the connected server can say).
       */
      readonly cacheMiss?: 'without_schema' | 'not_listed';
    }
  | {
      readonly kind: 'mcp-resource';
      readonly id: string;
      readonly connection: McpConnection;
      /** The URI, or the URI template when the id names a template. */
      readonly uri: string;
      /** The listed resource of this URI, if it is one. */
      readonly resource: McpResource | undefined;
      /** The listed template, when the id names one (a call expands it with `arguments`). */
      readonly template: McpResourceTemplate | undefined;
      /** Where the listing came from; `unknown` when nothing is known of the server's resources. */
      readonly source: SchemaSource;
    }
  | {
      readonly kind: 'mcp-prompt';
      readonly id: string;
      readonly connection: McpConnection;
      readonly prompt: string;
      /** The listed prompt (its arguments), if known. */
      readonly schema: McpPrompt | undefined;
      readonly source: SchemaSource;
    }
  | { readonly kind: 'session'; readonly id: string };

/** The built-ins reachable as `tool:<name>`: listed ones, never the proxy itself. */
export function catalogTools(context: FrontendContext): RegisteredTool[] {
  return context
    .catalog()
    .filter((tool) => tool.definition.visibility === 'listed' && tool.name !== USE_CAPABILITY_TOOL_NAME);
}

/** A server's tools as known now. */
export interface KnownServerTools {
  /** Live while connected, else from the schema cache; undefined when none are known. */
  readonly tools: readonly McpToolSchema[] | undefined;
  readonly source: 'live' | 'cached' | 'none';
  /** Cached tools named without a schema (it did not compile when the cache was written). */
  readonly withoutSchema: readonly McpCachedToolListing[];
  /** When the cached list was saved (ISO 8601), for `source: 'cached'`. */
  readonly savedAt: string | undefined;
}

const NONE: KnownServerTools = Object.freeze({
  tools: undefined,
  source: 'none',
  withoutSchema: Object.freeze([]) as readonly McpCachedToolListing[],
  savedAt: undefined,
});

/** A server's tools as known now: live while connected, else from the schema cache, else none. */
export function serverTools(connection: McpConnection): KnownServerTools {
  if (connection.status === 'ready' && connection.liveTools) {
    return { tools: connection.liveTools, source: 'live', withoutSchema: [], savedAt: undefined };
  }
  const cache = connection.schemaCache();
  if (!cache) return NONE;
  return { tools: cache.tools, source: 'cached', withoutSchema: cache.withoutSchema, savedAt: cache.savedAt };
}

/**
 * A server's tools by name and hints as known now (what `list` counts and asks the policy about):
 * the same tools as {@link serverTools}, without normalising cached entries it does not show.
 */
export function serverToolListing(
  connection: McpConnection,
): Omit<KnownServerTools, 'tools'> & { readonly tools: readonly McpToolListing[] | undefined } {
  if (connection.status === 'ready' && connection.liveTools) {
    return { tools: connection.liveTools, source: 'live', withoutSchema: [], savedAt: undefined };
  }
  const cache = connection.schemaCache();
  if (!cache) return NONE;
  return {
    tools: cache.listing,
    source: 'cached',
    withoutSchema: cache.withoutSchema,
    savedAt: cache.savedAt,
  };
}

/** A server's resources, templates and prompts as known now. */
export interface KnownServerContent {
  readonly content: McpServerContent;
  /** Live while connected (once listed), else from the schema cache; `none` when nothing is known. */
  readonly source: 'live' | 'cached' | 'none';
  /** When the cached lists were saved (ISO 8601), for `source: 'cached'`. */
  readonly savedAt: string | undefined;
}

/** A server's resources, templates and prompts as known now: live once listed, else cached, else none. */
export function serverContent(connection: McpConnection): KnownServerContent {
  if (connection.status === 'ready' && connection.liveContent) {
    return { content: connection.liveContent, source: 'live', savedAt: undefined };
  }
  const cache = connection.schemaCache();
  const content = cache?.content ?? UNKNOWN_CONTENT;
  if (content.resources === undefined && content.templates === undefined && content.prompts === undefined) {
    return { content: UNKNOWN_CONTENT, source: 'none', savedAt: undefined };
  }
  return { content, source: 'cached', savedAt: cache?.savedAt };
}

/** The hints of reading a resource or getting a prompt: a read, by the protocol's definition. */
export const MCP_CONTENT_HINTS: ToolAnnotations = Object.freeze({
  readOnly: true,
  destructive: false,
  idempotent: true,
});

/** The policy target of reading a server's resources (`mcp__<server>__read_resource`). */
export function resourcePolicyTarget(connection: McpConnection): CapabilityPolicyTarget {
  return mcpPolicyTarget(
    connection.server.name,
    MCP_READ_RESOURCE_RULE,
    MCP_CONTENT_HINTS,
    connection.server.trusted,
  );
}

/** The policy target of getting a server's prompts (`mcp__<server>__prompt`). */
export function promptPolicyTarget(connection: McpConnection): CapabilityPolicyTarget {
  return mcpPolicyTarget(
    connection.server.name,
    MCP_PROMPT_RULE,
    MCP_CONTENT_HINTS,
    connection.server.trusted,
  );
}

/** One reachable capability: its summary, and what the session's policy would be asked about it. */
export interface CapabilityEntry {
  readonly summary: CapabilitySummary;
  /** Undefined for servers and `session:tool_result` (never refused by policy alone). */
  readonly target: CapabilityPolicyTarget | undefined;
}

/**
 * Everything this frontend can reach, with the policy target of each tool. `content: false` leaves
 * out resources, templates and prompts (what `list` counts per server without listing them).
 */
export function capabilityEntries(
  context: FrontendContext,
  options: { readonly content?: boolean } = {},
): CapabilityEntry[] {
  const out: CapabilityEntry[] = [];
  for (const tool of catalogTools(context)) {
    out.push({
      summary: {
        id: toolCapabilityId(tool.name),
        kind: 'tool',
        name: tool.name,
        description: tool.definition.modelTool.description,
      },
      target: { kind: 'tool', tool },
    });
  }
  for (const connection of context.shared.connections.values()) {
    const name = connection.server.name;
    out.push({
      summary: { id: serverCapabilityId(name), kind: 'mcp-server', name, description: `MCP server ${name}` },
      target: undefined,
    });
    if (!connection.server.enabled) continue;
    const { tools, source, withoutSchema } = serverTools(connection);
    const trusted = connection.server.trusted;
    for (const tool of tools ?? []) {
      out.push({
        summary: mcpToolSummary(name, tool, source === 'live' ? 'live' : 'cached'),
        target: mcpPolicyTarget(name, tool.name, tool.annotations, trusted),
      });
    }
    for (const tool of withoutSchema) {
      out.push({
        summary: mcpToolSummary(name, tool, 'unknown'),
        target: mcpPolicyTarget(name, tool.name, tool.annotations, trusted),
      });
    }
    if (options.content === false) continue;
    const known = serverContent(connection);
    if (known.source === 'none') continue;
    const contentSource = known.source === 'live' ? 'live' : 'cached';
    const readTarget = resourcePolicyTarget(connection);
    for (const summary of contentSummaries(name, known.content.resources, contentSource)) {
      out.push({ summary, target: readTarget });
    }
    for (const summary of contentSummaries(name, known.content.templates, contentSource)) {
      out.push({ summary, target: readTarget });
    }
    const promptTarget = promptPolicyTarget(connection);
    for (const summary of contentSummaries(name, known.content.prompts, contentSource)) {
      out.push({ summary, target: promptTarget });
    }
  }
  if (context.resultStore) {
    out.push({
      summary: {
        id: SESSION_TOOL_RESULT_ID,
        kind: 'session',
        name: 'tool_result',
        description: SESSION_TOOL_RESULT_DESCRIPTION,
      },
      target: undefined,
    });
  }
  return out;
}

/** Everything this frontend can reach, as search and candidate lists see it. */
export function capabilitySummaries(context: FrontendContext): CapabilitySummary[] {
  return capabilityEntries(context).map((entry) => entry.summary);
}

/** The policy target of an MCP tool. */
export function mcpPolicyTarget(
  server: string,
  tool: string,
  annotations: ToolAnnotations | undefined,
  annotationsTrusted: boolean,
): CapabilityPolicyTarget {
  return {
    kind: 'mcp-tool',
    server,
    tool,
    toolName: mcpPermissionName(server, tool),
    annotations,
    annotationsTrusted,
  };
}

/**
 * What the session refuses about a target whatever anyone answers, or undefined. For a call (`call`
 * given) a host callback that throws refuses (fail closed); for a listing it refuses nothing.
 */
export function policyRefusal(
  context: FrontendContext,
  target: CapabilityPolicyTarget,
  call?: { readonly callId: string },
): ToolhostError | undefined {
  if (!context.refusal) return undefined;
  try {
    return call ? context.refusal(target, { callId: call.callId }) : context.refusal(target);
  } catch (error) {
    if (!call) return undefined;
    const name = target.kind === 'tool' ? target.tool.name : target.toolName;
    return new ToolhostError({
      code: 'PERMISSION_DENIED',
      message: `the permission check for ${name} failed, so it is refused`,
      details: { toolName: name, remoteDispatched: false },
      cause: error,
    });
  }
}

/**
 * Whether the session refuses a target whatever anyone answers, for a listing (nothing recorded, a
 * throwing callback refuses nothing). The refusal's error is only counted, never shown, so its stack
 * is not captured: `list` and `search` ask about every tool of every server, and capturing a stack
 * trace for each refused one cost more than the rest of a cold list.
 */
export function isRefused(context: FrontendContext, target: CapabilityPolicyTarget): boolean {
  if (!context.refusal) return false;
  if (context.refuses) {
    try {
      return context.refuses(target);
    } catch {
      // As below: a throwing callback refuses nothing in a listing (a call still asks `refusal`).
      return false;
    }
  }
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return policyRefusal(context, target) !== undefined;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

// One summary object per tool and source, so search can keep its word index per object.
const toolSummaries = new WeakMap<object, Map<string, CapabilitySummary>>();

function mcpToolSummary(
  server: string,
  tool: McpToolSchema | McpCachedToolListing,
  source: 'live' | 'cached' | 'unknown',
): CapabilitySummary {
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

/** The one-line description of a resource, template or prompt, for search and candidate lists. */
export function contentDescription(item: McpResource | McpResourceTemplate | McpPrompt): string {
  const title = item.title ? `${item.title}. ` : '';
  if ('uriTemplate' in item) {
    const variables = item.variables.map((variable) => variable.name).join(', ');
    return `${title}Resource template "${item.name}"${item.mimeType ? ` (${item.mimeType})` : ''}, variables in \`arguments\`: ${variables || 'none'}. ${item.description}`.trim();
  }
  if ('uri' in item) {
    return `${title}Resource "${item.name}"${item.mimeType ? ` (${item.mimeType})` : ''}. ${item.description}`.trim();
  }
  const args = item.arguments.map((argument) => `${argument.name}${argument.required ? ' (required)' : ''}`);
  return `${title}Prompt "${item.name}", arguments: ${args.join(', ') || 'none'}. ${item.description}`.trim();
}

// The summaries of one listed array (per server and source), made once: search keeps its word
// index per summary object, and one weak key per list (not per entry) keeps the GC's work small.
const listSummaries = new WeakMap<readonly object[], Map<string, readonly CapabilitySummary[]>>();

function contentSummaries(
  server: string,
  items: readonly (McpResource | McpResourceTemplate | McpPrompt)[] | undefined,
  source: 'live' | 'cached',
): readonly CapabilitySummary[] {
  if (!items || items.length === 0) return [];
  let byKey = listSummaries.get(items);
  if (!byKey) {
    byKey = new Map();
    listSummaries.set(items, byKey);
  }
  const key = `${source}\0${server}`;
  let summaries = byKey.get(key);
  if (!summaries) {
    summaries = items.map((item) => contentSummary(server, item, source));
    byKey.set(key, summaries);
  }
  return summaries;
}

function contentSummary(
  server: string,
  item: McpResource | McpResourceTemplate | McpPrompt,
  source: 'live' | 'cached',
): CapabilitySummary {
  const isPrompt = !('uri' in item) && !('uriTemplate' in item);
  return {
    id: isPrompt
      ? mcpPromptCapabilityId(server, item.name)
      : mcpResourceCapabilityId(server, 'uriTemplate' in item ? item.uriTemplate : (item as McpResource).uri),
    kind: isPrompt ? 'mcp-prompt' : 'mcp-resource',
    name: item.name,
    server,
    description: contentDescription(item),
    schemaSource: source,
  };
}
