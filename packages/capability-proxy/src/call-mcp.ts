import {
  errorResult,
  isJsonObject,
  type ToolCallContext,
  ToolhostError,
  type ToolResult,
} from '@toolhost/contracts';
import { mcpPermissionName, mcpToolCapabilityId } from './capability-ids.js';
import {
  capabilitySummaries,
  type FrontendContext,
  mcpPolicyTarget,
  policyRefusal,
  type ResolvedCapability,
} from './frontend-context.js';
import type { McpConnection } from './mcp-connection.js';
import { toToolOutput } from './mcp-content.js';
import type { McpToolSchema } from './mcp-tools.js';
import type { CapabilityAuthorization, CapabilityAuthorizationRequest } from './proxy-types.js';
import { schemaHelp } from './render-capabilities.js';
import { unavailable, unknownReference, unusableTool } from './resolve-capability.js';
import { bounded, firstLine, withoutQuery } from './text-bounds.js';

/** Asks the host; a callback that throws counts as a refusal (fail closed). */
async function askHost(
  context: FrontendContext,
  request: CapabilityAuthorizationRequest,
): Promise<CapabilityAuthorization> {
  try {
    return await context.authorize(request);
  } catch (error) {
    return {
      allowed: false,
      error: new ToolhostError({
        code: 'PERMISSION_DENIED',
        message: `the permission check for ${request.toolName} failed, so it is refused`,
        details: { toolName: request.toolName, remoteDispatched: false },
        cause: error,
      }),
    };
  }
}

function disabled(connection: McpConnection): ToolhostError {
  return unavailable(`MCP server "${connection.server.name}" is disabled in the configuration`, {
    server: connection.server.name,
  });
}

/**
 * Connects a server unless it is ready: asks `mcp_connect__<server>` first (a connect already in
 * progress was authorized by the call that started it), then starts it. Returns the error the model
 * sees, or undefined once connected.
 */
async function ensureConnected(
  context: FrontendContext,
  connection: McpConnection,
  id: string,
  call: ToolCallContext,
): Promise<ToolhostError | undefined> {
  if (context.closed) return unavailable('the capability proxy is closed');
  if (!connection.server.enabled) return disabled(connection);
  if (connection.status === 'ready') return undefined;
  if (connection.status !== 'connecting') {
    const server = connection.server;
    const decision = await askHost(context, {
      kind: 'mcp-connect',
      toolName: mcpPermissionName(server.name),
      server: server.name,
      capabilityId: id,
      callId: call.callId,
      signal: call.signal,
      transport: server.transport,
      annotations: {
        readOnly: false,
        destructive: false,
        idempotent: true,
        openWorld: server.transport !== 'stdio',
      },
      annotationsTrusted: true,
      preview:
        server.transport === 'stdio'
          ? `start MCP server "${server.name}": ${[server.command, ...server.args].join(' ')}`
          : `connect to MCP server "${server.name}" at ${withoutQuery(server.url ?? '')}`,
    });
    context.authorized.set(server.name, decision.allowed);
    if (!decision.allowed) return decision.error;
    if (context.closed) return unavailable('the capability proxy is closed');
  }
  const connected = await connection.connect(call.signal);
  return connected.ok ? undefined : connected.error;
}

function validateMcpArguments(
  context: FrontendContext,
  id: string,
  schema: McpToolSchema,
  args: unknown,
):
  | { readonly ok: true; readonly arguments: Record<string, unknown> }
  | { readonly ok: false; readonly result: ToolResult } {
  const checked = context.shared.validator.validate({
    toolName: id,
    source: 'mcp',
    schema: schema.inputSchema,
    schemaHash: schema.schemaHash,
    arguments: args,
    invocation: { kind: 'capability', capabilityId: id },
  });
  if (!checked.ok) return { ok: false, result: errorResult(checked.error, schemaHelp(id, schema)) };
  return { ok: true, arguments: checked.value.arguments };
}

/**
 * `call` of an MCP tool: validates against the known schema (cached or live) before anything starts,
 * connects under `mcp_connect__<server>`, validates again when the live schema differs, asks
 * `mcp__<server>__<tool>` with the live hints, then calls. A JSON-RPC error or an `isError` result
 * is `MCP_CALL_FAILED` with the server's text as untrusted output, never in the message.
 */
