import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ArgumentValidator,
  canonicalizeSchema,
  isJsonObject,
  type JsonObject,
  type ToolAnnotations,
} from '@toolhost/contracts';
import type { ResolvedMcpServer } from './mcp-config.js';

/** One MCP tool as the proxy knows it: canonical schema, fingerprint and mapped hints. */
export interface McpToolSchema {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  /** The canonical input schema. */
  readonly inputSchema: JsonObject;
  readonly schemaHash: string;
  readonly schemaFingerprint: string;
  /** False when the schema does not compile; such a tool is called unvalidated and never cached. */
  readonly schemaValid: boolean;
  /** The server's hints mapped onto the contract's four (a hint the server did not give stays unknown). */
  readonly annotations: ToolAnnotations;
}

// MCP allows up to 128 characters; anything printable without whitespace.
const MCP_TOOL_NAME_PATTERN = /^[^\s\u0000-\u001f\u007f]{1,128}$/;
const CACHE_VERSION = 1;

/**
 * Normalises a server's `tools/list` entries: invalid names, non-object schemas and duplicates are
 * dropped (reported by count), schemas canonicalised and checked with the contract validator.
 */
export function normalizeMcpTools(
  raw: readonly unknown[],
  validator: ArgumentValidator | undefined,
  options: { readonly canonical?: boolean } = {},
): { readonly tools: McpToolSchema[]; readonly dropped: number } {
  const tools: McpToolSchema[] = [];
  const seen = new Set<string>();
  let dropped = 0;
  for (const item of raw) {
    const tool = normalizeOne(item, validator, options.canonical === true);
    if (!tool || seen.has(tool.name)) {
      dropped++;
      continue;
    }
    seen.add(tool.name);
    tools.push(tool);
  }
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools, dropped };
}

function normalizeOne(
  item: unknown,
  validator: ArgumentValidator | undefined,
  trustCanonical: boolean,
): McpToolSchema | undefined {
  if (!isJsonObject(item)) return undefined;
  const { name, title, description, inputSchema, annotations } = item;
  if (typeof name !== 'string' || !MCP_TOOL_NAME_PATTERN.test(name)) return undefined;
  if (inputSchema !== undefined && !isJsonObject(inputSchema)) return undefined;
  let canonical: JsonObject;
  try {
    // Cached schemas were canonical when written; canonicalising 600 of them again would dominate a cold `list`.
    canonical =
      trustCanonical && inputSchema !== undefined ? inputSchema : canonicalizeSchema(inputSchema ?? {});
  } catch {
    return undefined;
  }
  // A cached entry carries the hash computed when it was written; anything else is hashed here.
  const cachedHash = trustCanonical ? item.schemaHash : undefined;
  const schemaHash =
    typeof cachedHash === 'string' && /^[0-9a-f]{64}$/.test(cachedHash)
      ? cachedHash
      : createHash('sha256').update(JSON.stringify(canonical), 'utf8').digest('hex');
  // Validating `{}` compiles the schema once (cached by hash); `schemaValidated: false` means it did not
  // compile. Without a validator (cached tools, which were checked before they were written) the
  // schema is trusted here and compiled when a call first needs it.
  const probe = validator?.validate({
    toolName: name,
    source: 'mcp',
    schema: canonical,
    schemaHash,
    arguments: {},
  });
  const schemaValid = probe === undefined || !probe.ok || probe.value.schemaValidated;
  return {
    name,
    title: typeof title === 'string' && title.trim() ? title.trim() : undefined,
    description: typeof description === 'string' ? description.trim() : '',
    inputSchema: canonical,
    schemaHash,
    schemaFingerprint: schemaHash.slice(0, 16),
    schemaValid,
    annotations: mapAnnotations(annotations),
  };
}

/**
 * Maps MCP's `readOnlyHint` / `destructiveHint` / `idempotentHint` / `openWorldHint` (or the
 * contract's own spelling, as cached) onto the contract's four hints; a hint that is absent or not
 * a boolean stays unknown.
 */
export function mapAnnotations(raw: unknown): ToolAnnotations {
  if (!isJsonObject(raw)) return {};
  const pick = (mcpName: string, ownName: string): boolean | undefined => {
    const value = raw[mcpName] ?? raw[ownName];
    return typeof value === 'boolean' ? value : undefined;
  };
  const out: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean; openWorld?: boolean } = {};
  const readOnly = pick('readOnlyHint', 'readOnly');
  const destructive = pick('destructiveHint', 'destructive');
  const idempotent = pick('idempotentHint', 'idempotent');
  const openWorld = pick('openWorldHint', 'openWorld');
  if (readOnly !== undefined) out.readOnly = readOnly;
  if (destructive !== undefined) out.destructive = destructive;
  if (idempotent !== undefined) out.idempotent = idempotent;
  if (openWorld !== undefined) out.openWorld = openWorld;
  return out;
}

/** Where a server's schema cache lives: `<stateDir>/mcp-cache/<slug>.json`. */
export function schemaCachePath(stateDir: string, server: ResolvedMcpServer): string {
  return join(stateDir, 'mcp-cache', `${server.slug}.json`);
}

/**
 * Reads a server's cached tool schemas. A missing, unreadable or corrupt file, another format
 * version, or a key that does not match the server's current configuration all mean "no cache".
 * Schemas are not compiled here (they were checked before being written): reading 50 caches must
 * stay cheap, because `list` and `inspect` read them.
 */
export function readSchemaCache(stateDir: string, server: ResolvedMcpServer): McpToolSchema[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(schemaCachePath(stateDir, server), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed) || parsed.version !== CACHE_VERSION || parsed.key !== server.cacheKey)
    return undefined;
  if (!Array.isArray(parsed.tools)) return undefined;
  return normalizeMcpTools(parsed.tools, undefined, { canonical: true }).tools;
}

/**
 * Writes a server's tool schemas (only the ones whose schema compiles) atomically: a 0600 temp file
 * in the same directory, renamed over the old one. The file holds the cache key and the tools,
 * never an env or header value. Returns false instead of throwing: the cache is best effort.
 */
export function writeSchemaCache(
  stateDir: string,
  server: ResolvedMcpServer,
  tools: readonly McpToolSchema[],
): boolean {
  const file = schemaCachePath(stateDir, server);
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const body = {
    version: CACHE_VERSION,
    key: server.cacheKey,
    server: server.name,
    savedAt: new Date().toISOString(),
    tools: tools
      .filter((tool) => tool.schemaValid)
      .map((tool) => ({
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        description: tool.description,
        inputSchema: tool.inputSchema,
        schemaHash: tool.schemaHash,
        annotations: tool.annotations,
      })),
  };
  try {
    mkdirSync(join(stateDir, 'mcp-cache'), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, `${JSON.stringify(body)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
    return true;
  } catch {
    // Leave no temp file behind.
    rmSync(temporary, { force: true });
    return false;
  }
}
