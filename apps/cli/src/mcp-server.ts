import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { DispatchOptions, DispatchResult, Session } from '@toolhost/boot';
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
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
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
    const dispatchOptions: DispatchOptions = {
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
