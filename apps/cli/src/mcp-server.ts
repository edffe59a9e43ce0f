import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  ApprovalAnswer,
  ApprovalChoice,
  ApprovalRequest,
  ApproveCallback,
  DispatchOptions,
  DispatchResult,
  Session,
} from '@toolhost/boot';
import type { ToolProgress } from '@toolhost/contracts';
import { mcpTools, SERVE_CAPABILITIES, SERVE_SERVER_NAME, serveInstructions } from './mcp-surface.js';

export { mcpToolAnnotations, mcpTools } from './mcp-surface.js';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  readonly name?: string;
  readonly version: string;
  /**
   * While a call that asked for progress runs and its tool reports none, a heartbeat progress
   * notification (seconds elapsed) is sent at this interval, in ms. Default 1000.
   */
  readonly heartbeatMs?: number;
}

/**
 * The MCP form of a dispatch result: the model-visible text first, then images and links; `isError`
 * on failure. The storm breaker's notice, when it spoke, is appended to the text (MCP results have no
 * other place the model reads).
 */
export function mcpCallResult(result: DispatchResult): CallToolResult {
  const content: CallToolResult['content'] = [];
  const text = result.notice
    ? result.output === ''
      ? result.notice
      : `${result.output}\n\n${result.notice}`
    : result.output;
  if (text !== '') content.push({ type: 'text', text });
  for (const block of result.content) {
    if (block.type === 'image') content.push({ type: 'image', data: block.data, mimeType: block.mimeType });
    else if (block.type === 'resource_link') {
      content.push({
        type: 'resource_link',
        uri: block.uri,
        name: block.name ?? block.uri,
        ...(block.mimeType ? { mimeType: block.mimeType } : {}),
        ...(block.description ? { description: block.description } : {}),
      });
    }
  }
  if (content.length === 0) content.push({ type: 'text', text: '' });
  return { content, ...(result.status === 'error' ? { isError: true } : {}) };
}

/**
 * An MCP server (low-level SDK `Server`) exposing one session's provider surface: `tools/list` gives the
 * frozen surface with annotations mapped to MCP hints; `tools/call` runs the whole dispatch pipeline
 * (so policy, approval and evidence apply exactly as for a model) and returns what the model would
 * see, with `isError` on failure. Cancellation (`notifications/cancelled`) aborts the call. When the
 * client sent a `progressToken`, the tool's own progress is forwarded, or a heartbeat every
 * `heartbeatMs` while it reports none, so clients that reset their timeout on progress keep waiting.
 * One host backs many servers (one per HTTP session), each over its own session; the caller closes them.
 */
export function createMcpServer(session: Session, options: McpServerOptions): Server {
  const server = new Server(
    { name: options.name ?? SERVE_SERVER_NAME, version: options.version },
    { capabilities: SERVE_CAPABILITIES, instructions: serveInstructions(session) },
  );
  const tools = mcpTools(session);
  const heartbeatMs = options.heartbeatMs ?? 1_000;

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  // Registered with the SDK's Protocol (which parses the request against CallToolRequestSchema once)
  // rather than Server's override, which parses the request a second time and the result again
  // (zod over every content block: about a tenth of a read's CPU through serve, issue 25). The
  // result is built here by mcpCallResult, in CallToolResult's shape by construction; task-augmented
  // calls are refused as the override refuses them (this server declares no task support).
  Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, async (request, extra) => {
    if (request.params.task !== undefined) {
      throw new McpError(
        ErrorCode.InvalidParams,
        'Invalid task creation result: this server does not run tasks',
      );
    }
    const progressToken = request.params._meta?.progressToken;
    let lastProgress = 0;
    let toolReported = false;
    let heartbeat: NodeJS.Timeout | undefined;
    const sendProgress = (progress: ToolProgress) => {
      // MCP requires progress to increase; anything else is dropped rather than sent out of order.
      if (progressToken === undefined || !(progress.progress > lastProgress)) return;
      lastProgress = progress.progress;
      extra
        .sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken,
            progress: progress.progress,
            ...(progress.total === undefined ? {} : { total: progress.total }),
            ...(progress.message === undefined ? {} : { message: progress.message }),
          },
        })
        .catch(() => undefined);
    };
    if (progressToken !== undefined) {
      const started = Date.now();
      heartbeat = setInterval(() => {
        if (toolReported) return;
        const seconds = Math.round((Date.now() - started) / 1000);
        // Heartbeats climb by a millionth, so the tool's own progress (1 of 3 ...) still rises above
        // them when it starts reporting: MCP drops nothing that increases.
        sendProgress({
          progress: Math.round((lastProgress + 1e-6) * 1e6) / 1e6,
          message: `${request.params.name} running for ${seconds}s`,
        });
      }, heartbeatMs);
    }
    // A client that propagates W3C trace context sends `_meta.traceparent`: the call's trace continues it.
    const traceparent = request.params._meta?.traceparent;
    const dispatchOptions: DispatchOptions = {
      ...(typeof traceparent === 'string' ? { traceparent } : {}),
      signal: extra.signal,
      onProgress: (progress) => {
        toolReported = true;
        sendProgress(progress);
      },
    };
    try {
      const result = await session.dispatch(
        // No id: the session numbers its calls itself.
        { name: request.params.name, arguments: request.params.arguments ?? {} },
        dispatchOptions,
      );
      return mcpCallResult(result);
    } finally {
      clearInterval(heartbeat);
    }
  });
  return server;
}

