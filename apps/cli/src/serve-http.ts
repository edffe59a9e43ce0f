import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '@toolhost/contracts';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { connectMcpServer } from './mcp-server.js';
import { createBoundedEventStore } from './sse-event-store.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  createJsonRpcIdScanner,
  JSON_RPC_ERRORS,
  type JsonRpcId,
  MAX_SERVE_MESSAGE_BYTES,
  tooLargeMessage,
} from './json-rpc-limits.js';

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  /** The TCP port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /**
   * Makes the MCP server of one new MCP session, over its own toolhost session; `dispose` ends that
   * session (on DELETE, when its transport closes, after the idle timeout and at shutdown).
   */
  readonly openSession: () => Promise<{ readonly server: Server; dispose(): Promise<void> }>;
  /** Largest request body accepted, in bytes; default {@link MAX_SERVE_MESSAGE_BYTES} (4 MiB). */
  readonly maxBodyBytes?: number;
  /** An MCP session without requests for this long is closed (its toolhost session too); default 30 min. */
  readonly idleTimeoutMs?: number;
  /**
   * More browser origins allowed besides this server's own, for clients served from other loopback
   * ports (`http://localhost:5173`). Only loopback origins are accepted ({@link parseAllowedOrigin}).
   */
  readonly allowedOrigins?: readonly string[];
  /** The `retry` interval (ms) a client is told in the priming event of every event stream; default 1000. */
  readonly retryIntervalMs?: number;
}

/**
 * Checks an `--allow-origin` value: an `http` or `https` origin on a loopback name (`127.0.0.1`,
 * `localhost`, `[::1]`) with an optional port, nothing else (no path). A site on another host could
 * drive the server with the person's machine otherwise, so anything else is refused. Returns the
 * normalised origin, or the reason it is refused.
 */
export function parseAllowedOrigin(
  value: string,
): { ok: true; origin: string } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'is not a URL origin such as http://localhost:5173' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'must be http or https' };
  if (!LOOPBACK_HOSTNAMES.has(url.hostname.toLowerCase())) {
    return {
      ok: false,
      reason: 'must be a loopback origin (127.0.0.1, localhost or [::1]); other hosts are refused',
    };
  }
  if (
    url.username ||
    url.password ||
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search ||
    url.hash
  ) {
    return { ok: false, reason: 'must be an origin only (scheme, host and port), without a path' };
  }
  return { ok: true, origin: url.origin.toLowerCase() };
}

/** A running Streamable HTTP endpoint. */
export interface HttpServerHandle {
  /** `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Closes every session and the listener. Idempotent. */
  close(): Promise<void>;
}

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
const MCP_PATH = '/mcp';

function hostnameOf(hostHeader: string): string {
  // `[::1]:8080` keeps its brackets; `127.0.0.1:8080` and `localhost` lose the port.
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  return (hostHeader.split(':')[0] ?? '').toLowerCase();
}

/**
 * Whether a request may reach the server (DNS-rebinding protection, as the MCP transport spec asks
 * of local servers). The Host header must name a loopback host, so a page that rebinds its own
 * domain to 127.0.0.1 is refused; an Origin header, which browsers always send on cross-origin
 * requests, must be this very server (`http://127.0.0.1:PORT`, `http://localhost:PORT` or
 * `http://[::1]:PORT`). Clients that are not browsers send no Origin and are allowed.
 *
 * Hand-written rather than the SDK's Express middleware: the listener is plain `node:http`, and the
 * transport's own `allowedHosts`/`allowedOrigins` options are deprecated.
 */
export function checkRequestOrigin(
  headers: { readonly host?: string | undefined; readonly origin?: string | undefined },
  port: number,
  allowedOrigins: readonly string[] = [],
): { ok: true } | { ok: false; reason: string } {
  if (!headers.host || !LOOPBACK_HOSTNAMES.has(hostnameOf(headers.host))) {
    return { ok: false, reason: 'the Host header does not name this loopback server' };
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    const allowed = [
      ...[...LOOPBACK_HOSTNAMES].map((hostname) => `http://${hostname}:${port}`),
      ...allowedOrigins,
    ];
    if (!allowed.includes(origin.toLowerCase())) {
      return {
        ok: false,
        reason:
          'the Origin is not this server; cross-origin requests are refused (allow a loopback origin with --allow-origin)',
      };
    }
  }
  return { ok: true };
}

function sendJsonRpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: JsonRpcId = null,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

// An over-large body is read on (and dropped) only to find its id; past this many bytes the
// connection is closed instead, so an endless body cannot keep the server reading.
const MAX_SCANNED_BODY_FACTOR = 16;

function readBody(
  request: IncomingMessage,
  limit: number,
): Promise<
  { readonly text: string } | { readonly tooLarge: true; readonly id: JsonRpcId; readonly ended: boolean }
> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let scanner: ReturnType<typeof createJsonRpcIdScanner> | undefined;
    const onData = (bytes: Buffer) => {
      size += bytes.length;
      if (scanner) {
        scanner.feed(bytes);
        if (size > limit * MAX_SCANNED_BODY_FACTOR) {
          // Stop reading (not destroy: the answer still has to go out on this socket).
          request.off('data', onData);
          request.off('end', onEnd);
          request.pause();
          resolve({ tooLarge: true, id: scanner.id(), ended: false });
        }
        return;
      }
      if (size > limit) {
        // Keep nothing more: scan what was kept and the rest for the request's id.
        scanner = createJsonRpcIdScanner();
        for (const kept of chunks) scanner.feed(kept);
        scanner.feed(bytes);
        chunks.length = 0;
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => {
      if (scanner) resolve({ tooLarge: true, id: scanner.id(), ended: true });
      else resolve({ text: Buffer.concat(chunks).toString('utf8') });
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}

/**
 * Serves MCP over Streamable HTTP at `http://127.0.0.1:PORT/mcp`, bound to the loopback interface
 * only, with one MCP server and one toolhost session per MCP session (`Mcp-Session-Id`), ended on
 * DELETE or after `idleTimeoutMs` without requests. Requests failing
 * {@link checkRequestOrigin} get 403 before anything is parsed; unknown sessions get 404, requests
 * without a session that are not `initialize` get 400, other paths 404. A body over the limit gets
 * 413 with a JSON-RPC error (`-32600`, the request's id when it can be found in the body, else
 * `null`); the body is never buffered, and the server and the session keep serving.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_SERVE_MESSAGE_BYTES;
  const allowedOrigins = (options.allowedOrigins ?? []).map((origin) => {
    const parsed = parseAllowedOrigin(origin);
    if (!parsed.ok) throw new TypeError(`allowed origin ${JSON.stringify(origin)} ${parsed.reason}`);
    return parsed.origin;
  });
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60 * 1000;
  interface OpenMcpSession {
    readonly transport: StreamableHTTPServerTransport;
    readonly server: Server;
    dispose(): Promise<void>;
    lastActive: number;
  }
  const sessions = new Map<string, OpenMcpSession>();
  const disposing = new Set<Promise<void>>();
  const end = (id: string, session: OpenMcpSession) => {
    if (sessions.get(id) !== session) return;
    sessions.delete(id);
    const done = (async () => {
      await session.server.close().catch(() => undefined);
      await session.dispose().catch(() => undefined);
    })();
    disposing.add(done);
    void done.finally(() => disposing.delete(done));
  };
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) if (now - session.lastActive > idleTimeoutMs) end(id, session);
    },
    Math.min(60_000, Math.max(50, Math.floor(idleTimeoutMs / 4))),
  );
  sweeper.unref();
  let port = options.port;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const verdict = checkRequestOrigin(
      { host: request.headers.host, origin: request.headers.origin },
      port,
      allowedOrigins,
    );
    if (!verdict.ok) return sendJsonRpcError(response, 403, -32000, `Forbidden: ${verdict.reason}`);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== MCP_PATH)
      return sendJsonRpcError(response, 404, -32000, `Not found: the endpoint is ${MCP_PATH}`);

    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    let body: unknown;
    if (request.method === 'POST') {
      const read = await readBody(request, maxBodyBytes);
      if ('tooLarge' in read) {
        sendJsonRpcError(
          response,
          413,
          JSON_RPC_ERRORS.invalidRequest,
          tooLargeMessage(maxBodyBytes),
          read.id,
          read.ended ? {} : { connection: 'close' },
        );
        if (!read.ended) response.once('finish', () => request.socket.destroy());
        return;
      }
      try {
        body = JSON.parse(read.text);
      } catch {
        return sendJsonRpcError(response, 400, -32700, 'Parse error: the body is not JSON');
      }
    }
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return sendJsonRpcError(response, 404, -32001, 'Session not found');
      session.lastActive = Date.now();
      return session.transport.handleRequest(request, response, body);
    }
    const initializing =
      request.method === 'POST' &&
      (isInitializeRequest(body) ||
        (Array.isArray(body) && body.some((message) => isInitializeRequest(message))));
    if (!initializing) {
      return sendJsonRpcError(response, 400, -32000, 'Bad Request: no valid session; send initialize first');
    }
    const opened = await options.openSession();
    let registered: OpenMcpSession | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Every event stream opens with a priming event carrying an id and `retry`, so a client whose
      // stream breaks reconnects after that interval and is sent what it missed (Last-Event-ID).
      eventStore: createBoundedEventStore(),
      retryInterval: options.retryIntervalMs ?? 1_000,
      onsessioninitialized: (id) => {
        registered = { transport, server: opened.server, dispose: opened.dispose, lastActive: Date.now() };
        sessions.set(id, registered);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId && registered) end(transport.sessionId, registered);
    };
    await connectMcpServer(opened.server, transport);
    await transport.handleRequest(request, response, body);
    // An initialize that did not create a session (refused by the transport) leaves nothing open.
    if (!registered) await opened.dispose();
  };

  const listener = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      sendJsonRpcError(response, 500, -32603, `Internal error: ${errorMessage(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(options.port, '127.0.0.1', () => {
      listener.off('error', reject);
      resolve();
    });
  });
  port = (listener.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    port,
    close() {
      closing ??= (async () => {
        clearInterval(sweeper);
        for (const [id, session] of [...sessions]) end(id, session);
        await Promise.allSettled([...disposing]);
        await new Promise<void>((resolve) => {
          listener.close(() => resolve());
          listener.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
