import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { isJsonObject, sha256Hex } from './json-utils.js';
import type { DialectName } from './ir.js';

/** Fingerprints of a request's cacheable prefix: 16 hex characters of SHA-256 each. */
export interface PrefixFingerprint {
  /** System and tools together: changes whenever the provider's prompt cache would miss on the prefix. */
  readonly prefix: string;
  readonly system: string;
  readonly tools: string;
}

/** 16 hex characters of SHA-256 of the exact JSON bytes of a value (key order included, as sent). */
export function fingerprintValue(value: JsonValue | undefined): string {
  return sha256Hex(JSON.stringify(value ?? null)).slice(0, 16);
}

/**
 * Fingerprints the prefix of a built request body that providers cache (tools and system
 * instructions): hosts assert in CI that it stays byte-identical across
 * turns and MCP inventory changes. Exact bytes are hashed, so a key-order change counts as a
 * change, as it does for the provider's cache.
 */
export function fingerprint(body: JsonObject, dialect: DialectName): PrefixFingerprint {
  const tools = body.tools ?? null;
  const system = systemOf(body, dialect);
  return {
    prefix: fingerprintValue([system, tools]),
    system: fingerprintValue(system),
    tools: fingerprintValue(tools),
  };
}

function systemOf(body: JsonObject, dialect: DialectName): JsonValue {
  switch (dialect) {
    case 'openai-chat':
      return leading(body.messages);
    case 'openai-responses':
      return [body.instructions ?? null, leading(body.input)];
    case 'anthropic':
      return body.system ?? null;
    case 'gemini':
      return [body.systemInstruction ?? null, body.toolConfig ?? null];
  }
}

function leading(items: JsonValue | undefined): JsonValue {
  if (!Array.isArray(items)) return [];
  const out: JsonValue[] = [];
  for (const item of items) {
    if (!isJsonObject(item) || (item.role !== 'system' && item.role !== 'developer')) break;
    out.push(item);
  }
  return out;
}
