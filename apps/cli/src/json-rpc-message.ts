import { isObject as isRecord } from '@toolhost/contracts';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

// The MCP SDK's `JSONRPCMessageSchema` is a zod schema, and importing it loads zod (about a hundred
// modules) before `serve` can answer anything. These checks accept exactly what it accepts (a test
// holds them to the installed SDK's schema over a table of messages), by hand.

const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

function isRequestId(value: unknown): boolean {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function hasOnly(record: Record<string, unknown>, keys: readonly string[]): boolean {
  return Object.keys(record).every((key) => keys.includes(key));
}

/** `_meta` of request and notification params and of results: a loose object with typed known keys. */
function isMeta(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isRecord(value)) return false;
  if (value.progressToken !== undefined && !isRequestId(value.progressToken)) return false;
  const related = value[RELATED_TASK_META_KEY];
  if (related !== undefined && !(isRecord(related) && typeof related.taskId === 'string')) return false;
  return true;
}

function isParams(value: unknown): boolean {
  return value === undefined || (isRecord(value) && isMeta(value._meta));
}

/**
 * The message when `value` is a valid JSON-RPC 2.0 message as MCP defines it (a request, a
 * notification, a result or an error response, no extra top-level keys), else `undefined`.
 */
export function parseJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return undefined;
  if ('method' in value) {
    if (typeof value.method !== 'string' || !isParams(value.params)) return undefined;
    if ('id' in value) {
      return isRequestId(value.id) && hasOnly(value, ['jsonrpc', 'id', 'method', 'params'])
        ? (value as JSONRPCMessage)
        : undefined;
    }
    return hasOnly(value, ['jsonrpc', 'method', 'params']) ? (value as JSONRPCMessage) : undefined;
  }
  if ('result' in value) {
    return isRequestId(value.id) &&
      isRecord(value.result) &&
      isMeta(value.result._meta) &&
      hasOnly(value, ['jsonrpc', 'id', 'result'])
      ? (value as JSONRPCMessage)
      : undefined;
  }
  if ('error' in value) {
    const { error } = value;
    return (value.id === undefined || isRequestId(value.id)) &&
      isRecord(error) &&
      typeof error.code === 'number' &&
      Number.isInteger(error.code) &&
      typeof error.message === 'string' &&
      hasOnly(value, ['jsonrpc', 'id', 'error'])
      ? (value as JSONRPCMessage)
      : undefined;
  }
  return undefined;
}
