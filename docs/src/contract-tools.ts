import { isJsonObject, type RegisteredTool, type ToolRegistry } from '@toolhost/contracts';

/** One row of the tool table: a built-in tool, a hidden tool, or an alias name of a tool. */
export interface ContractTool {
  readonly name: string;
  /** The contract's read-only flag: `annotations.readOnly === true` (unknown counts as false). */
  readonly readOnly: boolean;
  /** `listed`: a built-in; `hidden`: a legacy alias registered as its own hidden tool; `alias`: another name of a tool. */
  readonly kind: 'listed' | 'hidden' | 'alias';
  /** For `alias` rows, the tool the name resolves to. */
  readonly aliasOf?: string;
  /** The trimmed model description (an alias row has none of its own: the empty string). */
  readonly description: string;
  /** The registered tool (for an alias, the tool it resolves to). */
  readonly tool: RegisteredTool;
}

/**
 * The documented tools of a registry, sorted by name: every `source: "builtin"` tool (listed and
 * hidden, `use_capability` included) plus one row per alias name they declare.
 */
export function contractTools(registry: Pick<ToolRegistry, 'list'>): ContractTool[] {
  const rows: ContractTool[] = [];
  for (const tool of registry.list({ visibility: 'all' })) {
    const definition = tool.definition;
    if (definition.source !== 'builtin') continue;
    const readOnly = definition.annotations.readOnly === true;
    rows.push({
      name: tool.name,
      readOnly,
      kind: definition.visibility === 'hidden' ? 'hidden' : 'listed',
      description: definition.modelTool.description.trim(),
      tool,
    });
    for (const alias of definition.aliases ?? []) {
      rows.push({ name: alias, readOnly, kind: 'alias', aliasOf: tool.name, description: '', tool });
    }
  }
  return rows.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}

/** The parameters of a tool's canonical schema, in key order, with whether each is required. */
export function schemaParameters(tool: RegisteredTool): Array<{ name: string; required: boolean }> {
  const schema = tool.canonicalSchema;
  const properties = isJsonObject(schema.properties) ? Object.keys(schema.properties) : [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return properties.map((name) => ({ name, required: required.has(name) }));
}

/** Joins a description's lines with single spaces (table cells have no line breaks); other spacing is kept. */
export function oneLine(text: string): string {
  return text.trim().replace(/[ \t]*\r?\n[ \t\r\n]*/g, ' ');
}
