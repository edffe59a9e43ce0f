import { deepFreeze } from './deep-freeze.js';
import { canonicalizeSchema, sha256Hex } from './canonicalize-schema.js';
import type { JsonObject } from './json.js';
import { type AnyToolDefinition, TOOL_GROUPS, type ToolVisibility } from './tool.js';

/** The name rule for built-in tools (and the common safe provider name pattern). */
export const BUILTIN_TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

// Names of non-built-in tools (MCP allows dots, up to 128 characters): anything printable.
const OTHER_TOOL_NAME_PATTERN = /^[^\s\u0000-\u001f\u007f]{1,128}$/;

/** A registered tool with its canonical schema and fingerprint computed once. */
export interface RegisteredTool {
  readonly name: string;
  readonly definition: AnyToolDefinition;
  /** The canonical input schema (frozen). */
  readonly canonicalSchema: JsonObject;
  /** The canonical schema's bytes. */
  readonly canonicalSchemaJson: string;
  /** Full SHA-256 hex of the canonical bytes (validator cache key). */
  readonly schemaHash: string;
  /** The public fingerprint: the first 16 hex characters of {@link RegisteredTool.schemaHash}. */
  readonly schemaFingerprint: string;
}

/** The result of looking a name up. */
export interface ToolLookup {
  readonly tool: RegisteredTool;
  /** Set when the name matched an alias rather than the tool's own name. */
  readonly alias?: string;
}

/** Options of {@link ToolRegistry.list}. */
export interface ToolListOptions {
  /** Which tools to list; default `listed`. */
  readonly visibility?: ToolVisibility | 'all';
}

/** A set of tool definitions with unique names and aliases. */
export interface ToolRegistry {
  /** Registers a tool. Throws on a duplicate name or alias, a bad name, or a mismatched `modelTool.name`. */
  register(tool: AnyToolDefinition): RegisteredTool;
  /** Looks a tool up by name or alias. */
  lookup(name: string): ToolLookup | undefined;
  /** The tool registered under this name or alias. */
  get(name: string): RegisteredTool | undefined;
  has(name: string): boolean;
  /** Tools in the fixed group order (utility, read-only, editing, shell), by name inside each group. */
  list(options?: ToolListOptions): RegisteredTool[];
  readonly size: number;
}

const groupRank = new Map<string, number>(TOOL_GROUPS.map((group, index) => [group, index]));

/**
 * Creates an empty tool registry. Registration canonicalises each schema once, so hosts and
 * dialects share the same bytes.
 */
export function createToolRegistry(): ToolRegistry {
  const byName = new Map<string, RegisteredTool>();
  const byAlias = new Map<string, RegisteredTool>();
  let sorted: RegisteredTool[] | undefined;

  function assertName(name: string, tool: AnyToolDefinition, what: string): void {
    const pattern = tool.source === 'builtin' ? BUILTIN_TOOL_NAME_PATTERN : OTHER_TOOL_NAME_PATTERN;
    if (typeof name !== 'string' || !pattern.test(name)) {
      throw new TypeError(`${what} "${name}" of a ${tool.source} tool does not match ${pattern.source}`);
    }
    if (byName.has(name) || byAlias.has(name)) throw new Error(`tool name "${name}" is already registered`);
  }

  return {
    register(tool) {
      assertName(tool.name, tool, 'tool name');
      if (tool.modelTool.name !== tool.name) {
        throw new TypeError(
          `modelTool.name "${tool.modelTool.name}" must equal the tool name "${tool.name}"`,
        );
      }
      if (!groupRank.has(tool.group)) throw new TypeError(`tool "${tool.name}" has an unknown group`);
      if (!(tool.execution.timeoutMs > 0))
        throw new TypeError(`tool "${tool.name}" needs a positive timeoutMs`);
      const aliases = tool.aliases ?? [];
      for (const alias of aliases) assertName(alias, tool, 'alias');
      if (new Set(aliases).size !== aliases.length || aliases.includes(tool.name)) {
        throw new Error(`tool "${tool.name}" repeats an alias`);
      }
      const canonicalSchema = deepFreeze(canonicalizeSchema(tool.modelTool.inputSchema));
      const canonicalSchemaJson = JSON.stringify(canonicalSchema);
      const schemaHash = sha256Hex(canonicalSchemaJson);
      const registered: RegisteredTool = Object.freeze({
        name: tool.name,
        definition: tool,
        canonicalSchema,
        canonicalSchemaJson,
        schemaHash,
        schemaFingerprint: schemaHash.slice(0, 16),
      });
      byName.set(tool.name, registered);
      for (const alias of aliases) byAlias.set(alias, registered);
      sorted = undefined;
      return registered;
    },
    lookup(name) {
      const tool = byName.get(name);
      if (tool) return { tool };
      const aliased = byAlias.get(name);
      return aliased ? { tool: aliased, alias: name } : undefined;
    },
    get(name) {
      return byName.get(name) ?? byAlias.get(name);
    },
    has(name) {
      return byName.has(name) || byAlias.has(name);
    },
    list(options = {}) {
      sorted ??= [...byName.values()].sort(
        (a, b) =>
          (groupRank.get(a.definition.group) ?? 0) - (groupRank.get(b.definition.group) ?? 0) ||
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      );
      const visibility = options.visibility ?? 'listed';
      return visibility === 'all'
        ? [...sorted]
        : sorted.filter((tool) => tool.definition.visibility === visibility);
    },
    get size() {
      return byName.size;
    },
  };
}
