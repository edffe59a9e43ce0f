import { createHash } from 'node:crypto';

/** The id of the paging capability. */
export const SESSION_TOOL_RESULT_ID = 'session:tool_result';

/** A capability id taken apart (syntax only; whether it exists is decided against the inventory). */
export type ParsedCapabilityId =
  | { readonly kind: 'tool'; readonly name: string }
  | { readonly kind: 'mcp-server'; readonly server: string }
  /** `rest` is `<server>/<tool>`; where it splits depends on which servers exist. */
  | { readonly kind: 'mcp-tool'; readonly rest: string }
  /** `rest` is `<server>/<uri or URI template>`; where it splits depends on which servers exist. */
  | { readonly kind: 'mcp-resource'; readonly rest: string }
  /** `rest` is `<server>/<prompt>`. */
  | { readonly kind: 'mcp-prompt'; readonly rest: string }
  | { readonly kind: 'session' }
  /** `mcp__<server>__<tool>`, the permission-rule spelling: never executed, only suggested. */
  | { readonly kind: 'mcp-permission-name'; readonly rest: string }
  | { readonly kind: 'bare'; readonly text: string };

// Spellings of the paging capability that models produce; all mean `session:tool_result`.
const SESSION_ALIASES = new Set([
  'session:tool_result',
  'session:tool-result',
  'session:toolresult',
  'session_tool_result',
  'tool:session_tool_result',
]);

/** Parses a capability id: `tool:`, `mcp-server:`, `mcp-tool:`, `mcp-resource:`, `mcp-prompt:`, portable `mcp/<server>/<tool>`, `session:tool_result`. */
export function parseCapabilityId(id: string): ParsedCapabilityId {
  const text = id.trim();
  if (SESSION_ALIASES.has(text.toLowerCase())) return { kind: 'session' };
  if (text.startsWith('tool:')) return { kind: 'tool', name: text.slice(5) };
  if (text.startsWith('mcp-server:')) return { kind: 'mcp-server', server: text.slice(11) };
  if (text.startsWith('mcp-tool:')) return { kind: 'mcp-tool', rest: text.slice(9) };
  if (text.startsWith('mcp-resource:')) return { kind: 'mcp-resource', rest: text.slice(13) };
  if (text.startsWith('mcp-prompt:')) return { kind: 'mcp-prompt', rest: text.slice(11) };
  if (text.startsWith('mcp/')) return { kind: 'mcp-tool', rest: text.slice(4) };
  if (text.startsWith('mcp__')) return { kind: 'mcp-permission-name', rest: text.slice(5) };
  return { kind: 'bare', text };
}

/** `tool:<name>`. */
export function toolCapabilityId(name: string): string {
  return `tool:${name}`;
}

/** `mcp-server:<server>`. */
export function serverCapabilityId(server: string): string {
  return `mcp-server:${server}`;
}

/** `mcp-tool:<server>/<tool>`. */
export function mcpToolCapabilityId(server: string, tool: string): string {
  return `mcp-tool:${server}/${tool}`;
}

/** `mcp-resource:<server>/<uri>` (or a resource template's URI template in place of the URI). */
export function mcpResourceCapabilityId(server: string, uri: string): string {
  return `mcp-resource:${server}/${uri}`;
}

/** `mcp-prompt:<server>/<prompt>`. */
export function mcpPromptCapabilityId(server: string, prompt: string): string {
  return `mcp-prompt:${server}/${prompt}`;
}

/** The tool-name part of the permission name of reading a server's resources: `mcp__<server>__read_resource`. */
export const MCP_READ_RESOURCE_RULE = 'read_resource';

/** The tool-name part of the permission name of getting a server's prompts: `mcp__<server>__prompt`. */
export const MCP_PROMPT_RULE = 'prompt';

/**
 * The permission-rule name of an MCP tool, `mcp__<server>__<tool>`, and of connecting a server,
 * `mcp_connect__<server>`. Each part is kept to `[A-Za-z0-9_-]`; a part that had to change gets
 * `_` + 6 hex of its SHA-256, so two different names never share a rule name. Rules are exact
 * names: `mcp__github__*` is not a pattern.
 */
export function mcpPermissionName(server: string, tool?: string): string {
  return tool === undefined
    ? `mcp_connect__${safePart(server)}`
    : `mcp__${safePart(server)}__${safePart(tool)}`;
}

// The common case, tested without building a replaced copy (a cold list names every cached tool).
const SAFE_PART = /^[A-Za-z0-9_-]*$/;

function safePart(part: string): string {
  if (SAFE_PART.test(part)) return part;
  const safe = part.replace(/[^A-Za-z0-9_-]/g, '_');
  if (safe === part) return part;
  return `${safe}_${createHash('sha256').update(part, 'utf8').digest('hex').slice(0, 6)}`;
}