const CHOICE_TITLES: Readonly<Record<ApprovalChoice, string>> = {
  allow_once: 'Allow once',
  allow_session: 'Allow for this session',
  deny: 'Deny',
};

/**
 * The question an approval becomes for an MCP client: the tool, why it needs approval and what
 * each choice means, without any argument value (no command, path or plan text: the client shows
 * the call itself).
 */
export function elicitationMessage(request: ApprovalRequest): string {
  const what =
    request.toolName === 'exit_plan_mode'
      ? 'toolhost asks you to approve the plan in the exit_plan_mode call and leave plan mode'
      : `toolhost asks whether the tool "${request.toolName}" may run`;
  const session = request.choices.includes('allow_session')
    ? request.category === 'shell'
      ? ' "Allow for this session" also runs later commands that start with the same words (or the same command) without asking.'
      : ` "Allow for this session" also runs later calls of "${request.toolName}" in this MCP session without asking.`
    : '';
  return `${what} (sandbox ${request.sandbox}, approval ${request.approval}): ${request.reason}.${session}`;
}

/**
 * The approval callback of a `serve` session: when the MCP client declared the elicitation
 * capability (form mode), each approval is sent to it as `elicitation/create` with the choices
 * (allow once, allow for this session when the host can remember it, deny); `accept` with a
 * choice acts on it (`accept` without one allows once), `decline` and `cancel` deny. Without the
 * capability it answers `unavailable`, so the call fails closed (`APPROVAL_REQUIRED`) naming what
 * would allow it. The host's approval timeout and the call's cancellation withdraw the request.
 */
export function createElicitationApprover(server: () => Server | undefined): ApproveCallback {
  return async (request): Promise<ApprovalAnswer> => {
    const current = server();
    if (!current?.getClientCapabilities()?.elicitation?.form) {
      return { decision: 'unavailable', reason: 'the MCP client does not support elicitation' };
    }
    const choices = [...request.choices];
    const result = await current.elicitInput(
      {
        mode: 'form',
        message: elicitationMessage(request),
        requestedSchema: {
          type: 'object',
          properties: {
            decision: {
              type: 'string',
              title: 'Decision',
              enum: choices,
              enumNames: choices.map((choice) => CHOICE_TITLES[choice]),
            },
          },
          required: ['decision'],
        },
      },
      // The host's approval timeout governs (it fires the signal), not the SDK's default.
      { signal: request.signal, timeout: 86_400_000 },
    );
    if (result.action !== 'accept') {
      return {
        decision: 'deny',
        reason:
          result.action === 'decline'
            ? 'the MCP client declined it'
            : 'the MCP client cancelled the question',
      };
    }
    const decision = result.content?.decision;
    if (decision === undefined) return 'allow_once';
    return typeof decision === 'string' && (choices as string[]).includes(decision)
      ? (decision as ApprovalChoice)
      : { decision: 'deny', reason: 'the MCP client answered with an unknown choice' };
  };
}

/** What is wrong with a `tools/call` request's params, value-free, or `undefined` when nothing is. */
export function toolCallParamsProblem(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return 'tools/call needs params as a JSON object with "name" and "arguments"';
  }
  const { name, arguments: args } = params as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') return 'tools/call params.name must be a non-empty string';
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    const kind = args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`;
    return `tools/call params.arguments must be a JSON object (it is ${kind}); send the tool's parameters as an object`;
  }
  return undefined;
}

/**
 * Connects an MCP server to a transport, answering malformed `tools/call` params with `-32602
 * Invalid params` and a one-line, value-free reason before the SDK sees them (the SDK would answer
 * `-32603` with a schema-validation dump).
 */
export async function connectMcpServer(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const request = message as { method?: unknown; id?: unknown; params?: unknown };
    if (
      request.method === 'tools/call' &&
      (typeof request.id === 'string' || typeof request.id === 'number')
    ) {
      const problem = toolCallParamsProblem(request.params);
      if (problem !== undefined) {
        void transport
          .send({ jsonrpc: '2.0', id: request.id, error: { code: -32602, message: problem } })
          .catch(() => undefined);
        return;
      }
    }
    inner?.(message, extra);
  };
}
