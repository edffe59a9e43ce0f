import type { Readable } from 'node:stream';
import { isObject } from '@toolhost/contracts';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Session } from '@toolhost/boot';
import { initializeResult, mcpTools } from './mcp-surface.js';
import { createStdioServerTransport, type StdioServerOutput } from './stdio-server-transport.js';

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions {
  readonly session: Session;
  readonly stdin: Readable;
  readonly stdout: StdioServerOutput;
  /** Ends serving (as stdin ending does). */
  readonly signal: AbortSignal;
  readonly version: string;
  /**
   * How long after answering `initialize` the MCP SDK starts loading when no `tools/list` came
   * first; default 200 ms. Any request the front does not answer itself loads it at once.
   */
  readonly sdkDelayMs?: number;
  /** Called with the SDK's server once it is created (before it sees any message): for elicitation. */
  readonly onServer?: (server: Server) => void;
}

type Request = { readonly id: string | number; readonly method: string; readonly params?: unknown };

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & Request {
  const record = message as { id?: unknown; method?: unknown };
  return (
    typeof record.method === 'string' && (typeof record.id === 'string' || typeof record.id === 'number')
  );
}

/** Whether an `initialize` request is well formed enough to be answered without the SDK's schemas. */
function isPlainInitialize(params: unknown): params is { protocolVersion: string } {
  if (!isObject(params) || typeof params.protocolVersion !== 'string' || !isObject(params.capabilities))
    return false;
  const info = params.clientInfo;
  return isObject(info) && typeof info.name === 'string' && typeof info.version === 'string';
}

/** Whether a `tools/list` request is one the front may answer (no params, or only a cursor and `_meta`). */
function isPlainToolsList(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isObject(params)) return false;
  return Object.keys(params).every(
    (key) =>
      (key === 'cursor' && typeof params.cursor === 'string') || (key === '_meta' && isObject(params._meta)),
  );
}

/**
 * Serves one session as an MCP server over stdio until stdin ends or `signal` aborts, then closes
 * the server (the caller closes the host).
 *
 * Start-up is the point: MCP clients drop a server that is not ready within their start-up grace,
 * and the SDK's `Server` with its zod schemas and ajv costs more than the rest of `serve`. So a small
 * front answers `initialize`, `ping` and `tools/list` itself, from the session alone (what the
 * SDK's `Server` would answer: the same capabilities, instructions, negotiated protocol version and
 * tool list, see mcp-surface.ts), and the SDK loads only after that. Once loaded, the SDK's server is
 * given the `initialize` request again (its answer is dropped: the client has it), so it knows the
 * client's capabilities, then every message queued meanwhile in order, then all traffic. A message the
 * front does not answer (a `tools/call`, a malformed `initialize`) loads the SDK at once and waits for it.
 */
export async function serveStdio(options: ServeStdioOptions): Promise<void> {
  const { session } = options;
  const outer = createStdioServerTransport({ stdin: options.stdin, stdout: options.stdout });
  const queue: JSONRPCMessage[] = [];
  let initialize: Request | undefined;
  let answeredInitialize = false;
  let inner: Transport | undefined;
  let loading: Promise<void> | undefined;
  let server: { close(): Promise<void> } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  // Ids of responses of the SDK's server that the client must not see (the replayed `initialize`).
  const dropped = new Set<string | number>();

  const answer = (id: string | number, result: unknown) => {
    void outer.send({ jsonrpc: '2.0', id, result } as JSONRPCMessage).catch(() => undefined);
  };

  const loadSdk = (): Promise<void> => {
    clearTimeout(timer);
    loading ??= (async () => {
      const { connectMcpServer, createMcpServer } = await import('./mcp-server.js');
      if (ended) return;
      const mcp = createMcpServer(session, { version: options.version });
      options.onServer?.(mcp);
      const transport: Transport = {
        async start() {},
        send(message, sendOptions) {
          const record = message as { id?: unknown; method?: unknown };
          if (
            record.method === undefined &&
            (typeof record.id === 'string' || typeof record.id === 'number')
          ) {
            if (dropped.delete(record.id)) return Promise.resolve();
          }
          return outer.send(message, sendOptions);
        },
        async close() {
          await outer.close();
        },
      };
      await connectMcpServer(mcp, transport);
      server = mcp;
      inner = transport;
      if (initialize) {
        dropped.add(initialize.id);
        transport.onmessage?.(initialize as JSONRPCMessage);
      }
      for (const message of queue.splice(0)) transport.onmessage?.(message);
    })();
    return loading;
  };

  const front = (message: JSONRPCMessage): void => {
    if (inner) {
      inner.onmessage?.(message);
      return;
    }
    if (isRequest(message)) {
      if (message.method === 'initialize' && !answeredInitialize && isPlainInitialize(message.params)) {
        initialize = message;
        answeredInitialize = true;
        answer(
          message.id,
          initializeResult(session, {
            requestedVersion: message.params.protocolVersion,
            version: options.version,
          }),
        );
        timer = setTimeout(() => void loadSdk().catch(fail), options.sdkDelayMs ?? 200);
        return;
      }
      if (message.method === 'ping') {
        answer(message.id, {});
        return;
      }
      if (message.method === 'tools/list' && answeredInitialize && isPlainToolsList(message.params)) {
        // One page: the surface is small and fixed, so there is never a next cursor.
        answer(message.id, { tools: mcpTools(session) });
        // After the answer is written: loading the SDK must not delay it.
        setImmediate(() => void loadSdk().catch(fail));
        return;
      }
    }
    queue.push(message);
    void loadSdk().catch(fail);
  };

  const done = new Promise<void>((resolve) => {
    const end = () => {
      ended = true;
      resolve();
    };
    outer.onclose = () => {
      inner?.onclose?.();
      end();
    };
    outer.onerror = (error) => inner?.onerror?.(error);
    options.stdin.once('end', end);
    options.stdin.once('close', end);
    if (options.signal.aborted) end();
    else options.signal.addEventListener('abort', end, { once: true });
  });

  let failure: unknown;
  function fail(error: unknown): void {
    // The SDK could not be loaded or connected: nothing more can be served.
    failure ??= error;
    void outer.close();
  }

  outer.onmessage = front;
  await outer.start();
  await done;
  clearTimeout(timer);
  await loading?.catch(() => undefined);
  await server?.close();
  if (failure !== undefined) throw failure;
}
