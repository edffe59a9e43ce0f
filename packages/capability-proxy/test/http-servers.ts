import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** Options of {@link startHttpMcpServer}. */
export interface HttpMcpServerOptions {
  /** `streamable`: Streamable HTTP on `/mcp`; `sse`: only the legacy HTTP+SSE transport on `/sse`. */
  readonly mode: 'streamable' | 'sse';
  /** When set, every request must carry `authorization: Bearer <token>` (else 401). */
  readonly token?: string;
  /** Listen on this port (default: any free one). */
  readonly port?: number;
  /** Also offer `flood {bytes}`, which answers with a text of that many bytes. */
  readonly flood?: boolean;
}

/** A running MCP server on 127.0.0.1, built from the SDK's own server classes. */
export interface HttpMcpServer {
  readonly url: string;
  readonly port: number;
  /** How many `tools/call` requests reached the server. */
  readonly calls: number;
  close(): Promise<void>;
}

/** The test server's MCP side (`echo`, `add_tool`, optionally `flood`), counting `tools/call`. */
export function makeMcpServer(counter: { calls: number }, flood: boolean): Server {
  const tools = [
    {
      name: 'echo',
      description: 'Echoes the message back over HTTP.',
      inputSchema: {
        type: 'object' as const,
        properties: { message: { type: 'string' } },
        required: ['message'],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'add_tool',
      description: 'Adds the tool "late" and announces tools/list_changed.',
      inputSchema: { type: 'object' as const, properties: {} },
    },
  ];
  if (flood) {
    tools.push({
      name: 'flood',
      description: 'Answers with a text of the requested size in bytes.',
      inputSchema: { type: 'object' as const, properties: { bytes: { type: 'integer' } } } as never,
    });
  }
  const server = new Server(
    { name: 'test-http-server', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    counter.calls++;
    const name = request.params.name;
    if (name === 'echo') {
      return { content: [{ type: 'text', text: `http echo: ${String(request.params.arguments?.message)}` }] };
    }
    if (name === 'flood' && flood) {
      return { content: [{ type: 'text', text: 'x'.repeat(Number(request.params.arguments?.bytes ?? 0)) }] };
    }
    if (name === 'add_tool') {
      if (!tools.some((tool) => tool.name === 'late')) {
        tools.push({
          name: 'late',
          description: 'Appeared after tools/list_changed.',
          inputSchema: { type: 'object' as const, properties: {} },
        });
      }
      await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'added' }] };
    }
    if (name === 'late') return { content: [{ type: 'text', text: 'late answered' }] };
    return { content: [{ type: 'text', text: 'unknown tool' }], isError: true };
  });
  return server;
}

/** Reads a JSON request body (undefined when empty). */
export async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** Starts a loopback MCP server; close it in `t.after`. */
export async function startHttpMcpServer(options: HttpMcpServerOptions): Promise<HttpMcpServer> {
  const counter = { calls: 0 };
  const transports = new Map<string, Transport & { handleRequest?: unknown }>();
  const servers = new Set<Server>();
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (options.token && request.headers.authorization !== `Bearer ${options.token}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (options.mode === 'streamable' && url.pathname === '/mcp') {
      const sessionId = request.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (existing) {
        await (existing as StreamableHTTPServerTransport).handleRequest(request, response);
        return;
      }
      if (request.method === 'POST' && sessionId === undefined) {
        const body = await readBody(request);
        if (!isInitializeRequest(body)) {
          response.writeHead(400).end();
          return;
        }
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            transports.set(id, transport);
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) transports.delete(transport.sessionId);
        };
        const server = makeMcpServer(counter, options.flood === true);
        servers.add(server);
        await server.connect(transport);
        await transport.handleRequest(request, response, body);
        return;
      }
      response.writeHead(404).end();
      return;
    }
    if (options.mode === 'sse' && url.pathname === '/sse' && request.method === 'GET') {
      const transport = new SSEServerTransport('/messages', response);
      transports.set(transport.sessionId, transport);
      transport.onclose = () => transports.delete(transport.sessionId);
      const server = makeMcpServer(counter, options.flood === true);
      servers.add(server);
      await server.connect(transport);
      return;
    }
    if (options.mode === 'sse' && url.pathname === '/messages' && request.method === 'POST') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '') as
        | SSEServerTransport
        | undefined;
      if (!transport) {
        response.writeHead(404).end();
        return;
      }
      await transport.handlePostMessage(request, response);
      return;
    }
    // A legacy server does not know Streamable HTTP: a POST to its SSE URL is not allowed.
    response.writeHead(405).end();
  };
  const http: HttpServer = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/${options.mode === 'streamable' ? 'mcp' : 'sse'}`,
    port,
    get calls() {
      return counter.calls;
    },
    async close() {
      for (const server of servers) await server.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
