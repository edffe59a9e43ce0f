import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  canonicalSchemaJson,
  createArgumentValidator,
  type JsonObject,
  sha256Hex,
} from '@toolhost/contracts';
import { driftedSchemaModules, packageSchemaModules } from '../../../scripts/schema-gen.js';
import { useCapabilityArgumentsSchema } from '../src/capability-schemas.generated.js';

/** Every `additionalProperties` value in a schema, with its JSON pointer. */
function additionalProperties(node: unknown, pointer = ''): [string, unknown][] {
  if (typeof node !== 'object' || node === null) return [];
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalProperties') out.push([`${pointer}/${key}`, value]);
    out.push(...additionalProperties(value, `${pointer}/${key}`));
  }
  return out;
}

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('generated argument schemas', () => {
  it('match the TypeScript argument types they were generated from', () => {
    const drifted = driftedSchemaModules(packageDir);
    assert.deepEqual(
      drifted,
      [],
      `argument schemas drifted from their TypeScript types: run \`pnpm --filter @toolhost/capability-proxy gen:schemas\` and commit ${drifted.join(', ')}`,
    );
  });

  it('exist for the capability argument types', () => {
    assert.deepEqual(
      packageSchemaModules(packageDir).map((pair) => pair.outFile.split('/').pop()),
      ['capability-schemas.generated.ts'],
    );
  });

  it('give use_capability arguments no empty additionalProperties schema (MCP Inspector --strict warned), accepting what they accepted', () => {
    const empty = additionalProperties(useCapabilityArgumentsSchema).filter(
      ([, value]) => typeof value === 'object' && value !== null && Object.keys(value).length === 0,
    );
    assert.deepEqual(empty, [], 'no `additionalProperties: {}` anywhere');
    // The schema as it was generated before: an index signature of unknown as `additionalProperties: {}`.
    const properties = useCapabilityArgumentsSchema.properties as Record<string, JsonObject>;
    const before = {
      ...useCapabilityArgumentsSchema,
      properties: { ...properties, arguments: { ...properties.arguments, additionalProperties: {} } },
    } as JsonObject;
    const validator = createArgumentValidator();
    const accepts = (schema: JsonObject, value: unknown) =>
      validator.validate({
        toolName: 'use_capability',
        source: 'builtin',
        schema,
        schemaHash: sha256Hex(canonicalSchemaJson(schema)),
        arguments: value,
      }).ok;
    const inputs: unknown[] = [
      { action: 'list' },
      { action: 'call', capability_id: 'tool:glob', arguments: {} },
      { action: 'call', capability_id: 'x', arguments: { a: 1, b: { c: [null, 'd'] }, e: true } },
      { action: 'call', capability_id: 'x', arguments: [] },
      { action: 'call', capability_id: 'x', arguments: 'a string' },
      { action: 'call', capability_id: 'x', arguments: null },
      { action: 'call', capability_id: 'x', arguments: 3 },
      { action: 'call', extra: 1 },
    ];
    for (const input of inputs) {
      assert.equal(
        accepts(useCapabilityArgumentsSchema, input),
        accepts(before, input),
        JSON.stringify(input),
      );
    }
    assert.ok(accepts(useCapabilityArgumentsSchema, inputs[2]), 'any object is still accepted as arguments');
    assert.ok(!accepts(useCapabilityArgumentsSchema, inputs[3]), 'an array still is not');
  });
});
