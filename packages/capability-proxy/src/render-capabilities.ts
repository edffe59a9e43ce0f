import { type JsonObject, type ToolAnnotations, type ToolResult, textResult } from '@toolhost/contracts';
import {
  mcpToolCapabilityId,
  SESSION_TOOL_RESULT_ID,
  serverCapabilityId,
  toolCapabilityId,
} from './capability-ids.js';
import { exampleFromSchema } from './example-from-schema.js';
import {
  capabilitySummaries,
  catalogTools,
  type FrontendContext,
  type ResolvedCapability,
  serverTools,
} from './frontend-context.js';
import type { McpToolSchema } from './mcp-tools.js';
import type { CapabilityInventory, McpServerInventory } from './proxy-types.js';
import { searchCapabilities } from './search-capabilities.js';
import { bounded, firstLine } from './text-bounds.js';

/** The exact `use_capability` call of an id with arguments, as the model should write it. */
export function callRecipe(id: string, args: JsonObject): string {
  return `use_capability(action="call", capability_id="${id}", arguments=${JSON.stringify(args)})`;
}

/** The four hints in words (`read-only, not destructive, ...`); unknown ones are left out. */
export function hintText(annotations: ToolAnnotations): string {
  const parts: string[] = [];
  if (annotations.readOnly !== undefined) parts.push(annotations.readOnly ? 'read-only' : 'may write');
  if (annotations.destructive !== undefined)
    parts.push(annotations.destructive ? 'destructive' : 'not destructive');
  if (annotations.idempotent !== undefined)
    parts.push(annotations.idempotent ? 'idempotent' : 'not idempotent');
  if (annotations.openWorld !== undefined) parts.push(annotations.openWorld ? 'open world' : 'closed world');
  return parts.join(', ');
}

/** What `list` reports, as data. Never starts anything. */
export function inventoryOf(context: FrontendContext): CapabilityInventory {
  const servers: McpServerInventory[] = [];
  for (const connection of context.shared.connections.values()) {
    const { tools, source } = connection.server.enabled
      ? serverTools(connection)
      : { tools: undefined, source: 'none' as const };
    servers.push({
      name: connection.server.name,
      capabilityId: serverCapabilityId(connection.server.name),
      status: connection.status,
      transport: connection.server.transport,
      trusted: connection.server.trusted,
      authorized: context.authorized.get(connection.server.name),
      connected: connection.status === 'ready',
      toolCount: tools?.length,
      toolSource: source,
      lastError: connection.status === 'failed' ? connection.lastError : undefined,
    });
  }
  return {
    servers,
    tools: catalogTools(context).map((tool) => ({
      capabilityId: toolCapabilityId(tool.name),
      name: tool.name,
      description: firstLine(tool.definition.modelTool.description),
    })),
    sessionToolResult: context.resultStore !== undefined,
  };
}

/** The text of `list`: servers with their state, built-in tools, the paging capability. */
export function listText(context: FrontendContext): string {
  const data = inventoryOf(context);
  const lines: string[] = [];
  lines.push(`MCP servers (${data.servers.length}):`);
  if (data.servers.length === 0) lines.push('- none configured');
  for (const server of data.servers) {
    let line = `- ${server.capabilityId}: ${server.status}`;
    if (server.status !== 'disabled') {
      line += server.connected ? ', connected' : ', not connected';
      if (server.authorized !== undefined)
        line += server.authorized ? ', connect allowed' : ', connect denied';
      if (server.toolSource === 'live') line += `; ${server.toolCount} tools (live)`;
      else if (server.toolSource === 'cached')
        line += `; ${server.toolCount} tools (cached schema; server not started)`;
      else line += '; tools unknown until it connects (call this id to connect)';
      if (server.status === 'failed' && server.lastError)
        line += `; last failure: ${server.lastError}; the next call retries`;
      if (server.trusted) line += '; trusted';
    } else {
      line += ' (cannot be started)';
    }
    lines.push(line);
  }
  lines.push(`Built-in tools (${data.tools.length}):`);
  if (data.tools.length === 0) lines.push('- none beyond your direct tools');
  for (const tool of data.tools) lines.push(`- ${tool.capabilityId}: ${bounded(tool.description, 160)}`);
  if (data.sessionToolResult) {
    lines.push('Session:');
    lines.push(`- ${SESSION_TOOL_RESULT_ID}: pages the full text of a truncated tool result`);
  }
  lines.push(
    'Next: use_capability(action="search", query="<words>") to find MCP tools, action="inspect" for one id\'s schema, then action="call" with its parameters in `arguments`.',
  );
  return lines.join('\n');
}

/** The result of `search`: the ten best matches with one line each. */
export function searchResult(context: FrontendContext, query: string): ToolResult {
  const hits = searchCapabilities(capabilitySummaries(context), query, 10);
  if (hits.length === 0) {
    return textResult(
      'No capability matches these words. Try other words, or use_capability(action="list") for the inventory.',
      { action: 'search', hits: 0 },
    );
  }
  const lines = ['Best matches:'];
  for (const { entry } of hits) {
    const note = entry.schemaSource === 'cached' ? ' (cached schema; server not started)' : '';
    lines.push(`- ${entry.id}: ${bounded(firstLine(entry.description), 160)}${note}`);
  }
  lines.push(
    'Next: use_capability(action="inspect", capability_id="<id>") for the schema, then action="call".',
  );
  return textResult(lines.join('\n'), { action: 'search', hits: hits.map((hit) => hit.entry.id) });
}

