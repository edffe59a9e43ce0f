import { ToolhostError } from '@toolhost/contracts';
import type { CapabilityAction, UseCapabilityArguments } from './capability-arguments.js';
import {
  mcpPermissionName,
  mcpPromptCapabilityId,
  mcpResourceCapabilityId,
  mcpToolCapabilityId,
  parseCapabilityId,
  SESSION_TOOL_RESULT_ID,
  serverCapabilityId,
  toolCapabilityId,
} from './capability-ids.js';
import {
  capabilitySummaries,
  catalogTools,
  type FrontendContext,
  type ResolvedCapability,
  serverContent,
  serverTools,
} from './frontend-context.js';
import type { McpConnection } from './mcp-connection.js';
import type { McpToolSchema } from './mcp-tools.js';
import { type CapabilitySummary, closeCandidates, searchCapabilities } from './search-capabilities.js';
import { cutBytes } from './text-bounds.js';

const MAX_RESOLUTION_ERROR_BYTES = 4096;

/** A resolution: the target, or the error the model sees (nothing started either way). */
export type Resolution =
  | { readonly ok: true; readonly value: ResolvedCapability }
  | { readonly ok: false; readonly error: ToolhostError };

/** What a `CAPABILITY_RESOLUTION_FAILED` says. */
export interface ResolutionFailure {
  readonly reason: string;
  readonly message: string;
  readonly candidates?: readonly string[];
  /** The exact retry, when exactly one candidate fits. */
  readonly retry?: { readonly action: CapabilityAction; readonly capabilityId: string };
  /** The envelope fields the retry must carry again (`arguments`, `reason`). */
  readonly keep?: readonly string[];
}

/**
 * A `CAPABILITY_RESOLUTION_FAILED` error: the reason, the candidates (as many as fit in 4 KiB with
 * the recovery) and, when exactly one fits, the exact retry payload.
 */
export function resolutionFailed(input: ResolutionFailure): ToolhostError {
  const candidates = input.candidates ?? [];
  const retryPayload = input.retry
    ? JSON.stringify({ action: input.retry.action, capability_id: input.retry.capabilityId })
    : undefined;
  const build = (shown: readonly string[]): string => {
    let text = `capability resolution failed (code=${input.reason}; remote_dispatched=false): ${input.message}`;
    if (shown.length > 0) {
      text += `; candidates=${shown.join(', ')}`;
      if (shown.length < candidates.length) text += `, ... (${candidates.length - shown.length} more)`;
    }
    if (retryPayload) {
      text += `; retry exactly once with ${retryPayload}`;
      if (input.keep && input.keep.length > 0) text += ` plus the same ${input.keep.join(' and ')} you sent`;
    }
    return text;
  };
  const recovery = retryPayload
    ? null
    : candidates.length > 0
      ? 'retry with one of the listed candidates'
      : 'find the right id with use_capability(action="search", query="<words>") or action="list"';
  let shown = [...candidates];
  let message = build(shown);
  const size = (text: string) =>
    Buffer.byteLength(`CAPABILITY_RESOLUTION_FAILED: ${text}${recovery ? `; ${recovery}` : ''}`);
  while (shown.length > 0 && size(message) > MAX_RESOLUTION_ERROR_BYTES) {
    shown = shown.slice(0, -1);
    message = build(shown);
  }
  if (size(message) > MAX_RESOLUTION_ERROR_BYTES)
    message = cutBytes(message, MAX_RESOLUTION_ERROR_BYTES - 200);
  return new ToolhostError({
    code: 'CAPABILITY_RESOLUTION_FAILED',
    message,
    recovery,
    signature: `capability_resolution:${input.reason}`,
    details: {
      reason: input.reason,
      candidates: shown,
      remoteDispatched: false,
      ...(input.retry
        ? { retry: { action: input.retry.action, capability_id: input.retry.capabilityId } }
        : {}),
    },
  });
}

/** A `CAPABILITY_UNAVAILABLE` error (nothing started). */
export function unavailable(message: string, details: Record<string, unknown> = {}): ToolhostError {
  return new ToolhostError({
    code: 'CAPABILITY_UNAVAILABLE',
    message: `capability unavailable: ${message}`,
    details: { ...details, remoteDispatched: false },
    signature: 'capability_unavailable',
  });
}

