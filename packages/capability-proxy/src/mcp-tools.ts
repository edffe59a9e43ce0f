import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ArgumentValidator,
  canonicalizeSchema,
  isJsonObject,
  isSchemaTooDeepError,
  type JsonObject,
  MAX_SCHEMA_DEPTH,
  type ToolAnnotations,
} from '@toolhost/contracts';
import type { ResolvedMcpServer } from './mcp-config.js';
import {
  type McpServerContent,
  normalizePrompts,
  normalizeResources,
  normalizeTemplates,
  UNKNOWN_CONTENT,
} from './mcp-resources.js';

/** One MCP tool as the proxy knows it: canonical schema, fingerprint and mapped hints. */
export interface McpToolSchema {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  /** The canonical input schema (the empty object schema for an unusable tool). */
  readonly inputSchema: JsonObject;
  readonly schemaHash: string;
  readonly schemaFingerprint: string;
  /** False when the schema does not compile; such a tool is called unvalidated and never cached. */
  readonly schemaValid: boolean;
  /**
   * Why the tool cannot be called at all (value-free, for the model: "its input schema nests deeper
   * than 128 levels ..."), or undefined. Such a tool is listed with the reason, refused when called,
   * and never cached; the server's other tools are unaffected.
   */
  readonly unusable?: string | undefined;
  /** The server's hints mapped onto the contract's four (a hint the server did not give stays unknown). */
  readonly annotations: ToolAnnotations;
}

/** Bounds on what one server's `tools/list` may make the proxy keep. */
export const MCP_TOOL_LIMITS = {
  /** Tools kept per server; entries beyond are ignored (and counted). */
  maxTools: 1_000,
  /** `tools/list` pages read per listing; a server that keeps sending cursors is cut off here. */
  maxPages: 100,
  /** A description longer than this many characters is cut (with a note); titles at 256. */
  maxDescriptionChars: 8_192,
  /** A canonical input schema larger than this (UTF-8 bytes of its JSON) makes the tool unusable. */
  maxSchemaBytes: 128 * 1024,
} as const;

/** What {@link normalizeMcpTools} returns. */
export interface NormalizedMcpTools {
  readonly tools: McpToolSchema[];
  /** Entries dropped: not an object, no valid name, or a duplicate name. */
  readonly dropped: number;
  /** Entries beyond {@link MCP_TOOL_LIMITS}.maxTools, ignored. */
  readonly overflow: number;
}

// MCP allows up to 128 characters; anything printable without whitespace.
const MCP_TOOL_NAME_PATTERN = /^[^\s\u0000-\u001f\u007f]{1,128}$/;
const CACHE_VERSION = 1;
const EMPTY_SCHEMA: JsonObject = Object.freeze({
  properties: Object.freeze({}),
  type: 'object',
}) as JsonObject;
const EMPTY_SCHEMA_HASH = createHash('sha256').update(JSON.stringify(EMPTY_SCHEMA), 'utf8').digest('hex');

/**
 * Normalises a server's `tools/list` entries one by one, so one bad tool never costs the others:
 * entries that are not objects, have an invalid name or repeat a name are dropped (counted); a tool
 * without `inputSchema` (the spec requires one, but its absence has one meaning: no declared
 * parameters) gets the empty object schema, as the canonicaliser gives any missing schema; a tool
 * whose `inputSchema` is not an object, nests deeper than the contract's `MAX_SCHEMA_DEPTH` or is
 * larger than {@link MCP_TOOL_LIMITS}.maxSchemaBytes is kept but marked `unusable` with the reason;
 * descriptions and titles are bounded; at most {@link MCP_TOOL_LIMITS}.maxTools are kept. Schemas are
 * canonicalised and checked with the contract validator.
 */
export function normalizeMcpTools(
  raw: readonly unknown[],
  validator: ArgumentValidator | undefined,
  options: { readonly canonical?: boolean } = {},
): NormalizedMcpTools {
  const tools: McpToolSchema[] = [];
  const seen = new Set<string>();
  let dropped = 0;
  let overflow = 0;
  for (const item of raw) {
    if (tools.length >= MCP_TOOL_LIMITS.maxTools) {
      overflow++;
      continue;
    }
    const tool = normalizeOne(item, validator, options.canonical === true);
    if (!tool || seen.has(tool.name)) {
      dropped++;
      continue;
    }
    seen.add(tool.name);
    tools.push(tool);
  }
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools, dropped, overflow };
}