/** One MCP tool's block in `inspect`: description, hints, canonical schema with fingerprint, an example call. */
function mcpToolBlock(server: string, tool: McpToolSchema, trusted: boolean): string {
  const hints = hintText(tool.annotations);
  const lines = [`${mcpToolCapabilityId(server, tool.name)}${tool.title ? ` (${tool.title})` : ''}`];
  if (tool.description) lines.push(tool.description);
  if (tool.unusable !== undefined) {
    lines.push(`Unusable: ${tool.unusable}; calling it is refused (the server's other tools work).`);
    return lines.join('\n');
  }
  if (hints) lines.push(`Hints${trusted ? '' : ' (claimed by the server, untrusted)'}: ${hints}`);
  lines.push(`Schema (fingerprint ${tool.schemaFingerprint}): ${JSON.stringify(tool.inputSchema)}`);
  lines.push(
    `Example: ${callRecipe(mcpToolCapabilityId(server, tool.name), exampleFromSchema(tool.inputSchema))}`,
  );
  return lines.join('\n');
}

/** The schema and a well-formed call of an MCP tool, handed back with an argument-validation failure. */
export function schemaHelp(id: string, schema: McpToolSchema): ToolResult['output'] {
  return {
    content: [
      {
        type: 'text',
        text: `Schema of ${id} (fingerprint ${schema.schemaFingerprint}): ${JSON.stringify(schema.inputSchema)}\nA well-formed call: ${callRecipe(id, exampleFromSchema(schema.inputSchema))}`,
      },
    ],
    untrusted: true,
    details: { capabilityId: id, schemaFingerprint: schema.schemaFingerprint },
  };
}

/**
 * `inspect` of a resolved built-in or MCP target: description, hints, schema and an example; for a
 * server not started, its cached tools or the hint to connect it. Never starts anything.
 * (`session:tool_result` is inspected by the paging module.)
 */
export function inspectCapability(resolved: Exclude<ResolvedCapability, { kind: 'session' }>): ToolResult {
  switch (resolved.kind) {
    case 'tool': {
      const { tool } = resolved;
      const hints = hintText(tool.definition.annotations);
      return textResult(
        [
          `${resolved.id}: built-in tool "${tool.name}"`,
          tool.definition.modelTool.description.trim(),
          ...(hints ? [`Hints: ${hints}`] : []),
          `Schema (fingerprint ${tool.schemaFingerprint}): ${tool.canonicalSchemaJson}`,
          `Example: ${callRecipe(resolved.id, exampleFromSchema(tool.canonicalSchema))}`,
        ].join('\n'),
        { action: 'inspect', capabilityId: resolved.id },
      );
    }
    case 'mcp-server': {
      const { connection } = resolved;
      const name = connection.server.name;
      if (!connection.server.enabled) {
        return textResult(`${resolved.id}: disabled in the configuration; its tools cannot be called.`, {
          action: 'inspect',
          capabilityId: resolved.id,
          status: 'disabled',
        });
      }
      const { tools, source } = serverTools(connection);
      if (!tools) {
        return textResult(
          `${resolved.id}: not started, and no cached schema exists. Call use_capability(action="call", capability_id="${resolved.id}") to connect it (after permission) and list its tools.`,
          { action: 'inspect', capabilityId: resolved.id, toolSource: 'none' },
        );
      }
      const banner =
        source === 'live'
          ? `Tools of ${resolved.id} (live; connected):`
          : `Tools (from cached schema; server not started) of ${resolved.id}:`;
      const blocks = tools.map((tool) => mcpToolBlock(name, tool, connection.server.trusted));
      return {
        ok: true,
        output: {
          content: [{ type: 'text', text: [banner, ...blocks].join('\n\n') }],
          untrusted: true,
          details: { action: 'inspect', capabilityId: resolved.id, toolSource: source, tools: tools.length },
        },
      };
    }
    case 'mcp-tool': {
      const { connection, schema } = resolved;
      if (!schema) {
        return textResult(
          `${resolved.id}: its server is not started and has no cached schema, so its arguments are unknown. Call use_capability(action="call", capability_id="${serverCapabilityId(connection.server.name)}") to connect the server and see its tools.`,
          { action: 'inspect', capabilityId: resolved.id, toolSource: 'none' },
        );
      }
      const banner =
        resolved.schemaSource === 'live' ? '(live; connected)' : '(from cached schema; server not started)';
      return {
        ok: true,
        output: {
          content: [
            {
              type: 'text',
              text: `${banner}\n${mcpToolBlock(connection.server.name, schema, connection.server.trusted)}`,
            },
          ],
          untrusted: true,
          details: { action: 'inspect', capabilityId: resolved.id, toolSource: resolved.schemaSource },
        },
      };
    }
  }
}
