import {
  boundedText,
  errorResult,
  isJsonObject,
  type ToolCallContext,
  ToolhostError,
  type ToolResult,
} from '@toolhost/contracts';
import {
  MCP_PROMPT_RULE,
  MCP_READ_RESOURCE_RULE,
  mcpPermissionName,
  mcpPromptCapabilityId,
  mcpResourceCapabilityId,
  mcpToolCapabilityId,
} from './capability-ids.js';
import {
  capabilitySummaries,
  type FrontendContext,
  MCP_CONTENT_HINTS,
  mcpPolicyTarget,
  policyRefusal,
  promptPolicyTarget,
  type ResolvedCapability,
  resourcePolicyTarget,
} from './frontend-context.js';
import type { McpConnection } from './mcp-connection.js';
import { toPromptOutput, toResourceOutput, toToolOutput } from './mcp-content.js';
import {
  checkContentArguments,
  MCP_CONTENT_LIMITS,
  type McpPrompt,
  type McpResourceTemplate,
} from './mcp-resources.js';
import { loadedMcpSdk } from './mcp-sdk.js';
import type { McpToolSchema } from './mcp-tools.js';
import type { CapabilityAuthorization, CapabilityAuthorizationRequest } from './proxy-types.js';
import { schemaHelp } from './render-capabilities.js';
import { unavailable, unknownReference, unusableTool } from './resolve-capability.js';
import { trimmedFirstLine, withoutQuery } from './text-bounds.js';

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

/** An `ARGUMENT_VALIDATION` for a prompt's arguments or a template's variables: names only, never values. */
function contentArgumentsFailed(
  id: string,
  problem: string,
  reason: string,
  expected: readonly { readonly name: string; readonly required: boolean; readonly description?: string }[],
  what: 'argument' | 'variable',
): ToolResult {
  const listed =
    expected.length === 0
      ? `it takes no ${what}s`
      : `its ${what}s: ${expected
          .map((item) => `${item.name}${item.required ? ' (required)' : ' (optional)'}`)
          .join(', ')}`;
  const example: Record<string, string> = {};
  for (const item of expected) if (item.required) example[item.name] = '<string>';
  return errorResult(
    new ToolhostError({
      code: 'ARGUMENT_VALIDATION',
      message: `${id}: ${problem}; ${listed}; nothing was sent`,
      recovery: `call again with the ${what}s inside \`arguments\`, as strings`,
      signature: `argument_validation:${id.slice(0, 200)}:${reason}`,
      details: { capabilityId: id, reason, remoteDispatched: false },
    }),
    {
      content: [
        {
          type: 'text',
          text: `A well-formed call: use_capability(action="call", capability_id="${id}", arguments=${JSON.stringify(example)})`,
        },
      ],
      details: { capabilityId: id },
    },
  );
}

function templateProblem(
  id: string,
  template: McpResourceTemplate,
  args: unknown,
): { ok: true; values: Record<string, string> } | { ok: false; result: ToolResult } {
  const checked = checkContentArguments(args, template.variables, 'variable');
  if (checked.ok) return checked;
  return {
    ok: false,
    result: contentArgumentsFailed(id, checked.problem, checked.reason, template.variables, 'variable'),
  };
}

function promptProblem(
  id: string,
  prompt: McpPrompt,
  args: unknown,
): { ok: true; values: Record<string, string> } | { ok: false; result: ToolResult } {
  const checked = checkContentArguments(args, prompt.arguments, 'argument');
  if (checked.ok) return checked;
  return {
    ok: false,
    result: contentArgumentsFailed(id, checked.problem, checked.reason, prompt.arguments, 'argument'),
  };
}

/** A failed `resources/read` / `prompts/get`: the server's text as untrusted output, never in the message. */
function requestFailed(error: ToolhostError): ToolResult {
  const serverMessage = error.details.serverMessage;
  return typeof serverMessage === 'string'
    ? errorResult(error, { content: [{ type: 'text', text: serverMessage }], untrusted: true })
    : errorResult(error);
}

/**
 * `call` of `mcp-resource:<server>/<uri>`: a template's variables are checked (names only) and a
 * plain resource's empty `arguments` before anything starts; a deny rule on
 * `mcp__<server>__read_resource` refuses before the server starts; then it connects, expands the
 * template with the SDK's RFC 6570 `UriTemplate`, asks `mcp__<server>__read_resource` (read-only
 * hints) and sends `resources/read`.
 */
