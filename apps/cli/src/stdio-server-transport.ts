import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { parseJsonRpcMessage } from './json-rpc-message.js';
import {
  createJsonRpcIdScanner,
  JSON_RPC_ERRORS,
  type JsonRpcId,
  type JsonRpcIdScanner,
  jsonRpcError,
  MAX_SERVE_MESSAGE_BYTES,
  MAX_SERVE_REQUESTS_IN_FLIGHT,
  tooLargeMessage,
} from './json-rpc-limits.js';

/** Where a stdio server writes: a `Writable`, or anything with its `write` (and optionally `drain`). */
export interface StdioServerOutput {
  write(chunk: string): boolean;
  once?(event: 'drain', listener: () => void): unknown;
  readonly destroyed?: boolean;
  readonly writableEnded?: boolean;
}

/** Options of {@link createStdioServerTransport}. */
export interface StdioServerTransportOptions {
  readonly stdin: Readable;
  readonly stdout: StdioServerOutput;
  /** The largest message (one line) accepted, in bytes; default {@link MAX_SERVE_MESSAGE_BYTES}. */
  readonly maxMessageBytes?: number;
  /** Requests running at once before more are answered busy; default {@link MAX_SERVE_REQUESTS_IN_FLIGHT}. */
  readonly maxRequestsInFlight?: number;
}

/**
 * The server side of MCP over stdio, in place of the SDK's `StdioServerTransport`, which closes the
 * whole connection (and so ends `toolhost serve`) when one message is larger than its 10 MB read
 * buffer, copies the buffer on every chunk, and answers nothing to a line that is not JSON-RPC.
 * Here every line is its own fate:
 * - a line over the limit is never buffered: its bytes are scanned for the request's `id` and
 *   dropped, then answered with `-32600` (the id, or `null`), and the next line is served;
 * - a line that is not JSON is answered `-32700` (id `null`); a JSON-RPC batch (an array; MCP
 *   2025-06-18 has none) and a request that is not valid JSON-RPC are answered `-32600`;
 * - at most `maxRequestsInFlight` requests run at once; one more is answered `-32000` (busy) at once;
 * - everything else goes to the SDK's `Server` as before (checked without the SDK's zod schemas, so
 *   reading needs no SDK module: see json-rpc-message.ts).
 * Lines are assembled from a chunk list (one copy per line). Writes keep their order and wait for
 * `drain`.
 */
export function createStdioServerTransport(options: StdioServerTransportOptions): Transport {
  const maxBytes = options.maxMessageBytes ?? MAX_SERVE_MESSAGE_BYTES;
  const maxInFlight = options.maxRequestsInFlight ?? MAX_SERVE_REQUESTS_IN_FLIGHT;
  // Ids of requests delivered to the server and not answered yet.
  const inFlight = new Set<string | number>();
  const { stdin, stdout } = options;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Set while the rest of an over-large line is skipped.
  let skipping: JsonRpcIdScanner | undefined;
  let started = false;
  let closed = false;

  const transport: Transport = {
    async start() {
      if (started) throw new Error('the stdio server transport is already started');
      started = true;
      stdin.on('data', onData);
      stdin.on('error', onError);
    },
    send(message) {
      const record = message as { id?: unknown; method?: unknown };
      if (record.method === undefined && (typeof record.id === 'string' || typeof record.id === 'number')) {
        inFlight.delete(record.id);
      }
      return write(message);
    },
    async close() {
      if (closed) return;
      closed = true;
      stdin.off('data', onData);
      stdin.off('error', onError);
      if (stdin.listenerCount('data') === 0) stdin.pause();
      pending = [];
      pendingBytes = 0;
      skipping = undefined;
      transport.onclose?.();
    },
  };

  function write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (closed || stdout.destroyed || stdout.writableEnded) {
        resolve();
        return;
      }
      if (stdout.write(`${JSON.stringify(message)}\n`) || !stdout.once) resolve();
      else stdout.once('drain', () => resolve());
    });
  }

  function refuse(id: JsonRpcId, code: number, message: string): void {
    void write(jsonRpcError(id, code, message));
  }

  function onError(error: Error): void {
    transport.onerror?.(error);
  }

  function onData(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < bytes.length && !closed) {
      const newline = bytes.indexOf(10, start);
      const end = newline === -1 ? bytes.length : newline;
      const piece = bytes.subarray(start, end);
      if (skipping) {
        skipping.feed(piece);
      } else if (pendingBytes + piece.length > maxBytes) {
        // Over the limit: scan what was kept and what follows for the id, and keep nothing.
        skipping = createJsonRpcIdScanner();
        for (const part of pending) skipping.feed(part);
        skipping.feed(piece);
        pending = [];
        pendingBytes = 0;
      } else if (piece.length > 0) {
        pending.push(piece);
        pendingBytes += piece.length;
      }
      if (newline === -1) return;
      start = newline + 1;
      if (skipping) {
        const id = skipping.id();
        skipping = undefined;
        transport.onerror?.(new Error(`refused a message larger than ${maxBytes} bytes`));
        refuse(id, JSON_RPC_ERRORS.invalidRequest, tooLargeMessage(maxBytes));
        continue;
      }
      const line = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      onLine(line);
    }
  }

  function onLine(line: Buffer): void {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      refuse(null, JSON_RPC_ERRORS.parseError, 'Parse error: the line is not JSON');
      return;
    }
    if (Array.isArray(value)) {
      refuse(
        null,
        JSON_RPC_ERRORS.invalidRequest,
        'Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line',
      );
      return;
    }
    const message = parseJsonRpcMessage(value);
    if (!message) {
      const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      const id = typeof record.id === 'string' || typeof record.id === 'number' ? record.id : null;
      // A malformed notification or response gets no answer (JSON-RPC answers requests only).
      if (typeof record.method === 'string' && record.id === undefined) return;
      refuse(
        id,
        JSON_RPC_ERRORS.invalidRequest,
        'Invalid Request: the message is not a valid JSON-RPC 2.0 message',
      );
      return;
    }
    const request = message as { id?: unknown; method?: unknown };
    if (
      typeof request.method === 'string' &&
      (typeof request.id === 'string' || typeof request.id === 'number')
    ) {
      if (inFlight.size >= maxInFlight) {
        refuse(
          request.id,
          JSON_RPC_ERRORS.busy,
          `Server busy: ${maxInFlight} requests are already running; wait for an answer before sending more`,
        );
        return;
      }
      inFlight.add(request.id);
    }
    transport.onmessage?.(message);
  }

  return transport;
}
