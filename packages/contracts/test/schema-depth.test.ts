import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalizeSchema,
  canonicalSchemaJson,
  createArgumentValidator,
  createToolRegistry,
  isSchemaTooDeepError,
  MAX_SCHEMA_DEPTH,
  schemaFingerprint,
} from '../src/index.js';
import { jsonDepthExceeds } from '../src/json-depth.js';
import { sampleTool } from './helpers.js';

/** `levels` nested properties built as objects (no JSON text: JSON.stringify itself overflows at 20,000). */
function nestedSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < levels; level++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

/** Arguments nested `levels` arrays deep: `[[[...]]]`. */
function nestedArray(levels: number): unknown {
  let value: unknown = [];
  for (let level = 0; level < levels; level++) value = [value];
  return value;
}

describe('jsonDepthExceeds', () => {
  it('counts objects and arrays, the root as level 1, without recursion', () => {
    assert.equal(jsonDepthExceeds('text', 0), false);
    assert.equal(jsonDepthExceeds({}, 1), false);
    assert.equal(jsonDepthExceeds({}, 0), true);
    assert.equal(jsonDepthExceeds({ properties: { a: { type: 'string' } } }, 3), false);
    assert.equal(jsonDepthExceeds({ properties: { a: { type: 'string' } } }, 2), true);
    assert.equal(jsonDepthExceeds([[[]]], 3), false);
    assert.equal(jsonDepthExceeds(nestedArray(200_000), MAX_SCHEMA_DEPTH), true);
  });
});

describe('canonicalizeSchema (schema depth limit)', () => {
  it('refuses a schema nested 20,000 levels with schema_too_deep instead of overflowing the stack', () => {
    const deep = nestedSchema(20_000);
    for (const run of [
      () => canonicalizeSchema(deep),
      () => canonicalSchemaJson(deep),
      () => schemaFingerprint(deep),
    ]) {
      assert.throws(run, (error: unknown) => {
        assert.ok(isSchemaTooDeepError(error), String(error));
        assert.equal(error.code, 'CONFIG_INVALID');
        assert.equal(error.details.limit, MAX_SCHEMA_DEPTH);
        assert.match(error.message, new RegExp(`deeper than ${MAX_SCHEMA_DEPTH} levels`));
        return true;
      });
    }
  });

  it('accepts a schema exactly at the limit and refuses one level more, also inside enum data', () => {
    // Each nested property is two levels (the schema and its `properties` map); the leaf is one.
    const levels = Math.floor((MAX_SCHEMA_DEPTH - 1) / 2);
    const atLimit = nestedSchema(levels);
    assert.equal(jsonDepthExceeds(atLimit, MAX_SCHEMA_DEPTH), false);
    assert.equal(jsonDepthExceeds(nestedSchema(levels + 1), MAX_SCHEMA_DEPTH), true);
    assert.doesNotThrow(() => canonicalizeSchema(atLimit));
    assert.throws(() => canonicalizeSchema(nestedSchema(levels + 1)), isSchemaTooDeepError);
    const overLimit = { type: 'object', properties: {}, enum: [nestedArray(MAX_SCHEMA_DEPTH)] };
    assert.throws(() => canonicalizeSchema(overLimit), isSchemaTooDeepError);
    const justFits = { type: 'object', properties: {}, enum: [nestedArray(MAX_SCHEMA_DEPTH - 3)] };
    assert.doesNotThrow(() => canonicalizeSchema(justFits));
  });

  it('refuses to register a built-in whose schema is too deep, naming nothing but the rule', () => {
    const registry = createToolRegistry();
    const tool = sampleTool('deep_tool', {
      modelTool: { name: 'deep_tool', description: 'd', inputSchema: nestedSchema(20_000) as never },
    });
    assert.throws(() => registry.register(tool), isSchemaTooDeepError);
  });
});

describe('createArgumentValidator (schema depth limit)', () => {
  it('refuses a 20,000-level MCP schema with HOST_CONFIGURATION instead of overflowing the stack or dispatching unvalidated', () => {
    const validator = createArgumentValidator();
    const deep = nestedSchema(20_000);
    for (const schemaHash of [undefined, 'f'.repeat(64)]) {
      const result = validator.validate({
        toolName: 'mcp__srv__deep',
        source: 'mcp',
        schema: deep as never,
        ...(schemaHash ? { schemaHash } : {}),
        arguments: {},
      });
      assert.ok(!result.ok, 'a schema past the limit is never treated as valid or skipped');
      assert.equal(result.error.code, 'HOST_CONFIGURATION');
      assert.equal(result.error.details.reason, 'schema_too_deep');
      assert.match(result.error.message, /mcp__srv__deep/);
      assert.match(result.error.message, new RegExp(`deeper than ${MAX_SCHEMA_DEPTH} levels`));
    }
  });

  it('answers arguments nested 100,000 levels against a recursive schema with ARGUMENT_VALIDATION, not a crash', () => {
    const validator = createArgumentValidator();
    const schema = {
      type: 'object',
      properties: { tree: { $ref: '#/$defs/node' } },
      $defs: { node: { type: 'array', items: { $ref: '#/$defs/node' } } },
    };
    const result = validator.validate({
      toolName: 'tree_tool',
      source: 'mcp',
      schema,
      arguments: { tree: nestedArray(100_000) },
    });
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'ARGUMENT_VALIDATION');
    assert.match(result.error.message, /depth/);
    const fine = validator.validate({
      toolName: 'tree_tool',
      source: 'mcp',
      schema,
      arguments: { tree: [[[]]] },
    });
    assert.ok(fine.ok);
  });
});