export async function callMcpResource(
  context: FrontendContext,
  resolved: Extract<ResolvedCapability, { kind: 'mcp-resource' }>,
  args: unknown,
  call: ToolCallContext,
): Promise<ToolResult> {
  const { connection, id } = resolved;
  if (!connection.server.enabled) return errorResult(disabled(connection));
  const templated = /\{[^{}]*\}/.test(resolved.uri);
  if (resolved.template) {
    const checked = templateProblem(id, resolved.template, args);
    if (!checked.ok) return checked.result;
  } else if (!templated) {
    const checked = checkContentArguments(args, [], 'argument');
    if (!checked.ok) return contentArgumentsFailed(id, checked.problem, checked.reason, [], 'argument');
  }
  if (connection.status !== 'ready') {
    const refused = policyRefusal(context, resourcePolicyTarget(connection), call);
    if (refused) return errorResult(refused);
  }
  const connectFailure = await ensureConnected(context, connection, id, call);
  if (connectFailure) return errorResult(connectFailure);
  const content = await connection.contentListed();
  const server = connection.server;
  let uri = resolved.uri;
  // The live list decides; when it could not be read, the cached template stands.
  const template = content?.templates
    ? content.templates.find((candidate) => candidate.uriTemplate === resolved.uri)
    : resolved.template;
  if (template) {
    const checked = templateProblem(id, template, args);
    if (!checked.ok) return checked.result;
    try {
      uri = new (loadedMcpSdk().UriTemplate)(template.uriTemplate).expand(checked.values);
    } catch {
      return contentArgumentsFailed(
        id,
        'the template could not be expanded with these variables',
        'expansion',
        template.variables,
        'variable',
      );
    }
    if (uri.length > MCP_CONTENT_LIMITS.maxUriChars * 4) {
      return contentArgumentsFailed(
        id,
        `the expanded URI is longer than ${MCP_CONTENT_LIMITS.maxUriChars * 4} characters`,
        'too_long',
        template.variables,
        'variable',
      );
    }
  } else if (templated) {
    return errorResult(
      unknownReference(context, {
        wanted: resolved.uri,
        action: 'call',
        message: `MCP server "${server.name}" lists no resource template with this URI template now that it is connected`,
        pool: capabilitySummaries(context).filter(
          (entry) => entry.kind === 'mcp-resource' && entry.server === server.name,
        ),
      }),
    );
  } else {
    const checked = checkContentArguments(args, [], 'argument');
    if (!checked.ok) return contentArgumentsFailed(id, checked.problem, checked.reason, [], 'argument');
  }
  const decision = await askHost(context, {
    kind: 'mcp-tool',
    method: 'resources/read',
    toolName: mcpPermissionName(server.name, MCP_READ_RESOURCE_RULE),
    server: server.name,
    tool: MCP_READ_RESOURCE_RULE,
    capabilityId: id,
    callId: call.callId,
    signal: call.signal,
    arguments: { uri },
    annotations: MCP_CONTENT_HINTS,
    annotationsTrusted: server.trusted,
    preview: `read a resource of MCP server "${server.name}"`,
  });
  if (!decision.allowed) return errorResult(decision.error);
  if (context.closed) return errorResult(unavailable('the capability proxy is closed'));
  const read = await connection.request({
    method: 'resources/read',
    params: { uri },
    label: 'resource read',
    signatureName: MCP_READ_RESOURCE_RULE,
    signal: call.signal,
    onProgress: call.onProgress,
  });
  if (!read.ok) return requestFailed(read.error);
  const output = toResourceOutput(read.value, { server: server.name, capabilityId: id });
  return {
    ok: true,
    output: {
      ...output,
      details: {
        ...output.details,
        action: 'call',
        ...(template ? { template: template.uriTemplate } : {}),
      },
    },
  };
}

/**
 * `call` of `mcp-prompt:<server>/<name>`: checks `arguments` against the prompt's known arguments
 * (a missing required one or an unknown one is refused before anything starts, naming arguments,
 * never values); a deny rule on `mcp__<server>__prompt` refuses before the server starts; then it
 * connects, checks against the live list, asks `mcp__<server>__prompt` and sends `prompts/get`.
 */
