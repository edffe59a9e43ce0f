import { DialectError } from './dialect-error.js';
import type { DialectName } from './ir.js';
import { own, recordOf, shortHash } from './json-utils.js';

/**
 * The tool-name pattern every provider accepts (the providers' documented name rules): a letter or `_` first, then
 * letters, digits, `_` and `-`, at most 64 characters. MCP names with dots, slashes or colons, and
 * longer names, are compiled to it.
 */
export const SAFE_TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

/** A bidirectional map between neutral tool names and the names on the wire. */
export interface NameMap {
  /** Neutral name → wire name. */
  readonly toWire: Readonly<Record<string, string>>;
  /** Wire name → neutral name. */
  readonly fromWire: Readonly<Record<string, string>>;
}

/**
 * One name compiled to {@link SAFE_TOOL_NAME_PATTERN} without regard to other names: characters
 * outside `[a-zA-Z0-9_-]` become `_`, a name that does not start with a letter or `_` gets a `_`
 * prefix, and a name that changed and would exceed 64 characters is cut and given `_` plus an
 * 8-hex hash of the original. Valid names are returned unchanged. Deterministic.
 */
export function sanitizeToolName(name: string): string {
  if (SAFE_TOOL_NAME_PATTERN.test(name)) return name;
  let base = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (!/^[a-zA-Z_]/.test(base)) base = `_${base}`;
  if (base.length <= MAX_NAME_LENGTH) return base;
  return withHashSuffix(base, name, HASH_LENGTH);
}

function withHashSuffix(base: string, original: string, hashLength: number): string {
  const keep = MAX_NAME_LENGTH - 1 - hashLength;
  return `${base.slice(0, keep)}_${shortHash(original, hashLength)}`;
}

/**
 * Builds the name map of a tool set. Names that already match {@link SAFE_TOOL_NAME_PATTERN} keep
 * their name; the others are sanitised with {@link sanitizeToolName}, and any that then collide
 * with another name get `_` plus a hash of their original name (lengthened until unique). The
 * result depends only on the set of names, not their order.
 *
 * Throws `DialectError` `CONFIG_INVALID` on duplicate names (a misuse: names identify tools).
 */
export function createNameMap(names: readonly string[]): NameMap {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) {
      throw new DialectError({
        code: 'CONFIG_INVALID',
        message: 'two tools share one name; tool names must be unique within a tool set',
        details: { toolName: name },
      });
    }
    seen.add(name);
  }
  const sorted = [...names].sort();
  const kept = new Set(sorted.filter((name) => SAFE_TOOL_NAME_PATTERN.test(name)));
  const candidates = new Map<string, string[]>();
  for (const name of sorted) {
    if (kept.has(name)) continue;
    const candidate = sanitizeToolName(name);
    const group = candidates.get(candidate);
    if (group) group.push(name);
    else candidates.set(candidate, [name]);
  }
  const taken = new Set(kept);
  const toWire = new Map<string, string>(sorted.filter((name) => kept.has(name)).map((name) => [name, name]));
  // Unique, non-colliding sanitised names first, so hashed names can avoid them.
  const hashed: [string, string][] = [];
  for (const [candidate, group] of candidates) {
    if (group.length === 1 && !taken.has(candidate)) {
      taken.add(candidate);
      toWire.set(group[0]!, candidate);
    } else {
      for (const name of group) hashed.push([name, candidate]);
    }
  }
  for (const [name, candidate] of hashed) {
    let length = HASH_LENGTH;
    let wire = withHashSuffix(candidate, name, length);
    while (taken.has(wire) && length < 32) {
      length += 4;
      wire = withHashSuffix(candidate, name, length);
    }
    taken.add(wire);
    toWire.set(name, wire);
  }
  const ordered = names.map((name) => [name, toWire.get(name)!] as const);
  return {
    toWire: recordOf(ordered),
    fromWire: recordOf(ordered.map(([name, wire]) => [wire, name] as const)),
  };
}

/** The wire name of a neutral name: from the map when present, else {@link sanitizeToolName}. */
export function toWireName(nameMap: NameMap | undefined, name: string): string {
  return (nameMap && own(nameMap.toWire, name)) ?? sanitizeToolName(name);
}

/** The neutral name of a wire name: from the map when present, else unchanged. */
export function fromWireName(nameMap: NameMap | undefined, wireName: string): string {
  return (nameMap && own(nameMap.fromWire, wireName)) ?? wireName;
}

/** The tool-call id rule of each dialect: allowed characters and maximum length. */
export const TOOL_CALL_ID_RULES: Readonly<Record<DialectName, { pattern: RegExp; maxLength: number }>> = {
  // Chat Completions rejects ids over 40 characters ("string too long ... maximum length 40").
  'openai-chat': { pattern: /^[a-zA-Z0-9_-]{1,40}$/, maxLength: 40 },
  // Responses call ids: [A-Za-z0-9_-], at most 64 (pi-ai's practice).
  'openai-responses': { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64 },
  // Anthropic tool_use ids must match ^[a-zA-Z0-9_-]+$; 64 keeps them portable.
  anthropic: { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64 },
  // Gemini ids are optional and free-form; only emptiness is rejected here.
  gemini: { pattern: /^[\s\S]{1,256}$/, maxLength: 256 },
};

/**
 * A tool-call id the dialect accepts: valid ids are returned unchanged; others have invalid
 * characters replaced by `_` and, when they changed or are too long, are cut and given `_` plus an
 * 8-hex hash of the original (so distinct ids stay distinct). Deterministic; map back with the
 * `toolCallIds` record `buildRequest` returns.
 */
export function normalizeToolCallId(id: string, dialect: DialectName): string {
  const rule = TOOL_CALL_ID_RULES[dialect];
  if (rule.pattern.test(id)) return id;
  const base = dialect === 'gemini' ? id : id.replace(/[^a-zA-Z0-9_-]/g, '_');
  const keep = rule.maxLength - 1 - HASH_LENGTH;
  return `${(base || 'call').slice(0, keep)}_${shortHash(id, HASH_LENGTH)}`;
}
