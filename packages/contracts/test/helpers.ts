import { type AnyToolDefinition, defineTool, type ToolGroup, textResult } from '../src/index.js';

/** A minimal valid tool definition for registry tests. */
export function sampleTool(name: string, overrides: Partial<AnyToolDefinition> = {}): AnyToolDefinition {
  const group: ToolGroup = overrides.group ?? 'read_only_builtins';
  return defineTool({
    name,
    source: 'builtin',
    group,
    category: 'read',
    annotations: { readOnly: true, destructive: false, openWorld: false, idempotent: true },
    execution: { mode: 'parallel', timeoutMs: 10_000, abortable: true },
    pathAccess: 'current_project',
    visibility: 'listed',
    modelTool: {
      name,
      description: `  The ${name} tool.  `,
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
    execute: async () => textResult('ok'),
    ...overrides,
  });
}