function normalizeOne(
  item: unknown,
  validator: ArgumentValidator | undefined,
  trustCanonical: boolean,
): McpToolSchema | undefined {
  if (!isJsonObject(item)) return undefined;
  const { name, title, description, inputSchema, annotations } = item;
  if (typeof name !== 'string' || !MCP_TOOL_NAME_PATTERN.test(name)) return undefined;
  const base = {
    name,
    title: typeof title === 'string' && title.trim() ? boundedText(title.trim(), 256) : undefined,
    description:
      typeof description === 'string'
        ? boundedText(description.trim(), MCP_TOOL_LIMITS.maxDescriptionChars)
        : '',
    annotations: mapAnnotations(annotations),
  };
  const unusable = (reason: string): McpToolSchema => ({
    ...base,
    inputSchema: EMPTY_SCHEMA,
    schemaHash: EMPTY_SCHEMA_HASH,
    schemaFingerprint: EMPTY_SCHEMA_HASH.slice(0, 16),
    schemaValid: false,
    unusable: reason,
  });
  if (inputSchema !== undefined && inputSchema !== null && !isJsonObject(inputSchema)) {
    return unusable('its inputSchema is not a JSON object, so no arguments can be valid for it');
  }
  let canonical: JsonObject;
  try {
    // Cached schemas were canonical when written; canonicalising 600 of them again would dominate a cold `list`.
    canonical =
      trustCanonical && isJsonObject(inputSchema) ? inputSchema : canonicalizeSchema(inputSchema ?? {});
  } catch (error) {
    if (isSchemaTooDeepError(error)) {
      return unusable(
        `its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels (objects and arrays), the limit for tool schemas`,
      );
    }
    return unusable('its input schema cannot be read as a JSON Schema');
  }
  // A cached entry carries the hash computed when it was written; anything else is hashed here.
  const cachedHash = trustCanonical ? item.schemaHash : undefined;
  let schemaHash: string;
  if (typeof cachedHash === 'string' && /^[0-9a-f]{64}$/.test(cachedHash)) {
    schemaHash = cachedHash;
  } else {
    const json = JSON.stringify(canonical);
    if (Buffer.byteLength(json, 'utf8') > MCP_TOOL_LIMITS.maxSchemaBytes) {
      return unusable(
        `its input schema is larger than ${MCP_TOOL_LIMITS.maxSchemaBytes} bytes, the limit for MCP tool schemas`,
      );
    }
    schemaHash = createHash('sha256').update(json, 'utf8').digest('hex');
  }
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
    ...base,
    inputSchema: canonical,
    schemaHash,
    schemaFingerprint: schemaHash.slice(0, 16),
    schemaValid,
  };
}