/** A listed MCP tool the proxy will not call (its schema is not usable): nothing starts, nothing is sent. */
export function unusableTool(id: string, tool: McpToolSchema): ToolhostError {
  return unavailable(`${id} cannot be used: ${tool.unusable}`, { reason: 'tool_unusable', capabilityId: id });
}

/**
 * A name that did not resolve, with the close names of `pool` as candidates: one clear winner gets
 * the exact retry, several equally close ones make it `ambiguous_capability_reference`.
 */
export function unknownReference(
  context: FrontendContext,
  input: {
    readonly wanted: string;
    readonly action: CapabilityAction;
    readonly message: string;
    readonly pool?: readonly CapabilitySummary[];
    readonly keep?: readonly string[];
  },
): ToolhostError {
  const hits = closeCandidates(input.pool ?? capabilitySummaries(context), input.wanted);
  const top = hits[0];
  const unique =
    top !== undefined &&
    (hits.length === 1 || (top.score >= 90 && hits.filter((hit) => hit.score >= top.score).length === 1));
  const ambiguous = top !== undefined && top.score >= 90 && !unique;
  return resolutionFailed({
    reason: ambiguous ? 'ambiguous_capability_reference' : 'unknown_capability_reference',
    message: ambiguous ? `${input.message}; several capabilities have that name` : input.message,
    candidates: hits.map((hit) => hit.entry.id),
    ...(unique
      ? { retry: { action: input.action, capabilityId: top.entry.id }, keep: input.keep ?? [] }
      : {}),
  });
}

/** The envelope fields a retry must carry again. */
export function keptFields(args: UseCapabilityArguments): string[] {
  const keep: string[] = [];
  if (args.arguments !== undefined) keep.push('`arguments`');
  if (args.reason !== undefined) keep.push('`reason`');
  return keep;
}

/**
 * Resolves a capability id against this frontend's inventory, without starting anything:
 * `tool:<name>` against the catalog, `mcp-server:` and `mcp-tool:` against the configured servers
 * and their live or cached tools, `session:tool_result` always; a permission-rule name
 * (`mcp__s__t`) is never executed but answered with the exact id.
 */
