import {
  boundedText,
  type JsonObject,
  type ToolAnnotations,
  type ToolResult,
  textResult,
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
import { exampleFromSchema } from './example-from-schema.js';
import {
  type CapabilityEntry,
  capabilityEntries,
  catalogTools,
  type FrontendContext,
  isRefused,
  mcpPolicyTarget,
  policyRefusal,
  promptPolicyTarget,
  type ResolvedCapability,
  resourcePolicyTarget,
  serverContent,
  serverToolListing,
  serverTools,
} from './frontend-context.js';
import type { McpConnection } from './mcp-connection.js';
import type { McpToolSchema } from './mcp-tools.js';
import type { CapabilityInventory, CapabilityPolicyTarget, McpServerInventory } from './proxy-types.js';
import { searchCapabilities } from './search-capabilities.js';
import { trimmedFirstLine } from './text-bounds.js';

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

/** When a cached list was saved, for the model: `2025-06-01 12:30 UTC`. */
function savedAtText(savedAt: string | undefined): string {
  return savedAt && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(savedAt)
    ? `${savedAt.slice(0, 16).replace('T', ' ')} UTC`
    : 'at an unknown time';
}

/** What the session refuses among the known tools of each server, by server name. */
/**
 * How many of a server's tools the session refuses whatever anyone answers. Only the count is shown,
 * so no capability summary is built (a cold `list` of 50 cached servers asks about 600 tools).
 */
function refusedToolCount(
  context: FrontendContext,
  server: string,
  trusted: boolean,
  tools: readonly { readonly name: string; readonly annotations: ToolAnnotations }[],
): number {
  let count = 0;
  for (const tool of tools)
    if (isRefused(context, mcpPolicyTarget(server, tool.name, tool.annotations, trusted))) count++;
  return count;
}

/** What `list` reports, as data. Never starts anything. */
export function inventoryOf(context: FrontendContext): CapabilityInventory {
  // Tools only: resources and prompts are counted per server, and their refusal is one rule each.
  const servers: McpServerInventory[] = [];
  for (const connection of context.shared.connections.values()) {
    const { tools, source, withoutSchema, savedAt } = connection.server.enabled
      ? serverToolListing(connection)
      : { tools: undefined, source: 'none' as const, withoutSchema: [], savedAt: undefined };
    const known = connection.server.enabled ? serverContent(connection) : undefined;
    const { name, trusted } = connection.server;
    const refusedTools =
      tools === undefined
        ? 0
        : refusedToolCount(context, name, trusted, tools) +
          refusedToolCount(context, name, trusted, withoutSchema);
    servers.push({
      name: connection.server.name,
      capabilityId: serverCapabilityId(connection.server.name),
      status: connection.status,
      transport: connection.server.transport,
      trusted: connection.server.trusted,
      authorized: context.authorized.get(connection.server.name),
      connected: connection.status === 'ready',
      toolCount: tools === undefined ? undefined : tools.length + withoutSchema.length,
      toolSource: source,
      cachedAt: source === 'cached' ? savedAt : undefined,
      refusedTools,
      resourceCount: known?.content.resources?.length,
      resourceTemplateCount: known?.content.templates?.length,
      promptCount: known?.content.prompts?.length,
      contentSource: known?.source ?? 'none',
      lastError: connection.status === 'failed' ? connection.lastError : undefined,
    });
  }
  const tools: CapabilityInventory['tools'][number][] = [];
  const refusedTools: string[] = [];
  for (const tool of catalogTools(context)) {
    const capabilityId = toolCapabilityId(tool.name);
    if (isRefused(context, { kind: 'tool', tool })) refusedTools.push(capabilityId);
    else
      tools.push({
        capabilityId,
        name: tool.name,
        description: trimmedFirstLine(tool.definition.modelTool.description),
      });
  }
  return { servers, tools, refusedTools, sessionToolResult: context.resultStore !== undefined };
}

/** "N capabilities are left out: ..." for what the session refuses, with the first reason as the example. */
function refusedNote(what: string, ids: readonly string[], example: string): string {
  return `Left out: ${ids.length} ${what} that this session refuses whatever anyone answers (for example ${ids[0]}: ${example}); a session with a wider policy can use them.`;
}

function firstRefusalText(context: FrontendContext, entries: readonly CapabilityEntry[], id: string): string {
  const target = entries.find((entry) => entry.summary.id === id)?.target;
  const refusal = target ? policyRefusal(context, target) : undefined;
  return refusal ? boundedText(refusal.message, 200) : 'refused';
}

function builtInRefusalText(context: FrontendContext, id: string): string {
  const tool = catalogTools(context).find((candidate) => toolCapabilityId(candidate.name) === id);
  const refusal = tool ? policyRefusal(context, { kind: 'tool', tool }) : undefined;
  return refusal ? boundedText(refusal.message, 200) : 'refused';
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
        line += `; ${server.toolCount} tools (cached schema; server not started), saved ${savedAtText(server.cachedAt)} and possibly stale: a tool missing from it is still found by calling it`;
      else line += '; tools unknown until it connects (call this id to connect)';
      if (server.refusedTools > 0) line += `; ${server.refusedTools} of them refused in this session`;
      line += contentCounts(server);
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
  for (const tool of data.tools) lines.push(`- ${tool.capabilityId}: ${boundedText(tool.description, 160)}`);
  if (data.refusedTools.length > 0) {
    const first = data.refusedTools[0] as string;
    lines.push(refusedNote('built-in tools', data.refusedTools, builtInRefusalText(context, first)));
  }
  if (data.sessionToolResult) {
    lines.push('Session:');
    lines.push(`- ${SESSION_TOOL_RESULT_ID}: pages the full text of a truncated tool result`);
  }
  lines.push(
    'Next: use_capability(action="search", query="<words>") to find MCP tools, resources (mcp-resource:) and prompts (mcp-prompt:), action="inspect" for one id\'s schema, then action="call" with its parameters in `arguments`.',
  );
  return lines.join('\n');
}

/** `; 7 resources, 2 resource templates, 4 prompts (cached)` for a server's list line. */
function contentCounts(server: McpServerInventory): string {
  if (server.contentSource === undefined || server.contentSource === 'none') {
    return server.toolSource === 'none' ? '' : '; resources and prompts unknown until it connects';
  }
  const parts: string[] = [];
  const count = (value: number | undefined, what: string) =>
    parts.push(value === undefined ? `${what}s unknown` : `${value} ${what}${value === 1 ? '' : 's'}`);
  count(server.resourceCount, 'resource');
  count(server.resourceTemplateCount, 'resource template');
  count(server.promptCount, 'prompt');
  return `; ${parts.join(', ')} (${server.contentSource === 'live' ? 'live' : 'cached'})`;
}

/** What `search` cannot see: servers whose tools are unknown, and lists that come from a cache. */
function inventoryNotes(context: FrontendContext): string[] {
  const unknown: string[] = [];
  const cached: string[] = [];
  for (const connection of context.shared.connections.values()) {
    if (!connection.server.enabled) continue;
    const { source, savedAt } = serverTools(connection);
    const id = serverCapabilityId(connection.server.name);
    if (source === 'none') unknown.push(id);
    else if (source === 'cached') cached.push(`${id} (saved ${savedAtText(savedAt)})`);
  }
  const notes: string[] = [];
  if (unknown.length > 0) {
    notes.push(
      `Not searched: the tools of ${boundedText(unknown.join(', '), 600)} are unknown until ${unknown.length === 1 ? 'it connects' : 'they connect'} (call the id to connect, after permission, and list them).`,
    );
  }
  if (cached.length > 0) {
    notes.push(
      `From schema caches, possibly stale: ${boundedText(cached.join(', '), 600)}; a tool missing from a cache is still found by calling mcp-tool:<server>/<tool>, which connects the server.`,
    );
  }
  return notes;
}

/** The result of `search`: the ten best matches the session may use, with one line each, and what was not searched. */
export function searchResult(context: FrontendContext, query: string): ToolResult {
  const entries = capabilityEntries(context);
  const all = searchCapabilities(
    entries.map((entry) => entry.summary),
    query,
    entries.length,
  );
  const targets = new Map(entries.map((entry) => [entry.summary, entry.target]));
  const shown: typeof all = [];
  const refused: string[] = [];
  for (const hit of all) {
    const target = targets.get(hit.entry);
    if (target && isRefused(context, target)) refused.push(hit.entry.id);
    else if (shown.length < 10) shown.push(hit);
  }
  const notes = inventoryNotes(context);
  if (refused.length > 0) {
    notes.unshift(
      refusedNote(
        refused.length === 1 ? 'match' : 'matches',
        refused,
        firstRefusalText(context, entries, refused[0] as string),
      ),
    );
  }
  if (shown.length === 0) {
    return textResult(
      [
        'No capability matches these words. Try other words, or use_capability(action="list") for the inventory.',
        ...notes,
      ].join('\n'),
      { action: 'search', hits: 0, refused: refused.length },
    );
  }
  const lines = ['Best matches:'];
  for (const { entry } of shown) {
    const note =
      entry.schemaSource === 'cached'
        ? entry.kind === 'mcp-resource' || entry.kind === 'mcp-prompt'
          ? ' (cached list; server not started)'
          : ' (cached schema; server not started)'
        : entry.schemaSource === 'unknown'
          ? ' (server not started; its schema did not compile, so none is cached: the live one decides)'
          : '';
    lines.push(`- ${entry.id}: ${boundedText(trimmedFirstLine(entry.description), 160)}${note}`);
  }
  lines.push(
    'Next: use_capability(action="inspect", capability_id="<id>") for the schema, then action="call".',
  );
  lines.push(...notes);
  return textResult(lines.join('\n'), {
    action: 'search',
    hits: shown.map((hit) => hit.entry.id),
    refused: refused.length,
  });
}

/** One MCP tool's block in `inspect`: description, hints, canonical schema with fingerprint, an example call. */
function mcpToolBlock(
  context: FrontendContext,
  server: string,
  tool: McpToolSchema,
  trusted: boolean,
): string {
  const hints = hintText(tool.annotations);
  const lines = [`${mcpToolCapabilityId(server, tool.name)}${tool.title ? ` (${tool.title})` : ''}`];
  if (tool.description) lines.push(tool.description);
  if (tool.unusable !== undefined) {
    lines.push(`Unusable: ${tool.unusable}; calling it is refused (the server's other tools work).`);
    return lines.join('\n');
  }
  if (hints) lines.push(`Hints${trusted ? '' : ' (claimed by the server, untrusted)'}: ${hints}`);
  lines.push(...refusedLine(context, mcpPolicyTarget(server, tool.name, tool.annotations, trusted)));
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

/** "Refused in this session: ..." when the session's policy refuses the target whatever anyone answers. */
function refusedLine(context: FrontendContext, target: CapabilityPolicyTarget): string[] {
  const refusal = policyRefusal(context, target);
  return refusal
    ? [`Refused in this session, whatever anyone answers: ${boundedText(refusal.message, 300)}`]
    : [];
}

/**
 * `inspect` of a resolved built-in or MCP target: description, hints, schema and an example; for a
 * server not started, its cached tools or the hint to connect it; for a tool the cache does not
 * describe, what a call will do. Marks what the session refuses. Never starts anything.
 * (`session:tool_result` is inspected by the paging module.)
 */
export function inspectCapability(
  context: FrontendContext,
  resolved: Exclude<ResolvedCapability, { kind: 'session' }>,
): ToolResult {
  switch (resolved.kind) {
    case 'tool': {
      const { tool } = resolved;
      const hints = hintText(tool.definition.annotations);
      return textResult(
        [
          `${resolved.id}: built-in tool "${tool.name}"`,
          tool.definition.modelTool.description.trim(),
          ...(hints ? [`Hints: ${hints}`] : []),
          ...refusedLine(context, { kind: 'tool', tool }),
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
      const { tools, source, withoutSchema, savedAt } = serverTools(connection);
      if (!tools) {
        return textResult(
          `${resolved.id}: not started, and no cached schema exists. Call use_capability(action="call", capability_id="${resolved.id}") to connect it (after permission) and list its tools.`,
          { action: 'inspect', capabilityId: resolved.id, toolSource: 'none' },
        );
      }
      const banner =
        source === 'live'
          ? `Tools of ${resolved.id} (live; connected):`
          : `Tools (from cached schema; server not started) of ${resolved.id}, saved ${savedAtText(savedAt)} and possibly stale (a tool missing here is still found by calling it):`;
      const { trusted } = connection.server;
      const blocks = tools.map((tool) => mcpToolBlock(context, name, tool, trusted));
      for (const listed of withoutSchema) {
        blocks.push(
          [
            `${mcpToolCapabilityId(name, listed.name)}${listed.title ? ` (${listed.title})` : ''}`,
            ...(listed.description ? [listed.description] : []),
            'No cached schema: it did not compile; a call connects the server and the live schema decides.',
            ...refusedLine(context, mcpPolicyTarget(name, listed.name, listed.annotations, trusted)),
          ].join('\n'),
        );
      }
      blocks.push(...contentBlocks(connection));
      return {
        ok: true,
        output: {
          content: [{ type: 'text', text: [banner, ...blocks].join('\n\n') }],
          untrusted: true,
          details: {
            action: 'inspect',
            capabilityId: resolved.id,
            toolSource: source,
            tools: tools.length + withoutSchema.length,
          },
        },
      };
    }
    case 'mcp-resource':
      return inspectResource(context, resolved);
    case 'mcp-prompt':
      return inspectPrompt(context, resolved);
    case 'mcp-tool': {
      const { connection, schema } = resolved;
      const server = connection.server.name;
      if (!schema) return inspectUndescribedTool(context, resolved);
      const banner =
        resolved.schemaSource === 'live' ? '(live; connected)' : '(from cached schema; server not started)';
      return {
        ok: true,
        output: {
          content: [
            {
              type: 'text',
              text: `${banner}\n${mcpToolBlock(context, server, schema, connection.server.trusted)}`,
            },
          ],
          untrusted: true,
          details: { action: 'inspect', capabilityId: resolved.id, toolSource: resolved.schemaSource },
        },
      };
    }
  }
}

/** `inspect` of an MCP tool whose schema is unknown: its server has no cache, or the cache names it without a schema. */
function inspectUndescribedTool(
  context: FrontendContext,
  resolved: Extract<ResolvedCapability, { kind: 'mcp-tool' }>,
): ToolResult {
  const { connection, id } = resolved;
  const server = connection.server.name;
  const serverId = serverCapabilityId(server);
  const details = { action: 'inspect', capabilityId: id, toolSource: 'none' };
  const connectHint = `Call use_capability(action="call", capability_id="${serverId}") to connect the server (after permission) and see its tools, or call this id directly: it connects the server the same way.`;
  if (resolved.cacheMiss === undefined) {
    return textResult(
      `${id}: its server is not started and has no cached schema, so its arguments are unknown. ${connectHint}`,
      details,
    );
  }
  // Inspect resolves only tools the cache names (without a schema here); a call resolves any name.
  const { withoutSchema, savedAt } = serverToolListing(connection);
  const listed = withoutSchema.find((tool) => tool.name === resolved.tool);
  const hints = listed ? hintText(listed.annotations) : '';
  const text = [
    `(from the cached tool list, saved ${savedAtText(savedAt)}; server not started)`,
    `${id}${listed?.title ? ` (${listed.title})` : ''}`,
    ...(listed?.description ? [listed.description] : []),
    ...(hints
      ? [`Hints${connection.server.trusted ? '' : ' (claimed by the server, untrusted)'}: ${hints}`]
      : []),
    ...refusedLine(
      context,
      mcpPolicyTarget(server, resolved.tool, listed?.annotations, connection.server.trusted),
    ),
    'Its input schema did not compile when the list was cached, so none is kept: a call connects the server (after permission) and is checked against the live schema if that compiles, or sent as given if it does not.',
  ].join('\n');
  return { ok: true, output: { content: [{ type: 'text', text }], untrusted: true, details } };
}

function contentBanner(source: 'live' | 'cached' | 'unknown', savedAt: string | undefined): string {
  return source === 'live'
    ? '(live; connected)'
    : source === 'cached'
      ? `(from the cached list, saved ${savedAtText(savedAt)} and possibly stale; server not started)`
      : '(server not started; no resource or prompt list cached)';
}

/** The resources, templates and prompts of a server, one line each, for `inspect mcp-server:`. */
function contentBlocks(connection: McpConnection): string[] {
  const { content, source } = serverContent(connection);
  if (source === 'none') return ['Resources and prompts: unknown until it connects.'];
  const name = connection.server.name;
  const out: string[] = [];
  const section = (title: string, lines: readonly string[] | undefined) => {
    if (lines === undefined) out.push(`${title}: unknown (the listing failed).`);
    else if (lines.length > 0) out.push([`${title} (${lines.length}):`, ...lines.slice(0, 50)].join('\n'));
  };
  section(
    'Resources',
    content.resources?.map(
      (resource) =>
        `- ${mcpResourceCapabilityId(name, resource.uri)}${resource.mimeType ? ` (${resource.mimeType})` : ''}: ${boundedText(trimmedFirstLine(resource.description || resource.name), 120)}`,
    ),
  );
  section(
    'Resource templates (call with the variables in `arguments`)',
    content.templates?.map(
      (template) =>
        `- ${mcpResourceCapabilityId(name, template.uriTemplate)}: ${boundedText(trimmedFirstLine(template.description || template.name), 120)}`,
    ),
  );
  section(
    'Prompts',
    content.prompts?.map(
      (prompt) =>
        `- ${mcpPromptCapabilityId(name, prompt.name)}(${prompt.arguments.map((argument) => `${argument.name}${argument.required ? '' : '?'}`).join(', ')}): ${boundedText(trimmedFirstLine(prompt.description || prompt.name), 120)}`,
    ),
  );
  return out;
}

/**
 * `inspect` of `mcp-resource:`: a listed resource's metadata (name, MIME type, size, description),
 * a template's variables and an example call, or what a call of an unlisted URI does. Never starts anything.
 */
function inspectResource(
  context: FrontendContext,
  resolved: Extract<ResolvedCapability, { kind: 'mcp-resource' }>,
): ToolResult {
  const { connection, id, resource, template, source } = resolved;
  const { savedAt } = serverContent(connection);
  const lines = [contentBanner(source, savedAt)];
  const rule = `Permission: asked as ${mcpPermissionName(connection.server.name, MCP_READ_RESOURCE_RULE)} (read-only)`;
  if (template) {
    lines.push(`${id}${template.title ? ` (${template.title})` : ''}`);
    lines.push(
      `Resource template "${template.name}"${template.mimeType ? `, MIME type ${template.mimeType}` : ''}`,
    );
    if (template.description) lines.push(template.description);
    lines.push(
      `Variables (strings, inside \`arguments\`): ${template.variables.map((variable) => `${variable.name} (${variable.required ? 'required' : 'optional'})`).join(', ') || 'none'}`,
    );
    const example: JsonObject = {};
    for (const variable of template.variables) if (variable.required) example[variable.name] = '<string>';
    lines.push(rule);
    lines.push(...refusedLine(context, resourcePolicyTarget(connection)));
    lines.push(`Example: ${callRecipe(id, example)}`);
  } else if (resource) {
    lines.push(`${id}${resource.title ? ` (${resource.title})` : ''}`);
    lines.push(
      `Resource "${resource.name}"${resource.mimeType ? `, MIME type ${resource.mimeType}` : ''}${resource.size !== undefined ? `, ${resource.size} bytes (as the server says)` : ''}`,
    );
    if (resource.description) lines.push(resource.description);
    lines.push(rule);
    lines.push(...refusedLine(context, resourcePolicyTarget(connection)));
    lines.push(`Read it: ${callRecipe(id, {})}`);
  } else {
    lines.push(
      `${id}: ${source === 'unknown' ? "nothing is known of this server's resources yet" : 'not among the listed resources'}. A call connects the server (after permission) and asks it to read this URI; the server decides whether it exists (a resource template's URIs are not listed).`,
    );
    lines.push(rule);
    lines.push(...refusedLine(context, resourcePolicyTarget(connection)));
  }
  return {
    ok: true,
    output: {
      content: [{ type: 'text', text: lines.join('\n') }],
      untrusted: true,
      details: {
        action: 'inspect',
        capabilityId: id,
        source,
        kind: template ? 'template' : resource ? 'resource' : 'unlisted',
      },
    },
  };
}

/** `inspect` of `mcp-prompt:`: the prompt's description, its arguments (name, description, required) and an example call. */
function inspectPrompt(
  context: FrontendContext,
  resolved: Extract<ResolvedCapability, { kind: 'mcp-prompt' }>,
): ToolResult {
  const { connection, id, schema, source } = resolved;
  const { savedAt } = serverContent(connection);
  const lines = [contentBanner(source, savedAt)];
  if (schema) {
    lines.push(`${id}${schema.title ? ` (${schema.title})` : ''}`);
    if (schema.description) lines.push(schema.description);
    if (schema.arguments.length === 0) lines.push('Arguments: none');
    else {
      lines.push('Arguments (strings, inside `arguments`):');
      for (const argument of schema.arguments) {
        lines.push(
          `- ${argument.name} (${argument.required ? 'required' : 'optional'})${argument.description ? `: ${argument.description}` : ''}`,
        );
      }
    }
    const example: JsonObject = {};
    for (const argument of schema.arguments) if (argument.required) example[argument.name] = '<string>';
    lines.push(
      `Permission: asked as ${mcpPermissionName(connection.server.name, MCP_PROMPT_RULE)} (read-only)`,
    );
    lines.push(...refusedLine(context, promptPolicyTarget(connection)));
    lines.push(`Example: ${callRecipe(id, example)}`);
  } else {
    lines.push(
      `${id}: its server is not started and no prompt list is cached, so its arguments are unknown. A call connects the server (after permission) and checks the arguments against the live list.`,
    );
    lines.push(...refusedLine(context, promptPolicyTarget(connection)));
  }
  return {
    ok: true,
    output: {
      content: [{ type: 'text', text: lines.join('\n') }],
      untrusted: true,
      details: { action: 'inspect', capabilityId: id, source, arguments: schema?.arguments.length },
    },
  };
}