export async function callMcpPrompt(
  context: FrontendContext,
  resolved: Extract<ResolvedCapability, { kind: 'mcp-prompt' }>,
  args: unknown,
  call: ToolCallContext,
): Promise<ToolResult> {
  const { connection, id } = resolved;
  if (!connection.server.enabled) return errorResult(disabled(connection));
  if (resolved.schema) {
    const checked = promptProblem(id, resolved.schema, args);
    if (!checked.ok) return checked.result;
  }
  if (connection.status !== 'ready') {
    const refused = policyRefusal(context, promptPolicyTarget(connection), call);
    if (refused) return errorResult(refused);
  }
  const connectFailure = await ensureConnected(context, connection, id, call);
  if (connectFailure) return errorResult(connectFailure);
  const content = await connection.contentListed();
  const server = connection.server;
  const live = content?.prompts?.find((prompt) => prompt.name === resolved.prompt);
  if (content?.prompts !== undefined && !live) {
    return errorResult(
      unknownReference(context, {
        wanted: resolved.prompt,
        action: 'call',
        message: `MCP server "${server.name}" offers no prompt with this name now that it is connected`,
        pool: capabilitySummaries(context).filter((entry) => entry.kind === 'mcp-prompt'),
      }),
    );
  }
  // The live list decides; a server whose prompt list could not be read gets the arguments as given
  // (still checked to be strings), and answers for itself.
  const schema = live ?? resolved.schema;
  let values: Record<string, string>;
  if (schema) {
    const checked = promptProblem(id, schema, args);
    if (!checked.ok) return checked.result;
    values = checked.values;
  } else {
    const given = isJsonObject(args) ? args : {};
    const checked = checkContentArguments(
      args,
      Object.keys(given).map((name) => ({ name, required: false })),
      'argument',
    );
    if (!checked.ok) return contentArgumentsFailed(id, checked.problem, checked.reason, [], 'argument');
    values = checked.values;
  }
  const decision = await askHost(context, {
    kind: 'mcp-tool',
    method: 'prompts/get',
    toolName: mcpPermissionName(server.name, MCP_PROMPT_RULE),
    server: server.name,
    tool: MCP_PROMPT_RULE,
    capabilityId: id,
    callId: call.callId,
    signal: call.signal,
    arguments: { name: resolved.prompt, arguments: values },
    annotations: MCP_CONTENT_HINTS,
    annotationsTrusted: server.trusted,
    preview: `get prompt ${resolved.prompt} of MCP server "${server.name}"`,
  });
  if (!decision.allowed) return errorResult(decision.error);
  if (context.closed) return errorResult(unavailable('the capability proxy is closed'));
  const got = await connection.request({
    method: 'prompts/get',
    params: { name: resolved.prompt, arguments: values },
    label: `prompt "${resolved.prompt.slice(0, 128)}"`,
    signatureName: MCP_PROMPT_RULE,
    signal: call.signal,
    onProgress: call.onProgress,
  });
  if (!got.ok) return requestFailed(got.error);
  const output = toPromptOutput(got.value, {
    server: server.name,
    capabilityId: id,
    prompt: resolved.prompt,
  });
  return { ok: true, output: { ...output, details: { ...output.details, action: 'call' } } };
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
        : `- ${toolId}: ${boundedText(trimmedFirstLine(tool.description), 160)}`,
    );
  }
  for (const note of connection.listingNotes) lines.push(`Note: ${note}.`);
  const content = await connection.contentListed();
  const resources = (content?.resources ?? []).map((resource) =>
    mcpResourceCapabilityId(connection.server.name, resource.uri),
  );
  const templates = (content?.templates ?? []).map((template) =>
    mcpResourceCapabilityId(connection.server.name, template.uriTemplate),
  );
  const prompts = (content?.prompts ?? []).map((prompt) =>
    mcpPromptCapabilityId(connection.server.name, prompt.name),
  );
  if (resources.length + templates.length + prompts.length > 0) {
    lines.push(
      `It also offers ${resources.length} resources, ${templates.length} resource templates and ${prompts.length} prompts (search for them, or inspect mcp-resource:<server>/<uri> and mcp-prompt:<server>/<name>), for example: ${boundedText(
        [...resources.slice(0, 3), ...templates.slice(0, 2), ...prompts.slice(0, 3)].join(', '),
        600,
      )}.`,
    );
  } else if (content && (content.resources === undefined || content.prompts === undefined)) {
    lines.push('Note: its resource or prompt list could not be read.');
  }
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
        resources: resources.length,
        resourceTemplates: templates.length,
        prompts: prompts.length,
      },
    },
  };
}