export function resolveCapability(
  context: FrontendContext,
  id: string,
  args: UseCapabilityArguments,
): Resolution {
  const action = args.action;
  const keep = keptFields(args);
  const parsed = parseCapabilityId(id);
  switch (parsed.kind) {
    case 'session':
      return { ok: true, value: { kind: 'session', id: SESSION_TOOL_RESULT_ID } };
    case 'tool': {
      const tool = catalogTools(context).find((candidate) => candidate.name === parsed.name);
      if (tool) return { ok: true, value: { kind: 'tool', id: toolCapabilityId(tool.name), tool } };
      return {
        ok: false,
        error: unknownReference(context, {
          wanted: parsed.name,
          action,
          message:
            'no built-in tool with this name is reachable through use_capability (a tool offered to you directly is called directly)',
          keep,
        }),
      };
    }
    case 'mcp-server': {
      const connection = context.shared.connections.get(parsed.server);
      if (connection)
        return { ok: true, value: { kind: 'mcp-server', id: serverCapabilityId(parsed.server), connection } };
      return { ok: false, error: unconfigured(context, parsed.server) };
    }
    case 'mcp-tool':
    case 'mcp-permission-name': {
      const split = splitServerTool(context, parsed.rest, parsed.kind);
      if (!split) {
        if (parsed.kind === 'mcp-tool' && parsed.rest.includes('/')) {
          const slash = parsed.rest.indexOf('/');
          return {
            ok: false,
            error: unknownServer(context, {
              server: parsed.rest.slice(0, slash),
              tool: parsed.rest.slice(slash + 1),
              action,
              keep,
            }),
          };
        }
        const leaf = parsed.rest.split(/\/|__/).pop() ?? parsed.rest;
        return {
          ok: false,
          error: unknownReference(context, {
            wanted: leaf,
            action,
            message: 'no configured MCP server matches this id (expected mcp-tool:<server>/<tool>)',
            keep,
          }),
        };
      }
      const { connection, tool } = split;
      const canonical = mcpToolCapabilityId(connection.server.name, tool);
      if (parsed.kind === 'mcp-permission-name') {
        // A permission-rule name is never executed as an id; hand back the exact id to use.
        return {
          ok: false,
          error: resolutionFailed({
            reason: 'unknown_capability_reference',
            message: 'mcp__<server>__<tool> is a permission-rule name, not a capability id',
            candidates: [canonical],
            retry: { action, capabilityId: canonical },
            keep,
          }),
        };
      }
      const { tools, source, withoutSchema, savedAt } = serverTools(connection);
      const schema = tools?.find((candidate) => candidate.name === tool);
      if (schema) {
        return {
          ok: true,
          value: {
            kind: 'mcp-tool',
            id: canonical,
            connection,
            tool,
            schema,
            schemaSource: source === 'live' ? 'live' : 'cached',
          },
        };
      }
      const listedWithoutSchema = withoutSchema.some((listed) => listed.name === tool);
      if (source === 'live' || (source === 'cached' && !listedWithoutSchema && action !== 'call')) {
        // A connected server is the authority; a cache is consulted for inspect and decline, which
        // never connect (a call does: see below). Prefer close names on the same server, then any.
        const mcpTools = capabilitySummaries(context).filter((entry) => entry.kind === 'mcp-tool');
        const sameServer = mcpTools.filter((entry) => entry.server === connection.server.name);
        const pool = closeCandidates(sameServer, tool).length > 0 ? sameServer : mcpTools;
        const name = `MCP server "${connection.server.name}"`;
        return {
          ok: false,
          error: unknownReference(context, {
            wanted: tool,
            action,
            message:
              source === 'live'
                ? `${name} offers no tool with this name`
                : `according to its cached tool list (saved ${savedAt ?? 'at an unknown time'}, possibly stale; action "call" connects the server and checks the live list) ${name} offers no tool with this name`,
            pool,
            keep,
          }),
        };
      }
      // The schema cache is a hint, never a gate: a call of a tool it lacks (its schema did not compile,
      // or the server added it since) resolves to a lazy target that connects; the live list decides.
      return {
        ok: true,
        value: {
          kind: 'mcp-tool',
          id: canonical,
          connection,
          tool,
          schema: undefined,
          schemaSource: 'unknown',
          ...(source === 'cached'
            ? {
                cacheMiss: listedWithoutSchema ? ('without_schema' as const) : ('not_listed' as const),
              }
            : {}),
        },
      };
    }
    case 'mcp-resource':
      return resolveResource(context, parsed.rest, action, keep);
    case 'mcp-prompt':
      return resolvePrompt(context, parsed.rest, action, keep);
    case 'bare':
      return {
        ok: false,
        error: unknownReference(context, {
          wanted: parsed.text.replace(/^[a-z-]+:/, ''),
          action,
          message:
            'a capability id starts with tool:, mcp-server:, mcp-tool:, mcp-resource:, mcp-prompt: or session:',
          keep,
        }),
      };
  }
}

/** The configured server a `<server>/<rest>` names (the longest name that fits) and the rest. */
function splitServer(
  context: FrontendContext,
  rest: string,
): { connection: McpConnection; name: string } | undefined {
  let best: McpConnection | undefined;
  for (const connection of context.shared.connections.values()) {
    const prefix = `${connection.server.name}/`;
    if (rest.startsWith(prefix) && rest.length > prefix.length) {
      if (!best || connection.server.name.length > best.server.name.length) best = connection;
    }
  }
  return best ? { connection: best, name: rest.slice(best.server.name.length + 1) } : undefined;
}

/** Close names among this frontend's resources (or prompts), for an id that did not resolve. */
function contentPool(context: FrontendContext, kind: 'mcp-resource' | 'mcp-prompt', server?: string) {
  const all = capabilitySummaries(context).filter((entry) => entry.kind === kind);
  const same = server === undefined ? [] : all.filter((entry) => entry.server === server);
  return same.length > 0 ? same : all;
}

