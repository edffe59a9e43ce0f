/**
 * The largest JSON-RPC message `toolhost serve` accepts from a client, over stdio (one line) and
 * over HTTP (one request body), in bytes: 4 MiB, the MCP SDK's own limit for Streamable HTTP
 * bodies. A larger message is refused with a JSON-RPC error (`-32600`, the request's id when it
 * can be recovered, else `null`) and the server keeps serving; nothing larger is ever buffered.
 */
export const MAX_SERVE_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Requests one stdio client may have running at once. The SDK's `Server` starts every request the
 * moment it arrives, so without a cap a client writing 100,000 `tools/call` lines would start
 * 100,000 dispatches; past the cap a request is answered at once with `-32000` (busy) and reading
 * goes on, so `notifications/cancelled` for the running ones still gets through.
 */
export const MAX_SERVE_REQUESTS_IN_FLIGHT = 64;

/** JSON-RPC error codes `serve` answers with itself (the rest come from the MCP SDK). */
export const JSON_RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  /** Server error range: too many requests running. */
  busy: -32000,
} as const;

/** A JSON-RPC request id as the client sent it, or `null` when it cannot be known. */
export type JsonRpcId = string | number | null;

/** A JSON-RPC error response. */
export function jsonRpcError(
  id: JsonRpcId,
  code: number,
  message: string,
): {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string };
} {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** The message of the error for an over-large message. */
export function tooLargeMessage(limit: number): string {
  return `Invalid Request: the message is larger than ${limit} bytes, the limit of toolhost serve; it was not read (send smaller arguments)`;
}

/** Incremental scanner of an over-large message for its top-level `id`. */
export interface JsonRpcIdScanner {
  /** Feeds the next bytes of the message (never a newline of the framing). */
  feed(bytes: Uint8Array): void;
  /** The top-level `id` once seen (a string of at most 256 bytes or a number), else `null`. */
  id(): JsonRpcId;
}

const MAX_ID_BYTES = 256;
// Past this many bytes the id search gives up (the id is then unknown): the bytes are still read and
// dropped, but no longer looked at, so an endless line costs reading only.
const MAX_SCANNED_BYTES = 64 * 1024 * 1024;

/**
 * Finds the top-level `"id"` of a JSON-RPC message without holding the message: a small state
 * machine over the bytes (string and escape state, nesting depth, the key at depth 1), O(1) memory
 * whatever the size, so an over-large request can still be answered with its own id. Written here
 * because no streaming JSON parser in the catalog stops at one key without building the value.
 * Ids inside nested values (`params.arguments.id`) are never taken; an id that is not a string or
 * a number, one longer than 256 bytes, or one not seen in the first 64 MiB counts as unknown
 * (`null`). String content is skipped with native `indexOf` (about 1 ms per MB).
 */
export function createJsonRpcIdScanner(): JsonRpcIdScanner {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let expectKey = false;
  let stringIsKey = false;
  let key: number[] = [];
  let awaitingColon = false;
  let lastKeyIsId = false;
  let valueIsId = false;
  let capture: 'none' | 'string' | 'number' = 'none';
  let captured: number[] = [];
  let found: JsonRpcId | undefined;
  let scanned = 0;

  function finishNumber(): void {
    if (capture !== 'number') return;
    capture = 'none';
    const value = Number(Buffer.from(captured).toString('latin1'));
    found = Number.isFinite(value) ? value : null;
  }

  function feedByte(byte: number): void {
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) {
        inString = false;
        if (stringIsKey) {
          stringIsKey = false;
          lastKeyIsId = key.length === 2 && key[0] === 0x69 && key[1] === 0x64;
          awaitingColon = true;
          return;
        }
        if (capture === 'string') {
          capture = 'none';
          try {
            found = JSON.parse(`"${Buffer.from(captured).toString('utf8')}"`) as string;
          } catch {
            found = null;
          }
        }
        return;
      }
      if (stringIsKey && key.length <= 2) key.push(byte);
      if (capture === 'string') {
        if (captured.length >= MAX_ID_BYTES) {
          capture = 'none';
          found = null;
        } else captured.push(byte);
      }
      return;
    }
    switch (byte) {
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        finishNumber();
        return;
      case 0x22: // "
        inString = true;
        stringIsKey = depth === 1 && expectKey;
        expectKey = false;
        if (stringIsKey) key = [];
        if (depth === 1 && valueIsId) {
          valueIsId = false;
          capture = 'string';
          captured = [];
        }
        return;
      case 0x3a: // :
        if (depth === 1 && awaitingColon) {
          awaitingColon = false;
          valueIsId = lastKeyIsId;
        }
        return;
      case 0x7b: // {
      case 0x5b: // [
        if (depth === 1 && valueIsId) {
          valueIsId = false;
          found = null;
        }
        depth++;
        if (depth === 1) expectKey = byte === 0x7b;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        finishNumber();
        depth--;
        return;
      case 0x2c: // ,
        finishNumber();
        if (depth === 1) expectKey = true;
        return;
      default:
        if (depth === 1 && valueIsId) {
          valueIsId = false;
          if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) {
            capture = 'number';
            captured = [byte];
          } else found = null;
          return;
        }
        if (capture === 'number') {
          if (captured.length >= 32) {
            capture = 'none';
            found = null;
          } else captured.push(byte);
        }
    }
  }

  return {
    feed(bytes) {
      scanned += bytes.length;
      if (scanned > MAX_SCANNED_BYTES && found === undefined) found = null;
      let index = 0;
      while (index < bytes.length && found === undefined) {
        if (inString && !escaped && !stringIsKey && capture === 'none') {
          // The bulk of a huge message is string content: jump to the next quote or backslash
          // natively instead of looking at every byte.
          const quote = bytes.indexOf(0x22, index);
          const backslash = bytes.indexOf(0x5c, index);
          const next = quote === -1 ? backslash : backslash === -1 ? quote : Math.min(quote, backslash);
          if (next === -1) return;
          index = next;
        }
        feedByte(bytes[index]!);
        index++;
      }
    },
    id() {
      if (found === undefined) finishNumber();
      return found ?? null;
    },
  };
}
