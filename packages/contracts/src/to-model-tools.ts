import { canonicalizeSchema } from './canonicalize-schema.js';
import type { RegisteredTool } from './registry.js';
import type { AnyToolDefinition, ModelTool } from './tool.js';

/**
 * The provider-neutral model view of tools: each exactly `{ name, description, inputSchema }`, with
 * the description trimmed and the schema canonical. No runtime fact (source, group, category,
 * annotations, execution, pathAccess, visibility) is carried over.
 */
export function toModelTools(tools: Iterable<RegisteredTool | AnyToolDefinition>): ModelTool[] {
  const out: ModelTool[] = [];
  for (const tool of tools) {
    if ('canonicalSchema' in tool) {
      out.push({
        name: tool.name,
        description: tool.definition.modelTool.description.trim(),
        inputSchema: tool.canonicalSchema,
      });
    } else {
      out.push({
        name: tool.modelTool.name,
        description: tool.modelTool.description.trim(),
        inputSchema: canonicalizeSchema(tool.modelTool.inputSchema),
      });
    }
  }
  return out;
}