/** A resource or prompt id whose server part names no configured MCP server: candidates of that kind. */
function unknownContentServer(
  context: FrontendContext,
  input: {
    readonly rest: string;
    readonly action: CapabilityAction;
    readonly keep: readonly string[];
    readonly kind: 'mcp-resource' | 'mcp-prompt';
    readonly shape: string;
  },
): Resolution {
  const { rest, action, keep, kind, shape } = input;
  return {
    ok: false,
    error: unknownReference(context, {
      wanted: rest.slice(rest.indexOf('/') + 1) || rest,
      action,
      message: `no configured MCP server matches this id (expected ${kind}:<server>/${shape})`,
      pool: contentPool(context, kind),
      keep,
    }),
  };
}

/**
 * `mcp-resource:<server>/<uri>`: a listed resource, a listed template (named by its URI template),
 * or any other URI. Known lists are a hint, never a gate for a call: a URI they lack is read (the
 * server decides; templates make most resources unlisted); `inspect` of one says what is known.
 */
function resolveResource(
  context: FrontendContext,
  rest: string,
  action: CapabilityAction,
  keep: readonly string[],
): Resolution {
  const split = splitServer(context, rest);
  if (!split)
    return unknownContentServer(context, { rest, action, keep, kind: 'mcp-resource', shape: '<uri>' });
  const { connection, name: uri } = split;
  const id = mcpResourceCapabilityId(connection.server.name, uri);
  const known = serverContent(connection);
  const source = known.source === 'none' ? 'unknown' : known.source;
  const template = known.content.templates?.find((candidate) => candidate.uriTemplate === uri);
  const resource = template ? undefined : known.content.resources?.find((candidate) => candidate.uri === uri);
  if (
    !template &&
    !resource &&
    /\{[^{}]*\}/.test(uri) &&
    known.content.templates !== undefined &&
    (known.source === 'live' || action !== 'call')
  ) {
    // Braces name a template; one the server does not list is a wrong id, not a URI to send.
    return {
      ok: false,
      error: unknownReference(context, {
        wanted: uri,
        action,
        message: `MCP server "${connection.server.name}" lists no resource template with this URI template${known.source === 'cached' ? ' (according to its cached list, possibly stale)' : ''}`,
        pool: contentPool(context, 'mcp-resource', connection.server.name),
        keep,
      }),
    };
  }
  return {
    ok: true,
    value: { kind: 'mcp-resource', id, connection, uri, resource, template, source },
  };
}

/** `mcp-prompt:<server>/<name>`: a listed prompt, or (for a call, when the list may be stale or is unknown) any name. */
function resolvePrompt(
  context: FrontendContext,
  rest: string,
  action: CapabilityAction,
  keep: readonly string[],
): Resolution {
  const split = splitServer(context, rest);
  if (!split)
    return unknownContentServer(context, { rest, action, keep, kind: 'mcp-prompt', shape: '<prompt>' });
  const { connection, name } = split;
  const id = mcpPromptCapabilityId(connection.server.name, name);
  const known = serverContent(connection);
  const schema = known.content.prompts?.find((prompt) => prompt.name === name);
  const source = known.source === 'none' ? 'unknown' : known.source;
  if (!schema && known.content.prompts !== undefined && (known.source === 'live' || action !== 'call')) {
    return {
      ok: false,
      error: unknownReference(context, {
        wanted: name,
        action,
        message:
          known.source === 'live'
            ? `MCP server "${connection.server.name}" offers no prompt with this name`
            : `according to its cached prompt list (possibly stale; action "call" connects the server and checks the live list) MCP server "${connection.server.name}" offers no prompt with this name`,
        pool: contentPool(context, 'mcp-prompt', connection.server.name),
        keep,
      }),
    };
  }
  return { ok: true, value: { kind: 'mcp-prompt', id, connection, prompt: name, schema, source } };
}

