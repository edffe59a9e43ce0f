import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createToolRegistry, toModelTools } from '../src/index.js';
import { sampleTool } from './helpers.js';

const runtimeKeys = [
  'source',
  'group',
  'category',
  'annotations',
  'execution',
  'pathAccess',
  'visibility',
  'timeoutMs',
  'abortable',
  'mode',
  'aliases',
  'permission',
  'resultShape',
  'hosted',
  'execute',
  'readOnly',
  'destructive',
  'openWorld',
  'idempotent',
];

function keysOutsideSchemas(value: unknown, found: Set<string>, inSchema = false): void {
  if (Array.isArray(value)) for (const item of value) keysOutsideSchemas(item, found, inSchema);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (!inSchema) found.add(key);
      keysOutsideSchemas(child, found, inSchema || key === 'inputSchema');
    }
  }
}

describe('toModelTools', () => {
  // CT-MODEL-1
  it('emits exactly name, description and inputSchema per tool and no runtime key anywhere', () => {
    const registry = createToolRegistry();
    registry.register(sampleTool('read_file', { aliases: ['read'] }));
    registry.register(
      sampleTool('bash', {
        group: 'shell_builtins',
        category: 'shell',
        annotations: { destructive: true, openWorld: true },
      }),
    );
    const tools = toModelTools(registry.list());
    for (const tool of tools)
      assert.deepEqual(Object.keys(tool).sort(), ['description', 'inputSchema', 'name']);
    const serialized = JSON.stringify(tools);
    const keys = new Set<string>();
    keysOutsideSchemas(JSON.parse(serialized), keys);
    for (const key of runtimeKeys) assert.equal(keys.has(key), false, `runtime key ${key} leaked`);
    for (const key of ['timeoutMs', 'abortable', 'pathAccess', 'current_project', 'read_only_builtins']) {
      assert.equal(serialized.includes(key), false, `${key} leaked into the serialized output`);
    }
  });

  it('trims descriptions and canonicalises schemas, from definitions and registered tools alike', () => {
    const tool = sampleTool('grep', {
      modelTool: {
        name: 'grep',
        description: '\n Search. \n',
        inputSchema: { properties: { b: {}, a: {} }, type: 'object' },
      },
    });
    const fromDefinition = toModelTools([tool]);
    const fromRegistry = toModelTools([createToolRegistry().register(tool)]);
    assert.deepEqual(fromDefinition, fromRegistry);
    assert.equal(fromDefinition[0]?.description, 'Search.');
    assert.equal(
      JSON.stringify(fromDefinition[0]?.inputSchema),
      '{"properties":{"a":{},"b":{}},"type":"object"}',
    );
  });

  it('gives byte-identical output on repeated calls', () => {
    const registry = createToolRegistry();
    registry.register(sampleTool('ls'));
    registry.register(sampleTool('glob'));
    assert.equal(
      JSON.stringify(toModelTools(registry.list())),
      JSON.stringify(toModelTools(registry.list())),
    );
  });
});