function boundedText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never split a surrogate pair.
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)} [... cut: longer than ${max} characters]`;
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
 * A tool the cache names without a schema: its input schema did not compile when the cache was
 * written, so only its name, description and hints are kept (enough for `search` to find it); a
 * call connects the server and validates against the live schema, or not at all if it still does
 * not compile.
 */
export interface McpCachedToolListing {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly annotations: ToolAnnotations;
}

/** What a server's schema cache holds. */
export interface McpSchemaCache {
  /**
   * Tools with a usable, compiling schema (the hint `inspect` and pre-call validation use). Normalised
   * on first access: a `list` needs only {@link McpSchemaCache.listing}.
   */
  readonly tools: McpToolSchema[];
  /**
   * The same tools by name and hints alone, in the same order (what `list` counts and asks the
   * session's policy about), read without normalising the rest of each entry.
   */
  readonly listing: readonly McpToolListing[];
  /** Tools whose schema did not compile: named, never validated against. */
  readonly withoutSchema: McpCachedToolListing[];
  /** When the cache was written (ISO 8601), if it says. */
  readonly savedAt: string | undefined;
  /**
   * The server's resources, templates and prompts when it was last connected (each undefined when
   * the file does not say: written before they were cached, or their listing failed).
   */
  readonly content: McpServerContent;
}

/** A tool by name and hints alone: what `list` needs of a cached tool. */
export interface McpToolListing {
  readonly name: string;
  readonly annotations: ToolAnnotations;
}

/**
 * The names and hints of the entries {@link normalizeMcpTools} keeps, in its order, without the rest
 * of its work: it drops exactly the entries that are not objects, have an invalid name or repeat one,
 * and keeps at most {@link MCP_TOOL_LIMITS}.maxTools.
 */
function listTools(raw: readonly unknown[]): McpToolListing[] {
  const listed: McpToolListing[] = [];
  const seen = new Set<string>();
  for (const item of raw) {
    if (listed.length >= MCP_TOOL_LIMITS.maxTools) break;
    if (!isJsonObject(item)) continue;
    const { name } = item;
    if (typeof name !== 'string' || !MCP_TOOL_NAME_PATTERN.test(name) || seen.has(name)) continue;
    seen.add(name);
    listed.push({ name, annotations: mapAnnotations(item.annotations) });
  }
  listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return listed;
}

/**
 * Reads a server's cached tool schemas. A missing, unreadable or corrupt file, another format
 * version, or a key that does not match the server's current configuration all mean "no cache".
 * Schemas are not compiled here (they were checked before being written): reading 50 caches must
 * stay cheap, because `list` and `inspect` read them.
 */
export function readSchemaCache(stateDir: string, server: ResolvedMcpServer): McpSchemaCache | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(schemaCachePath(stateDir, server), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed) || parsed.version !== CACHE_VERSION || parsed.key !== server.cacheKey)
    return undefined;
  const rawTools: unknown = parsed.tools;
  if (!Array.isArray(rawTools)) return undefined;
  // A cold `list` of 50 servers reads 600 cached tools and shows only their count and what the policy
  // refuses: the full normalisation (texts, schemas, hashes) waits for the first inspect, search or call.
  const listing = listTools(rawTools);
  let tools: McpToolSchema[] | undefined;
  // The parsed entries are kept only until they are normalised.
  let unnormalised: unknown[] | undefined = rawTools;
  const known = new Set(listing.map((tool) => tool.name));
  const withoutSchema: McpCachedToolListing[] = [];
  // Written since the cache stopped hiding tools whose schema does not compile; older files lack it.
  for (const item of Array.isArray(parsed.withoutSchema) ? parsed.withoutSchema : []) {
    if (withoutSchema.length + listing.length >= MCP_TOOL_LIMITS.maxTools) break;
    const listed = normalizeMcpTools([item], undefined, { canonical: true }).tools[0];
    if (!listed || known.has(listed.name)) continue;
    known.add(listed.name);
    withoutSchema.push({
      name: listed.name,
      title: listed.title,
      description: listed.description,
      annotations: listed.annotations,
    });
  }
  return {
    get tools() {
      if (tools === undefined) {
        tools = normalizeMcpTools(unnormalised ?? [], undefined, { canonical: true }).tools;
        unnormalised = undefined;
      }
      return tools;
    },
    listing,
    withoutSchema,
    savedAt: typeof parsed.savedAt === 'string' ? parsed.savedAt.slice(0, 40) : undefined,
    content: {
      resources: Array.isArray(parsed.resources) ? normalizeResources(parsed.resources).items : undefined,
      templates: Array.isArray(parsed.resourceTemplates)
        ? normalizeTemplates(parsed.resourceTemplates).items
        : undefined,
      prompts: Array.isArray(parsed.prompts) ? normalizePrompts(parsed.prompts).items : undefined,
    },
  };
}

/**
 * Writes a server's tool schemas (only the ones whose schema compiles; the others by name,
 * description and hints alone, under `withoutSchema`) atomically: a 0600 temp file
 * in the same directory, renamed over the old one. The file holds the cache key and the tools,
 * never an env or header value. Returns false instead of throwing: the cache is best effort.
 */
export function writeSchemaCache(
  stateDir: string,
  server: ResolvedMcpServer,
  tools: readonly McpToolSchema[],
  content: McpServerContent = UNKNOWN_CONTENT,
): boolean {
  const file = schemaCachePath(stateDir, server);
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const body = {
    version: CACHE_VERSION,
    key: server.cacheKey,
    server: server.name,
    savedAt: new Date().toISOString(),
    tools: tools
      .filter((tool) => tool.schemaValid && tool.unusable === undefined)
      .map((tool) => ({
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        description: tool.description,
        inputSchema: tool.inputSchema,
        schemaHash: tool.schemaHash,
        annotations: tool.annotations,
      })),
    // Named without a schema, so a later session can still find and call them (the cache is a hint).
    withoutSchema: tools
      .filter((tool) => !tool.schemaValid && tool.unusable === undefined)
      .map((tool) => ({
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        description: tool.description,
        annotations: tool.annotations,
      })),
    // Resources, templates and prompts as listed (metadata only, never contents); absent when unknown.
    ...(content.resources ? { resources: content.resources } : {}),
    ...(content.templates
      ? {
          resourceTemplates: content.templates.map(({ variables: _variables, ...template }) => template),
        }
      : {}),
    ...(content.prompts ? { prompts: content.prompts } : {}),
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