/** `mcp-server:<name>` naming a server that is not configured: unavailable, with close names as hints. */
function unconfigured(context: FrontendContext, server: string): ToolhostError {
  const close = closeCandidates(
    capabilitySummaries(context).filter((entry) => entry.kind === 'mcp-server'),
    server,
  ).map((hit) => hit.entry.id);
  return unavailable(
    `no MCP server with this name is configured${close.length > 0 ? `; configured servers with close names: ${close.join(', ')}` : ''}`,
    { reason: 'unconfigured', candidates: close },
  );
}

/**
 * `mcp-tool:<server>/<tool>` naming a server that is not configured: a resolution failure (the
 * model guessed an id), with the same or close tool names on configured servers and close server
 * names as candidates, and the exact retry when one tool of that name stands out.
 */
function unknownServer(
  context: FrontendContext,
  input: {
    readonly server: string;
    readonly tool: string;
    readonly action: CapabilityAction;
    readonly keep: readonly string[];
  },
): ToolhostError {
  const summaries = capabilitySummaries(context);
  const tools = closeCandidates(
    summaries.filter((entry) => entry.kind === 'mcp-tool'),
    input.tool,
  );
  const servers = closeCandidates(
    summaries.filter((entry) => entry.kind === 'mcp-server'),
    input.server,
  );
  const top = tools[0];
  const unique =
    top !== undefined && top.score >= 90 && tools.filter((hit) => hit.score >= top.score).length === 1;
  const candidates = [...new Set([...tools, ...servers].map((hit) => hit.entry.id))];
  return resolutionFailed({
    reason: 'unknown_mcp_server',
    message: `no configured MCP server has this name (${context.shared.servers.length} configured)`,
    candidates,
    ...(unique ? { retry: { action: input.action, capabilityId: top.entry.id }, keep: input.keep } : {}),
  });
}

function splitServerTool(
  context: FrontendContext,
  rest: string,
  kind: 'mcp-tool' | 'mcp-permission-name',
): { connection: McpConnection; tool: string } | undefined {
  const { connections } = context.shared;
  const separator = kind === 'mcp-tool' ? '/' : '__';
  // Try every split point, longest server name first, so server names containing the separator still work.
  let index = rest.lastIndexOf(separator);
  while (index > 0) {
    const server = rest.slice(0, index);
    const tool = rest.slice(index + separator.length);
    const connection =
      kind === 'mcp-tool'
        ? connections.get(server)
        : [...connections.values()].find(
            (candidate) => mcpPermissionName(candidate.server.name) === `mcp_connect__${server}`,
          );
    if (connection && tool) {
      if (kind === 'mcp-tool') return { connection, tool };
      const { tools } = serverTools(connection);
      const match = tools?.find(
        (candidate) => mcpPermissionName(connection.server.name, candidate.name) === `mcp__${rest}`,
      );
      return { connection, tool: match?.name ?? tool };
    }
    index = rest.lastIndexOf(separator, index - 1);
  }
  return undefined;
}

/** `inspect`/`call`/`decline` without `capability_id`: the query's best match as the exact retry, if one stands out. */
export function missingCapabilityId(context: FrontendContext, args: UseCapabilityArguments): ToolhostError {
  const query = typeof args.query === 'string' ? args.query : '';
  if (!query.trim()) {
    return resolutionFailed({
      reason: 'missing_capability_id',
      message: `action "${args.action}" needs capability_id`,
    });
  }
  const hits = searchCapabilities(capabilitySummaries(context), query, 8);
  if (hits.length === 0) {
    return resolutionFailed({
      reason: 'unknown_capability_query',
      message: `action "${args.action}" needs capability_id, and no capability matches the query`,
    });
  }
  const [first, second] = hits;
  const unique =
    hits.length === 1 || (first !== undefined && second !== undefined && first.score >= second.score * 2);
  return resolutionFailed({
    reason: unique ? 'missing_capability_id' : 'ambiguous_capability_query',
    message: `action "${args.action}" needs capability_id`,
    candidates: hits.map((hit) => hit.entry.id),
    ...(unique && first
      ? { retry: { action: args.action, capabilityId: first.entry.id }, keep: keptFields(args) }
      : {}),
  });
}