export async function callMcpTool(
  context: FrontendContext,
  resolved: Extract<ResolvedCapability, { kind: 'mcp-tool' }>,
  args: unknown,
  call: ToolCallContext,
): Promise<ToolResult> {
  const { connection, id } = resolved;
  if (!connection.server.enabled) return errorResult(disabled(connection));
  if (resolved.schema?.unusable !== undefined) return errorResult(unusableTool(id, resolved.schema));
  // Validate against the known schema before anything starts.
  let validated: Record<string, unknown> | undefined;
  let validatedHash: string | undefined;
  if (resolved.schema) {
    const checked = validateMcpArguments(context, id, resolved.schema, args);
    if (!checked.ok) return checked.result;
    validated = checked.arguments;
    validatedHash = resolved.schema.schemaHash;
  }
  if (connection.status !== 'ready') {
    // What the session refuses whatever the server says (a deny rule on mcp__s__t) is refused before
    // the server starts; the full check still runs after the connect, with the live hints.
    const refused = policyRefusal(
      context,
      mcpPolicyTarget(connection.server.name, resolved.tool, undefined, connection.server.trusted),
      call,
    );
    if (refused) return errorResult(refused);
  }
  const connectFailure = await ensureConnected(context, connection, id, call);
  if (connectFailure) return errorResult(connectFailure);
  const live = connection.liveTools?.find((tool) => tool.name === resolved.tool);
  if (!live) {
    return errorResult(
      unknownReference(context, {
        wanted: resolved.tool,
        action: 'call',
        message: `MCP server "${connection.server.name}" offers no tool with this name now that it is connected`,
        pool: capabilitySummaries(context).filter((entry) => entry.kind === 'mcp-tool'),
      }),
    );
  }
  if (live.unusable !== undefined) return errorResult(unusableTool(id, live));
  if (validatedHash !== live.schemaHash) {
    const checked = validateMcpArguments(context, id, live, args);
    if (!checked.ok) return checked.result;
    validated = checked.arguments;
  }
  const server = connection.server;
  const decision = await askHost(context, {
    kind: 'mcp-tool',
    toolName: mcpPermissionName(server.name, live.name),
    server: server.name,
    tool: live.name,
    capabilityId: id,
    callId: call.callId,
    signal: call.signal,
    arguments: validated ?? {},
    annotations: live.annotations,
    annotationsTrusted: server.trusted,
    preview: `call MCP tool ${live.name} of server "${server.name}"`,
  });
  if (!decision.allowed) return errorResult(decision.error);
  if (context.closed) return errorResult(unavailable('the capability proxy is closed'));
  const called = await connection.callTool({
    tool: live.name,
    arguments: validated ?? {},
    signal: call.signal,
    onProgress: call.onProgress,
  });
  if (!called.ok) {
    const serverMessage = called.error.details.serverMessage;
    return typeof serverMessage === 'string'
      ? errorResult(called.error, { content: [{ type: 'text', text: serverMessage }], untrusted: true })
      : errorResult(called.error);
  }
  const output = toToolOutput(called.value, { server: server.name, tool: live.name, capabilityId: id });
  if (isJsonObject(called.value) && called.value.isError === true) {
    return errorResult(
      new ToolhostError({
        code: 'MCP_CALL_FAILED',
        message: `MCP tool "${server.name}/${live.name}" reported an error; its output is included`,
        recovery: 'read the output; fix the arguments or choose another capability',
        signature: `mcp_call:${server.name}/${live.name}:tool_error`,
        details: { server: server.name, tool: live.name, reason: 'tool_error', remoteDispatched: true },
      }),
      output,
    );
  }
  return { ok: true, output };
}

/** `call` of `mcp-server:<name>`: connects it (after permission) and lists its live tools. */
export async function callMcpServer(
  context: FrontendContext,
  resolved: Extract<ResolvedCapability, { kind: 'mcp-server' }>,
  call: ToolCallContext,
): Promise<ToolResult> {
  const { connection, id } = resolved;
  const failure = await ensureConnected(context, connection, id, call);
  if (failure) return errorResult(failure);
  const tools = connection.liveTools ?? [];
  const lines = [`connected MCP server "${connection.server.name}"; ${tools.length} tools:`];
  for (const tool of tools) {
    const toolId = mcpToolCapabilityId(connection.server.name, tool.name);
    lines.push(
      tool.unusable !== undefined
        ? `- ${toolId}: (unusable: ${tool.unusable})`
        : `- ${toolId}: ${bounded(firstLine(tool.description), 160)}`,
    );
  }
  for (const note of connection.listingNotes) lines.push(`Note: ${note}.`);
  lines.push('Next: inspect one id for its schema, then call it with its parameters in `arguments`.');
  return {
    ok: true,
    output: {
      content: [{ type: 'text', text: lines.join('\n') }],
      untrusted: true,
      details: {
        action: 'call',
        capabilityId: id,
        server: connection.server.name,
        transport: connection.transportUsed,
        tools: tools.map((tool) => tool.name),
      },
    },
  };
}
